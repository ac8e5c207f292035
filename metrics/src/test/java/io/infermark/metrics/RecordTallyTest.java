package io.infermark.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.RequestRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordTallyTest {

  @Test
  void onlySuccessfulMeasuredRecordsAreHandedOnForLatencies() {
    List<RequestRecord> records = TestRuns.mixedRun().records();
    RecordTally tally = new RecordTally();

    long handedOn = records.stream().filter(tally::add).count();

    assertThat(handedOn).isEqualTo(records.stream().filter(r -> r.measured() && r.succeeded()).count()).isEqualTo(4);
    assertThat(tally.requests()).isEqualTo(new RequestCounts(9, 1, 0, 8, 4, 4, 1));
  }

  @Test
  void countsAgreeWithTheRunSummarysOwn() {
    RunSummary summary = RunSummary.of(TestRuns.mixedRun());
    RecordTally tally = new RecordTally();
    TestRuns.mixedRun().records().forEach(tally::add);

    assertThat(tally.requests()).isEqualTo(summary.requests());
    assertThat(tally.failuresByCategory()).isEqualTo(summary.failuresByCategory());
    assertThat(tally.tokens()).isEqualTo(summary.tokens());
    assertThat(tally.window()).isEqualTo(summary.window());
  }

  @Test
  void windowRateIsCountPerSecondAndEmptyWithoutLength() {
    assertThat(new MeasurementWindow(0, 2_000_000_000L).perSecond(10)).hasValue(5.0);
    assertThat(new MeasurementWindow(7, 7).perSecond(10)).isEmpty();
  }
}
