package io.infermark.core.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.RunEnvironment;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.ScheduleStats;
import io.infermark.core.control.ControlSignal;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

/** Seed 003 §2.3's numbers by hand: QPS ≤ 1,200, TPS ≥ 850, SLA 99.5 % under 800 ms. */
class DualCalibrationTest {

  private static final long MS = 1_000_000L;

  /** A request sent at {@code sendMs}: 16 tokens, last one at {@code e2eMs}; or a 503 when e2eMs < 0. */
  private static RequestRecord request(int index, double sendMs, long e2eMs) {
    long send = Math.round(sendMs * MS);
    RequestRecord.Builder b = RequestRecord.builder().index(index).intendedNanos(send).sendNanos(send);
    if (e2eMs < 0) {
      return b.httpStatus(503).failure(Optional.of(Failure.of(ErrorCategory.HTTP_STATUS, "busy"))).endOffsetNanos(MS)
          .build();
    }
    return b.httpStatus(200).chunks(ChunkTimeline.builder().add(e2eMs * MS / 2, ChunkKind.CONTENT, 8)
        .add(e2eMs * MS, ChunkKind.CONTENT, 8).build()).endOffsetNanos(e2eMs * MS).build();
  }

  private static RunResult run(List<RequestRecord> records) {
    return RunResult.builder()
        .records(records)
        .startedAt(Instant.EPOCH)
        .durationNanos(2_000 * MS)
        .target("fake")
        .load(LoadProfile.constantRate(1000).duration(Duration.ofSeconds(2)))
        .params(GenerationParams.defaults())
        .promptCount(1)
        .environment(RunEnvironment.current(false))
        .schedule(ScheduleStats.of(records, OptionalDouble.empty()))
        .build();
  }

  @Test
  void tpsCountsTransactionsCompletedWithinTheSlaNotTokens() {
    // 2,000 requests 1 ms apart over 2 s: QPS 1,000. Requests 0-4 answer in 900 ms (> 800: not transactions),
    // 5-9 fail, the other 1,990 answer in 100 ms. Transactions completing inside [0, 2 s): those sent before
    // 1,900 ms, i.e. 10..1899 = 1,890, so TPS = 945. SLA share 1,990 / 2,000 = 99.5 %, exactly the target.
    List<RequestRecord> records = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      records.add(request(i, i, i < 5 ? 900 : i < 10 ? -1 : 100));
    }
    records.add(request(2000, 2100, 100)); // a late client's send after the 2 s run: outside the window
    DualCalibration.Verdict v = DualCalibration.of(1200, 850).verdict(run(records), Duration.ZERO);

    assertThat(v.qps()).isCloseTo(1000, within(1e-9));
    assertThat(v.transactions()).isEqualTo(1890);
    assertThat(v.onTimeTps()).isCloseTo(945, within(1e-9));
    // Completed TPS (seed 003's, any latency) also counts requests 0-4, done at 900-904 ms: 1,895 / 2 s.
    assertThat(v.completedTps()).isCloseTo(947.5, within(1e-9));
    assertThat(v.slaShare()).isCloseTo(0.995, within(1e-12));
    // Token/s, the third dimension: 1,995 successes x 16 tokens / 2 s.
    assertThat(v.tokensPerSecond()).isCloseTo(15_960, within(1e-9));
    assertThat(v.pass()).isTrue();
    assertThat(v.reasons()).isEmpty();

    // One more slow answer: 1,989 / 2,000 = 99.45 % within 800 ms < 99.5 %.
    records.set(10, request(10, 10, 801));
    DualCalibration.Verdict slow = DualCalibration.of(1200, 850).verdict(run(records), Duration.ZERO);
    assertThat(slow.pass()).isFalse();
    assertThat(slow.reasons()).containsExactly("SLA 99.45% of requests within 800 ms < 99.50%");
  }

  @Test
  void aRunOf850RequestsPerSecondCompletesFewerThan850TransactionsPerSecondInItsWindow() {
    // 1,700 requests at 850/s (1/0.85 ms apart), every one answered in 100 ms with 16 tokens. Output tokens/s is
    // 1,700 x 16 / 2 = 13,600, which the old "TPS" compared with 850 and passed. Transactions completing inside
    // [0, 2 s) are those sent before 1,900 ms: ceil(1900 x 0.85) = 1,615, so TPS = 807.5 < 850.
    List<RequestRecord> records = new ArrayList<>();
    for (int i = 0; i < 1700; i++) {
      records.add(request(i, i / 0.85, 100));
    }
    DualCalibration.Verdict v = DualCalibration.of(1200, 850).minTokensPerSecond(10_000).verdict(run(records),
        Duration.ZERO);

    assertThat(v.qps()).isCloseTo(850, within(1e-9));
    assertThat(v.tokensPerSecond()).isCloseTo(13_600, within(1e-9));
    assertThat(v.transactions()).isEqualTo(1615);
    assertThat(v.onTimeTps()).isCloseTo(807.5, within(1e-9));
    assertThat(v.completedTps()).isCloseTo(807.5, within(1e-9)); // every answer was on time
    assertThat(v.slaShare()).isEqualTo(1.0);
    assertThat(v.pass()).isFalse();
    assertThat(v.reasons()).containsExactly(
        "on-time TPS 807.5 < 850.0 (transactions completed within 800 ms per second)");
    assertThat(v.toString()).startsWith("DualCalibration.Verdict[FAIL, QPS 850.0 (<= 1200.0), on-time TPS 807.5 "
        + "(>= 850.0), completed TPS 807.5, SLA 100.00% (>= 99.50%), Token/s 13600.0 (>= 10000.0)");
  }

  @Test
  void aTokenFloorOutOfReachUnderTheCeilingSaysSo() {
    // Third dimension: 16 tokens x at most 20 requests/s = 320 tokens/s < 850.
    List<RequestRecord> records = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      records.add(request(i, i * 50, 100));
    }
    DualCalibration.Verdict v = DualCalibration.of(20, 10).minTokensPerSecond(850).verdict(run(records),
        Duration.ZERO);
    assertThat(v.reasons()).singleElement().asString().startsWith("Token/s 320.0 < 850.0")
        .contains("unreachable under the QPS ceiling: 16.0 tokens per request x 20.0 requests/s = 320.0 tokens/s");
  }

  @Test
  void aTransactionFloorAboveTheRequestCeilingIsRefused() {
    assertThatThrownBy(() -> DualCalibration.of(20, 850)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("TPS can never exceed QPS");
    assertThatThrownBy(() -> DualCalibration.of(1200, 850).sla(Duration.ofMillis(800), 1.5))
        .hasMessageContaining("SLA share must be in (0, 1]");
  }

  @Test
  void theTransactionSignalCountsSuccessesWithinTheSlaCompletedInTheWindow() {
    ControlSignal.Probe p = ControlSignal.transactionsPerSecond(Duration.ofSeconds(1), Duration.ofMillis(800)).open();
    p.onRecord(request(0, 0, 100));     // completes at 100 ms
    p.onRecord(request(1, 200, 900));   // too slow
    p.onRecord(request(2, 300, -1));    // failed
    p.onRecord(request(3, 900, 700));   // completes at 1,600 ms
    assertThat(p.read(1000 * MS)).hasValue(1.0);
    assertThat(p.read(1700 * MS)).hasValue(1.0); // the first left the window at 1,100 ms
    assertThat(p.read(2700 * MS)).hasValue(0.0);
  }
}
