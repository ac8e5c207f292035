package io.infermark.core.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.Usage;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import org.junit.jupiter.api.Test;

class ExactLengthTest {

  @Test
  void promptsHitTheRequestedLengthUnderTheEstimateAndOpenAiVocabularies() {
    for (TokenCounter counter : new TokenCounter[] {TokenCounter.estimate(), TokenCounter.openAi("cl100k_base"),
        TokenCounter.openAi("o200k_base")}) {
      for (int n : new int[] {1, 87, 312, 1000, 4096}) {
        Prompt p = ExactLength.prompt(counter, n, 42);
        assertThat(counter.count(p)).as("%s at %d", counter, n).isEqualTo(n);
        assertThat(p.tags()).containsEntry(WorkloadTags.INPUT_TOKENS_REQUESTED, Integer.toString(n))
            .containsEntry(WorkloadTags.INPUT_TOKENS_ACHIEVED, Integer.toString(n))
            .containsEntry(WorkloadTags.TOKENIZER, counter.name());
      }
    }
  }

  @Test
  void syntheticTextSharesPrefixesAcrossLengthsAndDiffersAcrossSeeds() {
    assertThat(SyntheticText.words(5, 300)).startsWith(SyntheticText.words(5, 100));
    assertThat(SyntheticText.words(5, 100)).isNotEqualTo(SyntheticText.words(6, 100));
    assertThat(TokenCounter.estimate().count(SyntheticText.words(5, 777))).isEqualTo(777);
  }

  @Test
  void recordsReportClientAndServerLengthErrors() {
    Prompt p = ExactLength.prompt(TokenCounter.estimate(), 100, 1);
    RequestRecord r = RequestRecord.builder().tags(p.tags()).usage(Usage.of(112, 5)).build();
    assertThat(ExactLength.clientError(r)).hasValue(0);
    assertThat(ExactLength.serverError(r)).hasValue(12);
    assertThat(ExactLength.serverError(RequestRecord.builder().build())).isEmpty();
  }
}
