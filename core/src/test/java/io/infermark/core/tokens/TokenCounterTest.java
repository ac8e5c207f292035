package io.infermark.core.tokens;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import org.junit.jupiter.api.Test;

class TokenCounterTest {

  private final TokenCounter estimate = TokenCounter.estimate();

  @Test
  void emptyTextHasNoTokens() {
    assertThat(estimate.count("")).isZero();
    assertThat(estimate.count("   \n\t")).isZero();
  }

  @Test
  void wordsCountByLengthAtLeastOneEachAndPunctuationCountsOne() {
    // "a"=1, "cat"=1 (round(0.75)), "benchmarks"=3 (round(2.5) half-up), "!"=1
    assertThat(estimate.count("a cat benchmarks!")).isEqualTo(1 + 1 + 3 + 1);
    // "internationalization" has 20 chars -> 5
    assertThat(estimate.count("internationalization")).isEqualTo(5);
  }

  @Test
  void countingIsAdditiveAcrossWhitespace() {
    String a = "The quick brown fox,";
    String b = "jumps over the lazy dog.";
    assertThat(estimate.count(a + " " + b)).isEqualTo(estimate.count(a) + estimate.count(b));
  }

  @Test
  void otherRatiosChangeWordCosts() {
    assertThat(TokenCounter.estimate(2.0).count("abcdefgh")).isEqualTo(4);
    assertThat(TokenCounter.estimate(2.0).name()).isEqualTo("estimate(2.0 chars/token)");
  }

  @Test
  void promptCountSumsMessageContents() {
    Prompt p = Prompt.chat(Message.system("be brief"), Message.user("hello world"));
    assertThat(estimate.count(p)).isEqualTo(estimate.count("be brief") + estimate.count("hello world"));
  }

  @Test
  void rejectsRatiosBelowOneOrNotFinite() {
    assertThatThrownBy(() -> TokenCounter.estimate(0.5)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("charsPerToken");
    assertThatThrownBy(() -> TokenCounter.estimate(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
  }
}
