package io.infermark.attribution.intervention;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.fixtures.RunFixtures;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.stats.QuantileMethod;
import io.infermark.metrics.LatencyMetric;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BlockStatisticTest {

  /** E2E 10, 20, ..., 100 ms, plus a warmup (E2E 1000) and a failure that must not count. */
  private static RunResult run() {
    List<RequestRecord> records = new ArrayList<>();
    records.add(record(0, 1000).toBuilder().warmup(true).build());
    for (int i = 1; i <= 10; i++) {
      records.add(record(i, 10 * i));
    }
    records.add(record(11, 5000).toBuilder().failure(Optional.of(Failure.of(ErrorCategory.RESET, "reset"))).build());
    return runOf(records);
  }

  private static RequestRecord record(int index, long e2eMs) {
    return RequestRecord.builder().index(index).httpStatus(200)
        .chunks(ChunkTimeline.builder().add(e2eMs * 1_000_000 / 2, ChunkKind.CONTENT, 1)
            .add(e2eMs * 1_000_000, ChunkKind.CONTENT, 1).build())
        .endOffsetNanos(e2eMs * 1_000_000).build();
  }

  private static RunResult runOf(List<RequestRecord> records) {
    return RunFixtures.run(records).load(LoadProfile.concurrency(1).requests(records.size()))
        .startedAt(RunFixtures.STARTED_AT).durationNanos(1).build();
  }

  @Test
  void defaultIsLinearP99OfE2eOverMeasuredSuccesses() {
    // numpy.percentile([10, 20, ..., 100], 99) = 99.1
    assertThat(BlockStatistic.p99E2e().of(run())).isCloseTo(99.1, within(1e-12));
    assertThat(BlockStatistic.p99E2e().name()).isEqualTo("p99 e2e_ms");
  }

  @Test
  void otherPercentilesMethodsAndMeans() {
    assertThat(BlockStatistic.percentile(LatencyMetric.E2E, 0.5).of(run())).isEqualTo(55.0);
    // Nearest rank: ceil(0.95 * 10) = 10th value.
    assertThat(BlockStatistic.percentile(LatencyMetric.E2E, 0.95, QuantileMethod.NEAREST_RANK).of(run()))
        .isEqualTo(100.0);
    assertThat(BlockStatistic.percentile(LatencyMetric.TTFT, 0.999).name()).isEqualTo("p99.9 ttft_ms");
    assertThat(BlockStatistic.mean(LatencyMetric.TTFT).of(run())).isCloseTo(27.5, within(1e-12));
    assertThat(BlockStatistic.of("requests", r -> r.records().size()).of(run())).isEqualTo(12.0);
  }

  @Test
  void runWithoutValuesIsAnErrorThatSaysWhy() {
    RunResult failed = runOf(List.of(record(0, 10).toBuilder()
        .failure(Optional.of(Failure.httpStatus(503, "busy"))).build()));

    assertThatThrownBy(() -> BlockStatistic.p99E2e().of(failed)).isInstanceOf(IllegalStateException.class)
        .hasMessage("cannot compute p99 e2e_ms: the run has no E2E value (1 measured requests, 1 failed)");
    assertThatThrownBy(() -> BlockStatistic.percentile(LatencyMetric.E2E, 99))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 99.0");
  }
}
