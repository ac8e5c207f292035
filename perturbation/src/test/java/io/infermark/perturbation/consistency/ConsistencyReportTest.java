package io.infermark.perturbation.consistency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import io.infermark.core.capture.RequestRecord;
import io.infermark.perturbation.TestRecords;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ConsistencyReportTest {

  private static final Map<String, String> A = Map.of("class", "a");
  private static final Map<String, String> J = Map.of("class", "j");

  @Test
  void levenshteinKnownAnswers() {
    assertThat(EditDistance.levenshtein("kitten", "sitting")).isEqualTo(3);
    assertThat(EditDistance.levenshtein("", "abc")).isEqualTo(3);
    assertThat(EditDistance.levenshtein("flaw", "lawn")).isEqualTo(2);
    assertThat(EditDistance.normalized("kitten", "sitting")).isCloseTo(3 / 7.0, offset(1e-12));
    assertThat(EditDistance.normalized("", "")).isZero();
  }

  @Test
  void classNumbersMatchHandComputedValues() {
    List<RequestRecord> records = List.of(
        TestRecords.ok(0, A, "abc", 10, 100, 2),
        TestRecords.ok(1, A, "abc", 10, 200, 2),
        TestRecords.ok(2, A, "abd", 10, 300, 4),
        TestRecords.ok(3, A, "xyz", 10, 400, 4),
        TestRecords.failed(4, A),
        TestRecords.ok(5, A, "ignored warmup", 10, 900, 9).toBuilder().warmup(true).build());
    ClassConsistency c = ConsistencyReport.of(records).get("a").orElseThrow();
    assertThat(c.responses()).isEqualTo(4);
    assertThat(c.failed()).isEqualTo(1);
    assertThat(c.exactMatchRate()).isEqualTo(0.5);
    // pairs: abc-abc 0, abc-abd 1/3 twice, abc-xyz 1 twice, abd-xyz 1 -> (2/3 + 3) / 6
    assertThat(c.meanEditDistance().getAsDouble()).isCloseTo((2 / 3.0 + 3) / 6, offset(1e-12));
    assertThat(c.pairsSampled()).isFalse();
    assertThat(c.meanLatencyMs()).isCloseTo(250, offset(1e-9));
    // numpy.var([100, 200, 300, 400], ddof=1) = 16666.666...
    assertThat(c.latencyVarianceMs2().getAsDouble()).isCloseTo(16666.666666666668, offset(1e-6));
    assertThat(c.meanOutputTokens()).isEqualTo(3.0);
    assertThat(c.outputTokensVariance().getAsDouble()).isCloseTo(4 / 3.0, offset(1e-12));
    assertThat(c.jsonFieldAgreement()).isEmpty();
  }

  @Test
  void jsonFieldAgreementCountsAbsentFieldsAsAValue() {
    List<RequestRecord> records = List.of(
        TestRecords.ok(0, J, "{\"a\":1,\"b\":\"x\"}", 1, 2, 1),
        TestRecords.ok(1, J, "```json\n{\"a\":1,\"b\":\"y\"}\n```", 1, 2, 1),
        TestRecords.ok(2, J, "{\"a\":1}", 1, 2, 1),
        TestRecords.ok(3, J, "not json", 1, 2, 1));
    ClassConsistency c = ConsistencyReport.of(records).get("j").orElseThrow();
    // /a: 1 three times of 4 -> 0.75; /b: x, y, absent twice -> 0.5
    assertThat(c.fieldAgreement()).containsEntry("/a", 0.75).containsEntry("/b", 0.5);
    assertThat(c.jsonFieldAgreement().getAsDouble()).isCloseTo(0.625, offset(1e-12));
    assertThat(c.latencyVarianceMs2().getAsDouble()).isZero();
  }

  @Test
  void identicalResponsesAreFullyConsistentAndTablesRender() {
    List<RequestRecord> records = List.of(TestRecords.ok(0, A, "same", 1, 5, 3),
        TestRecords.ok(1, A, "same", 1, 5, 3), TestRecords.ok(2, J, "one", 1, 5, 3));
    ConsistencyReport report = ConsistencyReport.of(records);
    assertThat(report.get("a").orElseThrow().exactMatchRate()).isEqualTo(1.0);
    assertThat(report.get("a").orElseThrow().meanEditDistance().getAsDouble()).isZero();
    assertThat(report.get("j").orElseThrow().meanEditDistance()).isEmpty();
    assertThat(report.table().split("\n")).hasSize(3);
  }

  @Test
  void missingTextIsAConfigurationError() {
    RequestRecord noText = TestRecords.ok(0, A, "x", 1, 2, 1).toBuilder().text(Optional.empty()).build();
    assertThatThrownBy(() -> ConsistencyReport.of(List.of(noText))).hasMessageContaining("captureText(true)");
  }
}
