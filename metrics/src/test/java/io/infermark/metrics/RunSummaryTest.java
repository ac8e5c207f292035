package io.infermark.metrics;

import static io.infermark.metrics.TestRuns.ms;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.TokenCountSource;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.stats.QuantileMethod;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RunSummaryTest {

  @Test
  void countsEveryScheduledRequestOnce() {
    RunSummary s = RunSummary.of(TestRuns.mixedRun());

    assertThat(s.requests()).isEqualTo(new RequestCounts(9, 1, 0, 8, 4, 4, 1));
  }

  @Test
  void failedAndWarmupRecordsNeverEnterLatencyStatistics() {
    RunSummary s = RunSummary.of(TestRuns.mixedRun());

    // Only #1, #2 and #8: not the warmup's 1 ms, not the timed-out request's 15 ms.
    assertThat(s.distribution(LatencyMetric.TTFT).sortedValuesMillis()).containsExactly(10.0, 10.0, 20.0);
    assertThat(s.distribution(LatencyMetric.E2E).sortedValuesMillis()).containsExactly(20.0, 30.0, 40.0);
    assertThat(s.distribution(LatencyMetric.ITL).sortedValuesMillis()).containsExactly(10.0, 10.0, 10.0, 20.0);
    // (30-10)/(3-1), (40-20)/(2-1), (20-10)/(5-1)
    assertThat(s.distribution(LatencyMetric.TPOT).sortedValuesMillis()).containsExactly(2.5, 10.0, 20.0);
    assertThat(s.distribution(LatencyMetric.TTFT_FROM_INTENDED).sortedValuesMillis())
        .containsExactly(10.0, 10.0, 70.0);
  }

  @Test
  void cooldownRecordsAreCountedApartAndEnterNoStatistic() {
    List<RequestRecord> base = TestRuns.mixedRun().records();
    List<RequestRecord> withCooldown = new java.util.ArrayList<>(base);
    // The same successful request again, flagged cooldown: it must not change any latency number.
    RequestRecord success = base.stream().filter(r -> r.measured() && r.succeeded()).findFirst().orElseThrow();
    withCooldown.add(success.toBuilder().index(base.size()).requestId("cooldown").cooldown(true).build());

    RunSummary plain = RunSummary.of(TestRuns.mixedRun());
    RunSummary s = RunSummary.of(TestRuns.run(withCooldown));

    assertThat(s.requests()).isEqualTo(new RequestCounts(10, 1, 1, 8, 4, 4, 1));
    assertThat(s.distribution(LatencyMetric.TTFT).sortedValuesMillis())
        .isEqualTo(plain.distribution(LatencyMetric.TTFT).sortedValuesMillis());
    assertThat(s.tokens().outputTokens()).isEqualTo(plain.tokens().outputTokens());
    assertThat(s.requests().toString()).contains("1 cooldown excluded");
  }

  @Test
  void requestsWithoutTokensAreExcludedFromTtftButCounted() {
    RunSummary s = RunSummary.of(TestRuns.mixedRun());

    assertThat(s.requests().succeededWithoutTokens()).isEqualTo(1);
    assertThat(s.distribution(LatencyMetric.TTFT).count()).isEqualTo(3);
    assertThat(s.distribution(LatencyMetric.E2E).count()).isEqualTo(3);
    // Stream close and schedule lag are defined for the token-less success too.
    assertThat(s.distribution(LatencyMetric.STREAM_CLOSE).sortedValuesMillis())
        .containsExactly(7.0, 21.0, 32.0, 41.0);
    assertThat(s.distribution(LatencyMetric.SCHEDULE_LAG).sortedValuesMillis())
        .containsExactly(0.0, 0.0, 0.0, 50.0);
  }

  @Test
  void throughputDividesByTheWindowFromFirstIntendedSendToLastEnd() {
    RunSummary s = RunSummary.of(TestRuns.mixedRun());

    // From #1's intended 100 ms (the warmup is outside) to #5's end at 500 + 1000 ms; #6 never sent.
    assertThat(s.window()).contains(new MeasurementWindow(ms(100), ms(1500)));
    assertThat(s.window().orElseThrow().durationSeconds()).isEqualTo(1.4);
    // 4 successes, 3 + 2 + 0 + 5 output tokens, 50 + 20 reported input tokens, over 1.4 s.
    assertThat(s.requestThroughputRps().getAsDouble()).isCloseTo(4 / 1.4, within(1e-12));
    assertThat(s.outputTokenThroughputTps().getAsDouble()).isCloseTo(10 / 1.4, within(1e-12));
    assertThat(s.totalTokenThroughputTps().getAsDouble()).isCloseTo(80 / 1.4, within(1e-12));
  }

  @Test
  void windowStartsAtTheIntendedNotTheLateActualSend() {
    RequestRecord late = RequestRecord.builder().intendedNanos(ms(0)).sendNanos(ms(500))
        .chunks(ChunkTimeline.builder().add(ms(100), ChunkKind.CONTENT, 1).build())
        .endOffsetNanos(ms(500)).build();

    RunSummary s = RunSummary.of(TestRuns.run(List.of(late)));

    assertThat(s.window()).contains(new MeasurementWindow(0, ms(1000)));
    assertThat(s.requestThroughputRps()).hasValue(1.0);
  }

  @Test
  void failuresAreCountedByCategoryWithoutEmptyCategories() {
    RunSummary s = RunSummary.of(TestRuns.mixedRun());

    assertThat(s.failuresByCategory()).containsExactly(entry(ErrorCategory.HTTP_STATUS, 2),
        entry(ErrorCategory.TIMEOUT, 1), entry(ErrorCategory.NOT_SENT, 1));
  }

  @Test
  void tokenSourcesDisagreementsAndMeansCoverSuccessfulMeasuredRequests() {
    TokenSummary t = RunSummary.of(TestRuns.mixedRun()).tokens();

    assertThat(t.requests()).isEqualTo(4);
    assertThat(t.sources()).containsExactly(entry(TokenCountSource.SERVER_USAGE, 3),
        entry(TokenCountSource.CHUNK_COUNT, 1));
    assertThat(t.disagreements()).isEqualTo(1);
    assertThat(t.outputTokens()).isEqualTo(10);
    assertThat(t.meanOutputTokens()).hasValue(2.5);
    // Only #1 and #3 reported prompt tokens; #2 and #8 add nothing and are counted as missing.
    assertThat(t.inputTokens()).isEqualTo(70);
    assertThat(t.requestsWithoutInputTokens()).isEqualTo(2);
    assertThat(t.meanInputTokens()).hasValue(35.0);
  }

  @Test
  void quantileMethodIsSelectable() {
    RunResult run = TestRuns.mixedRun();

    RunSummary linear = RunSummary.of(run);
    RunSummary nearest = RunSummary.of(run, QuantileMethod.NEAREST_RANK);

    assertThat(linear.quantileMethod()).isEqualTo(QuantileMethod.LINEAR);
    assertThat(nearest.distributions().values()).allSatisfy(
        d -> assertThat(d.quantileMethod()).isEqualTo(QuantileMethod.NEAREST_RANK));
    // E2E {20, 30, 40}: linear p90 = 30 + 0.8 * 10; nearest rank ceil(2.7) = 3rd value.
    assertThat(linear.distribution(LatencyMetric.E2E).p90().getAsDouble()).isCloseTo(38.0, within(1e-12));
    assertThat(nearest.distribution(LatencyMetric.E2E).p90()).hasValue(40.0);
  }

  @Test
  void keepsTheRunsScheduleStatsAndMetadata() {
    RunResult run = TestRuns.run(TestRuns.mixedRun().records(), LoadProfile.poisson(10).requests(8));

    RunSummary s = RunSummary.of(run);

    assertThat(s.schedule()).isEqualTo(run.schedule());
    assertThat(s.schedule().requestedRate()).hasValue(10.0);
    assertThat(s.run()).isEqualTo(RunInfo.of(run));
    assertThat(s.run().target()).isEqualTo(run.target());
  }

  @Test
  void emptyRunHasEmptyDistributionsAndNoThroughput() {
    RunSummary s = RunSummary.of(TestRuns.run(List.of()));

    assertThat(s.distributions()).hasSize(LatencyMetric.values().length)
        .allSatisfy((m, d) -> assertThat(d.isEmpty()).isTrue());
    assertThat(s.window()).isEmpty();
    assertThat(s.requestThroughputRps()).isEmpty();
    assertThat(s.totalTokenThroughputTps()).isEmpty();
    assertThat(s.tokens().meanOutputTokens()).isEmpty();
    assertThat(s.failuresByCategory()).isEmpty();
    assertThat(s.requests()).isEqualTo(new RequestCounts(0, 0, 0, 0, 0, 0, 0));
  }

  @Test
  void runWhoseOnlyRequestsWereNeverSentHasNoWindow() {
    RequestRecord notSent = RequestRecord.builder()
        .failure(Optional.of(Failure.of(ErrorCategory.NOT_SENT, "run ended first"))).build();

    RunSummary s = RunSummary.of(TestRuns.run(List.of(notSent)));

    assertThat(s.window()).isEmpty();
    assertThat(s.requestThroughputRps()).isEmpty();
    assertThat(s.failuresByCategory()).containsExactly(entry(ErrorCategory.NOT_SENT, 1));
  }

  @Test
  void toStringIsOneLine() {
    String s = RunSummary.of(TestRuns.mixedRun()).toString();

    assertThat(s).startsWith("RunSummary[4/8 ok, 4 failed {HTTP_STATUS=2, TIMEOUT=1, NOT_SENT=1}, 2.86 req/s")
        .contains("TTFT p50 10.000 ms p99 19.800* ms").doesNotContain("\n");
  }

  @Test
  void perTokenItlSharesItlUntilAChunkIsNotOneToken() {
    // #0: chunks of 1 token 10 ms apart (per-token == ITL); #1: a 2-token chunk, then one of unknown size.
    var one = io.infermark.core.capture.RequestRecord.builder().index(0).httpStatus(200)
        .chunks(io.infermark.core.capture.ChunkTimeline.builder()
            .add(TestRuns.ms(10), io.infermark.core.capture.ChunkKind.CONTENT, 1)
            .add(TestRuns.ms(20), io.infermark.core.capture.ChunkKind.CONTENT, 1)
            .add(TestRuns.ms(30), io.infermark.core.capture.ChunkKind.CONTENT, 1).build())
        .endOffsetNanos(TestRuns.ms(31)).build();
    var two = io.infermark.core.capture.RequestRecord.builder().index(1).httpStatus(200)
        .chunks(io.infermark.core.capture.ChunkTimeline.builder()
            .add(TestRuns.ms(10), io.infermark.core.capture.ChunkKind.CONTENT, 1)
            .add(TestRuns.ms(30), io.infermark.core.capture.ChunkKind.CONTENT, 2)
            .add(TestRuns.ms(34), io.infermark.core.capture.ChunkKind.CONTENT, -1)
            .add(TestRuns.ms(40), io.infermark.core.capture.ChunkKind.CONTENT, 3).build())
        .endOffsetNanos(TestRuns.ms(41)).build();
    RunSummary mirrored = RunSummary.of(TestRuns.run(java.util.List.of(one)));
    assertThat(mirrored.distribution(LatencyMetric.ITL_PER_TOKEN)).isEqualTo(mirrored.distribution(LatencyMetric.ITL));
    RunSummary mixed = RunSummary.of(TestRuns.run(java.util.List.of(one, two)));
    assertThat(mixed.distribution(LatencyMetric.ITL).sortedValuesMillis())
        .containsExactly(4.0, 6.0, 10.0, 10.0, 20.0);
    // 10, 10 from #0; 20/2 = 10 from #1; the unknown-size chunk gives none; 6/3 = 2.
    assertThat(mixed.distribution(LatencyMetric.ITL_PER_TOKEN).sortedValuesMillis())
        .containsExactly(2.0, 10.0, 10.0, 10.0);
  }
}
