package io.infermark.testkit.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class OutputVocabularyTest {

  @Test
  void vocabularyIsSixtyFourDistinctShortWordsWithALeadingSpace() {
    assertThat(OutputVocabulary.words()).hasSize(64).doesNotHaveDuplicates()
        .allMatch(w -> w.matches(" [a-z]{1,6}"));
  }

  @Test
  void tokensDependOnlyOnSeedAndPosition() {
    assertThat(OutputVocabulary.token(42, 7)).isEqualTo(OutputVocabulary.token(42, 7));
    assertThat(OutputVocabulary.text(42, 5)).isEqualTo(
        IntStream.range(0, 5).mapToObj(i -> OutputVocabulary.token(42, i)).reduce("", String::concat));
    assertThat(OutputVocabulary.text(42, 30)).isNotEqualTo(OutputVocabulary.text(43, 30));
  }

  @Test
  void textUsesMuchOfTheVocabulary() {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 1000; i++) {
      seen.add(OutputVocabulary.token(0, i));
    }
    assertThat(seen).hasSizeGreaterThan(60);
  }
}
