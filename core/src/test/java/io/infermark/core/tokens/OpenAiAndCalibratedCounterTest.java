package io.infermark.core.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.capture.Usage;
import io.infermark.core.protocol.CalibratedCounter;
import io.infermark.core.protocol.Target;
import io.infermark.core.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class OpenAiAndCalibratedCounterTest {

  @Test
  void cl100kCountsMatchKnownEncodings() {
    TokenCounter cl100k = TokenCounter.openAi("cl100k_base");
    // tiktoken: "hello world" -> [15339, 1917]; "tiktoken is great!" -> 6 tokens.
    assertThat(cl100k.count("hello world")).isEqualTo(2);
    assertThat(cl100k.count("tiktoken is great!")).isEqualTo(6);
    assertThat(cl100k.count("")).isZero();
    assertThat(cl100k.name()).isEqualTo("cl100k_base");
    assertThat(TokenCounter.openAiModel("gpt-4o").name()).isEqualTo("o200k_base");
  }

  @Test
  void unknownVocabulariesAreRejectedWithTheKnownOnes() {
    assertThatThrownBy(() -> TokenCounter.openAi("bogus")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown OpenAI encoding 'bogus'").hasMessageContaining("cl100k_base");
    assertThatThrownBy(() -> TokenCounter.openAiModel("llama-3")).hasMessageContaining("no encoding for model");
  }

  /** A fake server whose tokenizer counts 1.25 tokens per estimate token and adds a 7-token template. */
  private static Target server(List<String> seen) {
    return (request, observer, cancellation) -> {
      String text = request.prompt().text();
      seen.add(request.params().maxTokens().orElse(-1) + ":" + text.length());
      int prompt = (int) Math.round(1.25 * TokenCounter.estimate().count(text)) + 7;
      observer.onResponseHeaders(200, Clock.system().nanoTime());
      observer.onUsage(Usage.of(prompt, 1));
      observer.onComplete(Clock.system().nanoTime());
    };
  }

  @Test
  void calibrationFromTwoProbesRecoversRatioAndOverhead() {
    List<String> seen = new ArrayList<>();
    CalibratedCounter c = CalibratedCounter.probe(server(seen), TokenCounter.estimate());

    // Probes of 64 and 512 estimate tokens: server 87 and 647, slope 560/448 = 1.25, overhead 87 − 80 = 7.
    assertThat(c.ratio()).isCloseTo(1.25, within(1e-12));
    assertThat(c.overheadTokens()).isEqualTo(7);
    assertThat(seen).hasSize(2).allMatch(s -> s.startsWith("1:"));
    assertThat(c.count(io.infermark.core.workload.SyntheticText.words(3, 400))).isEqualTo(500);
    assertThat(c.name()).isEqualTo("calibrated(estimate(4.0 chars/token) x 1.2500, +7 per request)");
  }

  @Test
  void calibrationWithoutServerUsageFailsClearly() {
    Target noUsage = (request, observer, cancellation) -> observer.onComplete(Clock.system().nanoTime());
    assertThatThrownBy(() -> CalibratedCounter.probe(noUsage, TokenCounter.estimate()))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("reported no prompt tokens");
    assertThatThrownBy(() -> CalibratedCounter.of(TokenCounter.estimate(), 0, 1)).hasMessageContaining("ratio");
  }
}
