package io.infermark.metrics.timeseries;

import static io.infermark.metrics.TestRuns.ms;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.Usage;
import io.infermark.metrics.Distribution;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.TestRuns;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Every expected number is worked out by hand in the comments of {@link #run()}. */
class TimeSeriesTest {

  /**
   * r0 sent 0.2 s, chunks at 0.3 s (2 tokens) and 0.5 s (3 tokens), ends 0.7 s; r1 sent 0.5 s, three
   * chunks of unknown size at 1.1, 1.3, 1.5 s with usage N = 6 (2 each), ends 1.6 s; r2 sent 0.9 s, fails
   * at 1.1 s; r5 sent 0.7 s (when r0 ends), no tokens, ends 0.8 s; a warmup and a never-sent request.
   */
  static RunResult run() {
    return TestRuns.run(List.of(
        RequestRecord.builder().index(0).intendedNanos(ms(200)).sendNanos(ms(200)).httpStatus(200)
            .chunks(ChunkTimeline.builder().add(ms(100), ChunkKind.CONTENT, 2).add(ms(300), ChunkKind.CONTENT, 3)
                .build()).endOffsetNanos(ms(500)).build(),
        RequestRecord.builder().index(1).intendedNanos(ms(500)).sendNanos(ms(500)).httpStatus(200)
            .chunks(ChunkTimeline.builder().add(ms(600), ChunkKind.CONTENT, -1).add(ms(800), ChunkKind.CONTENT, -1)
                .add(ms(1000), ChunkKind.CONTENT, -1).build())
            .usage(Usage.of(10, 6)).endOffsetNanos(ms(1100)).build(),
        RequestRecord.builder().index(2).intendedNanos(ms(900)).sendNanos(ms(900)).httpStatus(500)
            .failure(Optional.of(Failure.httpStatus(500, "boom"))).endOffsetNanos(ms(200)).build(),
        RequestRecord.builder().index(3).warmup(true).intendedNanos(ms(0)).sendNanos(ms(0))
            .chunks(ChunkTimeline.builder().add(ms(50), ChunkKind.CONTENT, 50).build()).endOffsetNanos(ms(60)).build(),
        RequestRecord.builder().index(4).intendedNanos(ms(1000)).sendNanos(ms(1000))
            .failure(Optional.of(Failure.of(ErrorCategory.NOT_SENT, "late"))).build(),
        RequestRecord.builder().index(5).intendedNanos(ms(700)).sendNanos(ms(700)).httpStatus(200)
            .chunks(ChunkTimeline.builder().add(ms(50), ChunkKind.ROLE, -1).build()).endOffsetNanos(ms(100)).build()));
  }

  @Test
  void countsStartsCompletionsAndFailuresPerInterval() {
    TimeSeries s = TimeSeries.of(run());
    assertThat(s.intervals()).hasSize(2);
    IntervalStats first = s.intervals().get(0);
    IntervalStats second = s.intervals().get(1);
    assertThat(first.started()).isEqualTo(4);
    assertThat(second.started()).isZero();
    assertThat(first.completed()).isEqualTo(2);
    assertThat(second.completed()).isEqualTo(1);
    assertThat(first.failed()).isZero();
    assertThat(second.failed()).isEqualTo(1);
  }

  @Test
  void inFlightIsTimeWeightedWithHalfOpenRequests() {
    TimeSeries s = TimeSeries.of(run());
    // [0.2,0.5) 1, [0.5,0.7) 2, [0.7,0.8) 2 (r0 ended as r5 began), [0.8,0.9) 1, [0.9,1.0) 2 -> 1.2 request-seconds
    assertThat(s.intervals().get(0).meanInFlight()).isCloseTo(1.2, within(1e-9));
    assertThat(s.intervals().get(0).maxInFlight()).isEqualTo(2);
    // [1.0,1.1) 2, [1.1,1.6) 1 -> 0.7
    assertThat(s.intervals().get(1).meanInFlight()).isCloseTo(0.7, within(1e-9));
    assertThat(s.peakConcurrency().value()).isEqualTo(2);
    assertThat(s.peakConcurrency().atNanos()).isEqualTo(ms(500));
  }

  @Test
  void outputTokensUseStatedCountsOrSpreadN() {
    TimeSeries s = TimeSeries.of(run());
    assertThat(s.intervals().get(0).outputTokens()).isEqualTo(5.0);
    assertThat(s.intervals().get(1).outputTokensPerSecond()).isEqualTo(6.0);
  }

  @Test
  void peakOutputTokensPerSecondIsTheBestSlidingWindow() {
    // arrivals 0.3:2 0.5:3 1.1:2 1.3:2 1.5:2; window (t-1, t]: 1.1 -> 7, 1.3 -> 7 (0.3 left), 1.5 -> 6
    Peak p = TimeSeries.of(run()).peakOutputTokensPerSecond();
    assertThat(p.value()).isEqualTo(7.0);
    assertThat(p.atNanos()).isEqualTo(ms(1100));
  }

  @Test
  void latencyPercentilesAreBucketedWhenTheyHappened() {
    TimeSeries s = TimeSeries.of(run());
    assertThat(s.intervals().get(0).ttft().p50()).hasValue(100.0);
    assertThat(s.intervals().get(1).ttft().p50()).hasValue(600.0);
    assertThat(s.intervals().get(0).itl().count()).isEqualTo(1);
    assertThat(s.intervals().get(1).itl().p99()).hasValue(200.0);
    assertThat(s.intervals().get(1).e2e().max()).hasValue(1000.0);
    assertThat(s.intervals().get(0).e2e().p90()).hasValue(300.0);
  }

  @Test
  void shorterIntervalsSplitTheSameRun() {
    TimeSeries s = TimeSeries.of(run(), Duration.ofMillis(500));
    assertThat(s.intervals()).hasSize(4);
    assertThat(s.intervals().stream().mapToInt(IntervalStats::started).sum()).isEqualTo(4);
    assertThat(s.intervals().stream().mapToDouble(IntervalStats::outputTokens).sum()).isEqualTo(11.0);
    // With a 0.5 s window: (0, 0.5] holds 5 tokens, (1.0, 1.5] holds 6 -> 6 / 0.5 s
    assertThat(s.peakOutputTokensPerSecond().value()).isEqualTo(12.0);
    assertThat(s.peakOutputTokensPerSecond().atNanos()).isEqualTo(ms(1500));
  }

  @Test
  void rejectsANonPositiveInterval() {
    assertThatThrownBy(() -> TimeSeries.of(run(), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("interval must be positive");
    assertThatThrownBy(() -> TimeSeries.of(run(), Duration.ofNanos(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("choose a longer interval");
  }

  @Test
  void heatmapPlacesValuesInTimeAndLogLatencyBuckets() {
    LatencyHeatmap h = LatencyHeatmap.of(run(), LatencyMetric.TTFT);
    assertThat(h.total()).isEqualTo(2);
    assertThat(h.timeBuckets()).isEqualTo(2);
    assertThat(h.latencyBuckets()).isEqualTo(8); // 600 ms is floor(10 * log10(6)) = 7 buckets above 100 ms
    assertThat(h.count(0, 0)).isEqualTo(1);
    assertThat(h.count(1, 7)).isEqualTo(1);
    assertThat(h.lowerEdgeMillis(7)).isCloseTo(501.187, within(1e-3));
    assertThat(h.maxCount()).isEqualTo(1);
  }

  @Test
  void cdfStepsAtEachDistinctValue() {
    LatencyCdf cdf = LatencyCdf.of(Distribution.of(new double[] {30, 20, 10, 20}));
    assertThat(cdf.points()).containsExactly(new LatencyCdf.Point(10, 0.25), new LatencyCdf.Point(20, 0.75),
        new LatencyCdf.Point(30, 1.0));
  }

  @Test
  void largeCdfIsThinnedToExactPoints() {
    double[] v = new double[1000];
    for (int i = 0; i < v.length; i++) {
      v[i] = i + 1;
    }
    LatencyCdf cdf = LatencyCdf.of(Distribution.of(v), 11);
    assertThat(cdf.points()).hasSize(11);
    assertThat(cdf.points().get(0)).isEqualTo(new LatencyCdf.Point(1, 0.001));
    assertThat(cdf.points().get(10)).isEqualTo(new LatencyCdf.Point(1000, 1.0));
    assertThat(cdf.points().get(5)).isEqualTo(new LatencyCdf.Point(501, 0.501)); // rank round(5 * 999 / 10) = 500
  }
}
