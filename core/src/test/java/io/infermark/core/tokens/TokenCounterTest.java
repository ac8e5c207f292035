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

  @Test
  void estimateIsAdditiveAtEveryWhitespaceOfRandomTexts() {
    assertThat(estimate.isAdditive()).isTrue();
    java.util.SplittableRandom random = new java.util.SplittableRandom(7);
    String[] pieces = {"a", "river", "3.14", ",", ".", " ", "\n", "\t", "\u00E9t\u00E9", "\u0430", "\u200B", "\uD83D\uDE00",
        "ORDER-12", "x_y", "\u3000"};
    for (int t = 0; t < 2000; t++) {
      StringBuilder s = new StringBuilder();
      for (int i = random.nextInt(30); i > 0; i--) {
        s.append(pieces[random.nextInt(pieces.length)]);
      }
      String text = s.toString();
      for (int cut = 0; cut <= text.length(); cut++) {
        boolean atSpace = (cut > 0 && Character.isWhitespace(text.charAt(cut - 1)))
            || (cut < text.length() && Character.isWhitespace(text.charAt(cut)));
        if (atSpace) {
          assertThat(estimate.count(text.substring(0, cut)) + estimate.count(text.substring(cut)))
              .as("'%s' cut at %d", text, cut).isEqualTo(estimate.count(text));
        }
      }
    }
  }

  @Test
  void countRangeEqualsCountOfTheSubstringEvenInsideSurrogatePairs() {
    String text = "Caf\u00E9 \uD83D\uDE00smile, 3.14 units\u200Bnow.";
    for (TokenCounter counter : new TokenCounter[] {estimate, TokenCounter.estimate(2.0)}) {
      for (int start = 0; start <= text.length(); start++) {
        for (int end = start; end <= text.length(); end++) {
          assertThat(counter.countRange(new StringBuilder(text), start, end)).as("[%d, %d)", start, end)
              .isEqualTo(counter.count(text.substring(start, end)));
        }
      }
    }
    assertThatThrownBy(() -> estimate.countRange(text, 3, 2)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> estimate.countRange(text, 0, text.length() + 1))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void countersAreNotAdditiveUnlessTheySaySoAndCountRangesByCopying() {
    // Two tokens per text, whatever it is: counts do not add up, and the defaults must say so.
    TokenCounter constant = new TokenCounter() {
      @Override
      public int count(String text) {
        return text.isEmpty() ? 0 : 2;
      }

      @Override
      public String name() {
        return "constant";
      }
    };
    assertThat(constant.isAdditive()).isFalse();
    assertThat(constant.countRange("a b c", 1, 4)).isEqualTo(2);
    assertThat(constant.countRange("a b c", 2, 2)).isZero();
    assertThatThrownBy(() -> constant.countRange("abc", -1, 2)).isInstanceOf(IndexOutOfBoundsException.class);
  }
}
