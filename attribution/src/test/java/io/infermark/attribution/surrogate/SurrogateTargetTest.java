package io.infermark.attribution.surrogate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.LatencyMetric;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SurrogateTargetTest {

  /** E2E of request i is (i + 1) × 10 ms; its first token comes at 1 ms. */
  static List<RequestRecord> records(int n) {
    List<RequestRecord> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long e2e = (i + 1) * 10_000_000L;
      out.add(RequestRecord.builder().index(i).sendNanos(i).chunks(ChunkTimeline.builder()
          .add(1_000_000, ChunkKind.CONTENT, 1).add(e2e, ChunkKind.CONTENT, 1).build()).endOffsetNanos(e2e).build());
    }
    // One with no token-bearing chunk: E2E and TTFT are undefined for it.
    out.add(RequestRecord.builder().index(n).chunks(ChunkTimeline.builder().add(5, ChunkKind.ROLE, 0).build())
        .endOffsetNanos(5).build());
    return out;
  }

  /** Every row with a defined latency, as training rows. */
  private static int[] definedRows(double[] latencies) {
    return java.util.stream.IntStream.range(0, latencies.length).filter(i -> !Double.isNaN(latencies[i])).toArray();
  }

  private static double[] labels(SurrogateTarget target, List<RequestRecord> records) {
    double[] latencies = target.latencies(records);
    return target.labels(latencies, definedRows(latencies));
  }

  @Test
  void latencyTargetsAreTheMetricInMillisecondsAndNanWhenUndefined() {
    double[] e2e = labels(SurrogateTarget.e2e(), records(3));
    assertThat(e2e).containsExactly(10, 20, 30, Double.NaN);
    assertThat(labels(SurrogateTarget.ttft(), records(2))).containsExactly(1, 1, Double.NaN);
    assertThat(SurrogateTarget.e2e().name()).isEqualTo("e2e_ms");
    assertThat(SurrogateTarget.e2e().unit()).isEqualTo("ms");
  }

  @Test
  void tailTargetMarksRequestsAboveThePercentileOfDefinedValues() {
    // E2E 10 … 100 ms: P90 by linear interpolation is 10 + 0.9·9·10 = 91 ms, so only 100 ms is above.
    double[] tail = labels(SurrogateTarget.tail(LatencyMetric.E2E, 0.9), records(10));
    assertThat(tail).containsExactly(0, 0, 0, 0, 0, 0, 0, 0, 0, 1, Double.NaN);
    // P50 = 55 ms: the upper five.
    assertThat(labels(SurrogateTarget.tail(LatencyMetric.E2E, 0.5), records(10)))
        .containsExactly(0, 0, 0, 0, 0, 1, 1, 1, 1, 1, Double.NaN);
    SurrogateTarget p99 = SurrogateTarget.tail(LatencyMetric.TTFT, 0.99);
    assertThat(p99.name()).isEqualTo("ttft_ms_above_p99");
    assertThat(SurrogateTarget.tail(LatencyMetric.E2E, 0.999).name()).isEqualTo("e2e_ms_above_p99_9");
    assertThat(p99.unit()).isEqualTo("log-odds");
    assertThat(p99.isTail()).isTrue();
    assertThat(p99.percentile()).hasValue(0.99);
    assertThat(SurrogateTarget.e2e().percentile()).isEmpty();
  }

  @Test
  void tailThresholdComesFromTheTrainingRowsOnly() {
    SurrogateTarget p50 = SurrogateTarget.tail(LatencyMetric.E2E, 0.5);
    double[] latencies = p50.latencies(records(10)); // 10 … 100 ms, then NaN
    // Trained on the slowest five (60 … 100 ms): their median is 80 ms, so the held-out 10 … 50 ms are
    // all 0 and only 90 and 100 ms are 1. Over all ten rows the cut would be 55 ms.
    int[] training = {5, 6, 7, 8, 9};

    assertThat(p50.tailThreshold(latencies, training)).isEqualTo(80);
    assertThat(p50.labels(latencies, training)).containsExactly(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, Double.NaN);
    assertThat(p50.tailThreshold(latencies, definedRows(latencies))).isEqualTo(55);
  }

  @Test
  void rejectsPooledMetricsAndPercentilesOutsideTheOpenInterval() {
    assertThatThrownBy(() -> SurrogateTarget.latency(LatencyMetric.ITL))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("per request");
    assertThatThrownBy(() -> SurrogateTarget.tail(LatencyMetric.E2E, 1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("(0, 1)");
  }
}
