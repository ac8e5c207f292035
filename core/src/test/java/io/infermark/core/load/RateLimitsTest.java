package io.infermark.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RateLimitsTest {

  @Test
  void requestPacingSpacesSlotsByOneOverTheRate() {
    RateLimits.Pacer p = RateLimits.none().requestsPerSecond(1000).pacer();
    assertThat(p.reserve(0, 0)).isEqualTo(0);
    assertThat(p.reserve(0, 0)).isEqualTo(1_000_000);
    assertThat(p.reserve(0, 0)).isEqualTo(2_000_000);
    // Asking late: no credit for idle time without a burst allowance.
    assertThat(p.reserve(10_000_000, 0)).isEqualTo(10_000_000);
    assertThat(p.reserve(10_000_000, 0)).isEqualTo(11_000_000);
  }

  @Test
  void everyUnitMustAllowTheRequest() {
    // 100 req/s and 1000 tokens/s: 50-token requests are bound by tokens (50 ms), 1-token ones by requests (10 ms).
    RateLimits.Pacer p = RateLimits.none().requestsPerSecond(100).tokensPerSecond(1000).pacer();
    assertThat(p.reserve(0, 50)).isEqualTo(0);
    assertThat(p.reserve(0, 1)).isEqualTo(50_000_000);
    assertThat(p.reserve(0, 1)).isEqualTo(60_000_000);
  }

  @Test
  void burstLetsWorkGoAheadOfThePace() {
    RateLimits.Pacer p = RateLimits.none().requestsPerSecond(1000).burst(Duration.ofMillis(2)).pacer();
    assertThat(p.reserve(0, 0)).isEqualTo(0);
    assertThat(p.reserve(0, 0)).isEqualTo(0);
    assertThat(p.reserve(0, 0)).isEqualTo(0);
    assertThat(p.reserve(0, 0)).isEqualTo(1_000_000);
  }

  @Test
  void tokenCostIsTaggedOrEstimatedInputPlusMaxTokens() {
    GenerationParams p = GenerationParams.builder().maxTokens(128).build();
    assertThat(RateLimits.tokenCost(Prompt.user("one two three"), p)).isEqualTo(3 + 128);
    assertThat(RateLimits.tokenCost(Prompt.user("x").withTag("input_tokens_achieved", "512"), p)).isEqualTo(640);
    assertThat(RateLimits.tokenCost(Prompt.user("one two"), GenerationParams.defaults())).isEqualTo(2);
  }

  @Test
  void badLimitsFailFast() {
    assertThatThrownBy(() -> RateLimits.none().requestsPerSecond(0)).hasMessageContaining("requestsPerSecond");
    assertThatThrownBy(() -> RateLimits.none().tokensPerSecond(-5)).hasMessageContaining("tokensPerSecond");
    assertThatThrownBy(() -> RateLimits.none().concurrentStreams(0)).hasMessageContaining("concurrentStreams");
    assertThat(RateLimits.none().requestsPerSecond(5).concurrentStreams(2).toString())
        .isEqualTo("RateLimits[5.0 req/s, 2 streams]");
  }
}
