package io.infermark.testkit.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PromptTokenizerTest {

  @Test
  void wordsAndEachPunctuationMarkAreTokens() {
    assertThat(PromptTokenizer.count("Hello, my name is")).isEqualTo(5);
    assertThat(PromptTokenizer.count("it's 3.5")).isEqualTo(6);
    assertThat(PromptTokenizer.count("a...b")).isEqualTo(5);
  }

  @Test
  void whitespaceNeverCounts() {
    assertThat(PromptTokenizer.count("")).isZero();
    assertThat(PromptTokenizer.count(" \t\n ")).isZero();
    assertThat(PromptTokenizer.count("  spaced \n\n out  ")).isEqualTo(2);
  }

  @Test
  void nonAsciiLettersFormWordsAndSymbolsCountAlone() {
    assertThat(PromptTokenizer.count("известни мир")).isEqualTo(2);
    assertThat(PromptTokenizer.count("naïve café")).isEqualTo(2);
    assertThat(PromptTokenizer.count("ok 👍👍")).isEqualTo(3); // a surrogate pair is one symbol
  }
}
