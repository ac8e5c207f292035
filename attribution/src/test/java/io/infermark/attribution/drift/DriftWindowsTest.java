package io.infermark.attribution.drift;

import static io.infermark.attribution.drift.DriftTest.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.attribution.drift.DriftWindows.Reference;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.LatencyMetric;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class DriftWindowsTest {

  private static final long SECOND = 1_000_000_000L;

  /**
   * 40 requests a second for 4 s, starting 2 s after the origin; TTFT cycles 100..139 ms, plus 300 ms
   * from the third second on (a step change).
   */
  private static List<RequestRecord> steppedRun() {
    List<RequestRecord> records = new ArrayList<>();
    for (int i = 0; i < 160; i++) {
      long send = 2 * SECOND + i * SECOND / 40;
      records.add(record(i, send, 100 + i % 40 + (i >= 80 ? 300 : 0)));
    }
    return records;
  }

  @Test
  void splitStartsAtTheFirstSendAndKeepsEveryWindow() {
    List<RequestRecord> records = new ArrayList<>(steppedRun());
    // A never-sent record (send time 0) must not stretch the windows back to the origin.
    records.add(RequestRecord.builder().index(999).failure(Optional.of(Failure.of(ErrorCategory.NOT_SENT, "end")))
        .build());

    List<TimeWindow> w = DriftWindows.split(records, Duration.ofSeconds(1));

    assertThat(w).hasSize(4);
    assertThat(w.get(0).startNanos()).isEqualTo(2 * SECOND);
    assertThat(w.get(3).endNanos()).isEqualTo(6 * SECOND);
    assertThat(w).allSatisfy(t -> assertThat(t.records()).hasSize(40));
    assertThat(w.get(1).toString()).isEqualTo("TimeWindow[#1 3.000-4.000 s, 40 records]");

    // 1.5 s windows: [2, 3.5) has 60, [3.5, 5) 60, [5, 6.5) the last 40.
    assertThat(DriftWindows.split(records, Duration.ofMillis(1500))).extracting(t -> t.records().size())
        .containsExactly(60, 60, 40);
  }

  @Test
  void emptyMiddleWindowsAreKept() {
    List<RequestRecord> records = List.of(record(0, 0, 10), record(1, 1, 11), record(2, 5 * SECOND, 12));

    List<TimeWindow> w = DriftWindows.split(records, Duration.ofSeconds(1));

    assertThat(w).extracting(t -> t.records().size()).containsExactly(2, 0, 0, 0, 0, 1);
    assertThat(DriftWindows.split(List.of(), Duration.ofSeconds(1))).isEmpty();
  }

  @Test
  void comparingWithTheFirstWindowSeesTheStepInEveryLaterWindow() {
    List<WindowDrift> d = DriftWindows.compare(steppedRun(), LatencyMetric.TTFT, Duration.ofSeconds(1),
        Reference.FIRST, DriftOptions.defaults());

    assertThat(d).hasSize(3);
    assertThat(d).extracting(WindowDrift::referenceIndex).containsOnly(0);
    // Window 1 holds exactly window 0's TTFTs: no drift at all.
    DriftReport same = d.get(0).report().orElseThrow();
    assertThat(same.ks().statistic()).isZero();
    assertThat(same.psi()).isZero();
    // Windows 2 and 3 are 300 ms slower throughout: disjoint from window 0.
    for (WindowDrift w : d.subList(1, 3)) {
      DriftReport r = w.report().orElseThrow();
      assertThat(r.ks().statistic()).isEqualTo(1.0);
      assertThat(r.psiVerdict()).isEqualTo(PsiVerdict.SIGNIFICANT);
      assertThat(r.drifted()).isTrue();
    }
  }

  @Test
  void comparingWithThePreviousWindowLocatesTheStep() {
    List<WindowDrift> d = DriftWindows.compare(steppedRun(), LatencyMetric.TTFT, Duration.ofSeconds(1),
        Reference.PREVIOUS, DriftOptions.defaults());

    assertThat(d).extracting(WindowDrift::referenceIndex).containsExactly(0, 1, 2);
    assertThat(d).extracting(w -> w.report().orElseThrow().ks().statistic()).containsExactly(0.0, 1.0, 0.0);
    assertThat(d.get(1).toString()).startsWith("WindowDrift[#2 vs #1, 40 values: DriftReport[40 vs 40 values");
  }

  @Test
  void windowsWithTooFewValuesGetNoReport() {
    List<RequestRecord> records = List.of(record(0, 0, 10), record(1, 1, 11), record(2, 5 * SECOND, 12));

    List<WindowDrift> d = DriftWindows.compare(records, LatencyMetric.TTFT, Duration.ofSeconds(1), Reference.FIRST,
        DriftOptions.defaults());

    assertThat(d).hasSize(5).allSatisfy(w -> assertThat(w.report()).isEmpty());
    assertThat(d.get(4).toString()).isEqualTo("WindowDrift[#5 vs #0, 1 values: too few values (this window 1,"
        + " reference 2; 2 needed)]");
    assertThat(d.get(4).referenceValueCount()).isEqualTo(2);
  }

  @Test
  void windowsStartAtTheFirstMeasuredSendSoWarmupDoesNotEmptyTheReference() {
    // One second of warmup (40 requests, 1 s of TTFT 50 ms) before the stepped run, and 10 cooldown
    // requests after it: windows of 1 s from the first measured send, the stepped run's own four.
    List<RequestRecord> records = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      records.add(record(1000 + i, SECOND + i * SECOND / 40, 50).toBuilder().warmup(true).build());
    }
    records.addAll(steppedRun());
    for (int i = 0; i < 10; i++) {
      records.add(record(2000 + i, 6 * SECOND + i * SECOND / 40, 50).toBuilder().cooldown(true).build());
    }

    List<WindowDrift> d = DriftWindows.compare(records, LatencyMetric.TTFT, Duration.ofSeconds(1), Reference.FIRST,
        DriftOptions.defaults());

    assertThat(d).hasSize(3);
    assertThat(d.get(0).window().startNanos()).isEqualTo(3 * SECOND);
    assertThat(d).allSatisfy(w -> assertThat(w.referenceValueCount()).isEqualTo(40));
    assertThat(d).extracting(w -> w.report().orElseThrow().ks().statistic()).containsExactly(0.0, 1.0, 1.0);
    // split itself still covers every sent record, warmup and cooldown included.
    assertThat(DriftWindows.split(records, Duration.ofSeconds(1))).hasSize(6);
  }

  @Test
  void badWidthsAreRejected() {
    assertThatThrownBy(() -> DriftWindows.split(steppedRun(), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must be > 0, was PT0S");
    assertThatThrownBy(() -> DriftWindows.split(steppedRun(), Duration.ofNanos(1)))
        .hasMessageContaining("more than 1000000");
  }
}
