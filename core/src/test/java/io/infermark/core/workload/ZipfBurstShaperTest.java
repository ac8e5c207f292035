package io.infermark.core.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ZipfBurstShaperTest {

  private final ZipfBurstShaper shaper = ZipfBurstShaper.defaults();

  @Test
  void rankFrequenciesFollowZipfWithTheConfiguredAlpha() {
    int n = 200_000;
    long[] counts = new long[11];
    for (long i = 0; i < n; i++) {
      counts[shaper.plan(i, 0).rank()]++;
    }
    // P(1)/P(2) = 2^1.2 = 2.2974 by definition; the normalised probabilities sum to 1.
    assertThat(shaper.rankProbability(1) / shaper.rankProbability(2)).isCloseTo(Math.pow(2, 1.2), within(1e-12));
    double chiSquare = 0;
    double total = 0;
    for (int k = 1; k <= 10; k++) {
      double expected = n * shaper.rankProbability(k);
      chiSquare += (counts[k] - expected) * (counts[k] - expected) / expected;
      total += shaper.rankProbability(k);
    }
    assertThat(total).isCloseTo(1.0, within(1e-12));
    // Chi-square with 9 degrees of freedom: the 0.1 % critical value is 27.877.
    assertThat(chiSquare).isLessThan(27.877);
    // The log-log slope of frequency against rank is −α.
    double slope = Math.log((double) counts[8] / counts[1]) / Math.log(8);
    assertThat(slope).isCloseTo(-1.2, within(0.03));
  }

  @Test
  void burstMultipliesTokensAndDividesTheGapSoTheirProductIsFixedPerItem() {
    long[] t = shaper.arrivals().schedule(5_000, Long.MAX_VALUE, 0);
    long previous = 0;
    double burstSum = 0;
    for (int i = 0; i < t.length; i++) {
      ZipfBurstShaper.Shaped s = shaper.plan(i, t[i]);
      // 512 + 1024 per rank below the first.
      assertThat(s.contextTokens()).isEqualTo(512 + 1024 * (s.rank() - 1));
      assertThat(s.inputTokens()).isEqualTo((long) s.contextTokens() * (s.burst() + 1));
      assertThat(s.gapNanos() * (s.burst() + 1)).isCloseTo(100_000_000.0, within(1e-6));
      assertThat(s.inputTokens() * s.gapNanos()).isCloseTo(s.contextTokens() * 1e8, within(1e-3));
      // The schedule's integer gap is the planned gap to within the nanosecond rounding.
      assertThat((double) (t[i] - previous)).isCloseTo(s.gapNanos(), within(1.0));
      previous = t[i];
      burstSum += s.burst();
    }
    assertThat(burstSum / t.length).isCloseTo(2.5, within(0.07));
  }

  @Test
  void promptsHaveThePlannedLengthAndHotItemsShareAPrefix() {
    Workload w = shaper.workload();
    Prompt a = null;
    Prompt b = null;
    for (long i = 0; i < 200 && (a == null || b == null); i++) {
      ZipfBurstShaper.Shaped s = shaper.plan(i, 0);
      if (s.rank() == 1 && s.burst() > 0) {
        Prompt p = w.request(i, 0, GenerationParams.defaults()).prompt();
        assertThat(TokenCounter.estimate().count(p)).isEqualTo(s.inputTokens());
        assertThat(p.tags()).containsEntry(WorkloadTags.RANK, "1")
            .containsEntry(WorkloadTags.INPUT_TOKENS_REQUESTED, Long.toString(s.inputTokens()))
            .containsEntry(WorkloadTags.INPUT_TOKENS_ACHIEVED, Long.toString(s.inputTokens()));
        if (a == null) {
          a = p;
        } else {
          b = p;
        }
      }
    }
    String prefix = SyntheticText.words(io.infermark.core.load.Randoms.mix(0 ^ 0x5A17L, 1), 512);
    assertThat(a.text()).startsWith(prefix);
    assertThat(b.text()).startsWith(prefix);
    assertThat(a.text()).isNotEqualTo(b.text());
  }

  @Test
  void contextCanGrowWithElapsedTimeInstead() {
    ZipfBurstShaper byTime = ZipfBurstShaper.builder().contextByTime(1024, Duration.ofSeconds(10)).build();
    assertThat(byTime.plan(3, 0).contextTokens()).isEqualTo(512);
    assertThat(byTime.plan(3, 25_000_000_000L).contextTokens()).isEqualTo(512 + 2 * 1024);
  }

  @Test
  void meanRateIsTheInverseOfTheMeanGap() {
    // E[1/(B+1)] for B ~ Poisson(2.5) = (1 − e^−2.5)/2.5 = 0.367166; mean gap 36.7166 ms.
    double rate = shaper.arrivals().nominalRate().getAsDouble();
    assertThat(rate).isCloseTo(1 / 0.0367166, within(0.001));
    long[] t = shaper.arrivals().schedule(100_000, Long.MAX_VALUE, 0);
    assertThat(100_000 / (t[t.length - 1] / 1e9)).isCloseTo(rate, within(rate * 0.01));
  }

  @Test
  void badParametersFailFast() {
    assertThatThrownBy(() -> ZipfBurstShaper.builder().alpha(0)).hasMessageContaining("alpha must be finite and > 0");
    assertThatThrownBy(() -> ZipfBurstShaper.builder().alpha(-1)).hasMessageContaining("alpha");
    assertThatThrownBy(() -> ZipfBurstShaper.builder().items(0)).hasMessageContaining("items");
    assertThatThrownBy(() -> ZipfBurstShaper.builder().burstMean(-0.5)).hasMessageContaining("burstMean");
    assertThatThrownBy(() -> ZipfBurstShaper.builder().baseGap(Duration.ZERO)).hasMessageContaining("baseGap");
    assertThatThrownBy(() -> ZipfBurstShaper.builder().items(2).rankPrompts(List.of(Prompt.user("a"))).build())
        .hasMessageContaining("one prompt per item");
    assertThat(ZipfBurstShaper.defaults().toString()).isEqualTo("ZipfBurstShaper[10 items, α 1.2, context 512 + 1024 "
        + "per rank, burst λ 2.5, base gap 100.000 ms, seed 0]");
  }
}
