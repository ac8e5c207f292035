package io.infermark.attribution.phase;

import static io.infermark.attribution.phase.PhaseRecords.at;
import static io.infermark.attribution.phase.PhaseRecords.content;
import static io.infermark.attribution.phase.PhaseRecords.ms;
import static io.infermark.attribution.phase.PhaseRecords.record;
import static io.infermark.core.capture.Phase.REQUEST_SENT;
import static io.infermark.core.capture.Phase.RESPONSE_HEADERS_START;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class PhaseDecompositionTest {

  /**
   * Ten measured requests with E2E 10, 20, ..., 100 ms: each writes its request in 1 ms and streams
   * its first token 2 ms after the first response byte. Requests 1-8 wait 2 ms for that byte; 9 and
   * 10 wait 60 and 70 ms. Request 10 is sent 4 ms late. Around them: a warmup, a failure and a
   * success without tokens, all skipped.
   */
  private static RunResult tailRun() {
    List<RequestRecord> records = new ArrayList<>();
    records.add(record(0, 0, 0, at(REQUEST_SENT, 1, RESPONSE_HEADERS_START, 2), content(3, 4)).toBuilder()
        .warmup(true).build());
    for (int i = 1; i <= 10; i++) {
      double headers = i == 9 ? 61 : i == 10 ? 71 : 3;
      double intended = 1000.0 * i;
      double send = i == 10 ? intended + 4 : intended;
      records.add(record(i, intended, send, at(REQUEST_SENT, 1, RESPONSE_HEADERS_START, headers),
          content(headers + 2, (headers + 2 + 10 * i) / 2, 10 * i)));
    }
    records.add(RequestRecord.builder().index(11).chunks(content(5))
        .failure(Optional.of(Failure.of(ErrorCategory.RESET, "reset"))).build());
    records.add(RequestRecord.builder().index(12)
        .chunks(ChunkTimeline.builder().add(ms(2), ChunkKind.ROLE, ChunkTimeline.UNKNOWN_TOKENS).build()).build());
    return PhaseRecords.run(records);
  }

  @Test
  void meanBreakdownMatchesHandAverages() {
    PhaseDecomposition d = PhaseDecomposition.of(tailRun(), LatencyBasis.SERVICE_TIME);
    PhaseBreakdown mean = d.mean();

    assertThat(mean.requestCount()).isEqualTo(10);
    assertThat(mean.meanMillis()).containsExactly(new double[] {0, 0, 0, 1, 14.6, 2, 37.4}, within(1e-12));
    assertThat(mean.meanTotalMillis()).isEqualTo(55.0);
    assertThat(mean.totalSumNanos()).isEqualTo(ms(550));
    long sum = 0;
    for (LatencyPhase p : mean.phases()) {
      sum += mean.sumNanos(p);
    }
    assertThat(sum).isEqualTo(mean.totalSumNanos());
    assertThat(mean.share(LatencyPhase.WAITING)).isCloseTo(14.6 / 55, within(1e-15));
    assertThat(mean.ranking())
        .startsWith(LatencyPhase.DECODE, LatencyPhase.WAITING, LatencyPhase.FIRST_BYTE_TO_FIRST_TOKEN);
    double waitingShares = 60.0 / 90 + 70.0 / 100;
    for (int i = 1; i <= 8; i++) {
      waitingShares += 2.0 / (10 * i);
    }
    assertThat(mean.meanRequestShare(LatencyPhase.WAITING)).isCloseTo(waitingShares / 10, within(1e-15));
    assertThat(mean.percentile()).isEmpty();
  }

  @Test
  void tailBreakdownAveragesTheRequestsAtOrAboveThePercentile() {
    PhaseDecomposition d = PhaseDecomposition.of(tailRun(), LatencyBasis.SERVICE_TIME);

    // Linear P80 of 10..100 is 82: requests 9 and 10 (E2E 90 and 100) are at or above it.
    PhaseBreakdown p80 = d.atOrAbovePercentile(0.8);

    assertThat(p80.thresholdMillis()).hasValue(82.0);
    assertThat(p80.requestCount()).isEqualTo(2);
    assertThat(p80.meanMillis()).containsExactly(new double[] {0, 0, 0, 1, 65, 2, 27}, within(1e-12));
    assertThat(p80.meanTotalMillis()).isEqualTo(95.0);
    assertThat(p80.share(LatencyPhase.WAITING)).isCloseTo(65.0 / 95, within(1e-15));
    assertThat(p80.ranking().get(0)).isEqualTo(LatencyPhase.WAITING);

    // Linear P99 is 99.1: only request 10.
    PhaseBreakdown p99 = d.atOrAbovePercentile(0.99);
    assertThat(p99.requestCount()).isEqualTo(1);
    assertThat(p99.meanMillis()).containsExactly(new double[] {0, 0, 0, 1, 70, 2, 27}, within(1e-12));
    assertThat(d.atOrAbovePercentile(1).requestCount()).isEqualTo(1);
    assertThat(d.atOrAbovePercentile(0).meanMillis()).containsExactly(d.mean().meanMillis());
  }

  @Test
  void responseTimeBasisAddsTheQueueToTheTail() {
    PhaseDecomposition d = PhaseDecomposition.of(tailRun(), LatencyBasis.RESPONSE_TIME);

    assertThat(d.mean().meanMillis(LatencyPhase.CLIENT_QUEUE)).isCloseTo(0.4, within(1e-12));
    assertThat(d.mean().meanTotalMillis()).isCloseTo(55.4, within(1e-12));
    assertThat(d.atOrAbovePercentile(0.99).meanMillis())
        .containsExactly(new double[] {4, 0, 0, 0, 1, 70, 2, 27}, within(1e-12));
  }

  @Test
  void skipsWarmupFailedAndTokenlessRecordsAndCountsThem() {
    PhaseDecomposition d = PhaseDecomposition.of(tailRun(), LatencyBasis.SERVICE_TIME);

    assertThat(d.requests()).hasSize(10);
    assertThat(d.skippedUnmeasured()).isEqualTo(1);
    assertThat(d.skippedFailed()).isEqualTo(1);
    assertThat(d.skippedWithoutTokens()).isEqualTo(1);
  }

  @Test
  void totalsAreTheMetricsModulesDistributionOnBothBases() {
    RunResult run = tailRun();
    RunSummary summary = RunSummary.of(run);

    for (LatencyBasis basis : LatencyBasis.values()) {
      PhaseDecomposition d = PhaseDecomposition.of(run, basis);
      assertThat(d.totals().sortedValuesMillis())
          .containsExactly(summary.distribution(basis.metric()).sortedValuesMillis());
    }
    assertThat(LatencyMetric.E2E).isEqualTo(LatencyBasis.SERVICE_TIME.metric());
  }

  @Test
  void runWithoutAnySplittableRequestIsRejectedWithCounts() {
    List<RequestRecord> failed = List.of(RequestRecord.builder().index(0)
        .failure(Optional.of(Failure.httpStatus(503, "busy"))).build());

    assertThatThrownBy(() -> PhaseDecomposition.of(failed, LatencyBasis.SERVICE_TIME))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("no request to split into phases among 1 records: 0 warmup or cooldown, 1 failed, "
            + "0 without a token-bearing chunk");
  }

  @Test
  void percentileOutsideTheUnitIntervalIsRejected() {
    PhaseDecomposition d = PhaseDecomposition.of(tailRun(), LatencyBasis.SERVICE_TIME);

    assertThatThrownBy(() -> d.atOrAbovePercentile(99)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be in [0, 1] (0.99 for P99), was 99.0");
  }

  @Test
  void tableShowsMeanAndTailColumns() {
    PhaseDecomposition d = PhaseDecomposition.of(tailRun(), LatencyBasis.SERVICE_TIME);

    assertThat(d.table(0.8)).isEqualTo(String.join("\n",
        "| phase                     | mean ms | share | >=P80 ms | share |",
        "|---------------------------|--------:|------:|---------:|------:|",
        "| connect                   |   0.000 |  0.0% |    0.000 |  0.0% |",
        "| tls                       |   0.000 |  0.0% |    0.000 |  0.0% |",
        "| settings                  |   0.000 |  0.0% |    0.000 |  0.0% |",
        "| request_write             |   1.000 |  1.8% |    1.000 |  1.1% |",
        "| waiting                   |  14.600 | 26.5% |   65.000 | 68.4% |",
        "| first_byte_to_first_token |   2.000 |  3.6% |    2.000 |  2.1% |",
        "| decode                    |  37.400 | 68.0% |   27.000 | 28.4% |",
        "| total (E2E)               |  55.000 |  100% |   95.000 |  100% |",
        "| requests                  |      10 |       |        2 |       |",
        ""));
  }

  @Test
  void toStringsAreOneLine() {
    PhaseDecomposition d = PhaseDecomposition.of(tailRun(), LatencyBasis.SERVICE_TIME);

    assertThat(d.toString()).isEqualTo(
        "PhaseDecomposition[service_time, 10 requests (3 skipped), mean 55.000 ms, top decode]");
    assertThat(d.atOrAbovePercentile(0.8).toString()).isEqualTo("PhaseBreakdown[>=P80 service_time (E2E >= 82.000 ms), "
        + "2 requests, mean 95.000 ms, connect 0.000 ms (0.0%), tls 0.000 ms (0.0%), settings 0.000 ms (0.0%), "
        + "request_write 1.000 ms (1.1%), waiting 65.000 ms (68.4%), first_byte_to_first_token 2.000 ms (2.1%), "
        + "decode 27.000 ms (28.4%)]");
  }
}
