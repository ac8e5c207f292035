package io.infermark.core.tokens;

import static org.assertj.core.api.Assertions.assertThat;

import com.knuddels.jtokkit.Encodings;
import com.knuddels.jtokkit.api.Encoding;
import com.knuddels.jtokkit.api.EncodingType;
import io.infermark.core.workload.SyntheticText;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fast path that lets synthetic prompts be counted without loading a vocabulary gives the vocabulary's count. */
class CommonWordsTest {

  private static final List<EncodingType> FAST = List.of(EncodingType.CL100K_BASE, EncodingType.O200K_BASE);

  @Test
  void everyWordIsOneTokenWithAndWithoutItsSpaceInCl100kAndO200k() {
    for (EncodingType type : FAST) {
      Encoding bpe = Encodings.newDefaultEncodingRegistry().getEncoding(type);
      for (String w : CommonWords.list()) {
        assertThat(bpe.countTokensOrdinary(w)).as(type + " '" + w + "'").isEqualTo(1);
        assertThat(bpe.countTokensOrdinary(" " + w)).as(type + " ' " + w + "'").isEqualTo(1);
      }
    }
  }

  @Test
  void aSyntheticTextCountsTheSameWithoutTheVocabularyAsWithIt() {
    for (EncodingType type : FAST) {
      Encoding bpe = Encodings.newDefaultEncodingRegistry().getEncoding(type);
      TokenCounter counter = TokenCounter.openAi(type.getName());
      for (int n : new int[] {0, 1, 2, 63, 64, 1000}) {
        for (long seed = 0; seed < 5; seed++) {
          String text = SyntheticText.words(seed, n);
          assertThat(CommonWords.countIfOnlyCommonWords(text)).isEqualTo(n);
          assertThat(counter.count(text)).as(type + " n=" + n).isEqualTo(bpe.countTokensOrdinary(text)).isEqualTo(n);
        }
      }
    }
  }

  @Test
  void anyOtherTextGoesToTheVocabulary() {
    assertThat(CommonWords.countIfOnlyCommonWords("the  of")).isEqualTo(-1);
    assertThat(CommonWords.countIfOnlyCommonWords(" the")).isEqualTo(-1);
    assertThat(CommonWords.countIfOnlyCommonWords("the of ")).isEqualTo(-1);
    assertThat(CommonWords.countIfOnlyCommonWords("the cat")).isEqualTo(-1);
    assertThat(CommonWords.countIfOnlyCommonWords("The")).isEqualTo(-1);
    TokenCounter cl100k = TokenCounter.openAi("cl100k_base");
    assertThat(cl100k.count("the  of")).isEqualTo(
        Encodings.newDefaultEncodingRegistry().getEncoding(EncodingType.CL100K_BASE).countTokensOrdinary("the  of"));
    assertThat(cl100k.count("Hello, world!")).isEqualTo(4);
    assertThat(cl100k.name()).isEqualTo("cl100k_base");
    assertThat(TokenCounter.openAiModel("gpt-4o").name()).isEqualTo("o200k_base");
  }
}
