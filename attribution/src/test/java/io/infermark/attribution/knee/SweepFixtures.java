package io.infermark.attribution.knee;

import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.fixtures.RunFixtures;
import io.infermark.core.load.LoadProfile;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Runs whose every successful request has the same TTFT, so each level's P99 TTFT is exactly that value. */
final class SweepFixtures {

  private SweepFixtures() {}

  /** 100 successful requests with TTFT {@code ttftMillis} (E2E twice that), under {@code load}. */
  static RunResult run(LoadProfile load, double ttftMillis) {
    List<RequestRecord> records = new ArrayList<>();
    long ttft = Math.round(ttftMillis * 1e6);
    for (int i = 0; i < 100; i++) {
      records.add(RequestRecord.builder().index(i).intendedNanos(i * 1_000_000L).sendNanos(i * 1_000_000L)
          .httpStatus(200).chunks(ChunkTimeline.builder().add(ttft, ChunkKind.CONTENT, 1)
              .add(2 * ttft, ChunkKind.CONTENT, 1).build()).endOffsetNanos(2 * ttft).build());
    }
    return run(load, records);
  }

  /**
   * 1,000 successful requests with TTFT {@code ttftMillis} (E2E twice that) whose measurement window
   * (first intended send to last end) is exactly {@code 1000 / achievedRps} seconds: sends {@code gap}
   * apart with {@code 999 gap + 2 ttft = 1000 / achievedRps}, so the run's achieved throughput is
   * {@code achievedRps} (the last send is placed to the nanosecond).
   */
  static RunResult run(LoadProfile load, double ttftMillis, double achievedRps) {
    long ttft = Math.round(ttftMillis * 1e6);
    int n = 1000;
    long window = Math.round(n / achievedRps * 1e9);
    if (window < 2 * ttft) {
      throw new IllegalArgumentException(n + " requests of E2E " + 2 * ttftMillis + " ms cannot make " + achievedRps
          + " req/s");
    }
    double gap = (window - 2 * ttft) / (n - 1.0);
    List<RequestRecord> records = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long send = i == n - 1 ? window - 2 * ttft : Math.round(i * gap);
      records.add(RequestRecord.builder().index(i).intendedNanos(send).sendNanos(send).httpStatus(200)
          .chunks(ChunkTimeline.builder().add(ttft, ChunkKind.CONTENT, 1).add(2 * ttft, ChunkKind.CONTENT, 1).build())
          .endOffsetNanos(2 * ttft).build());
    }
    return run(load, records);
  }

  /** 10 requests that all failed: no latency metric has a value. */
  static RunResult failedRun(LoadProfile load) {
    List<RequestRecord> records = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      records.add(RequestRecord.builder().index(i).httpStatus(503)
          .failure(Optional.of(Failure.of(ErrorCategory.HTTP_STATUS, "overloaded"))).build());
    }
    return run(load, records);
  }

  private static RunResult run(LoadProfile load, List<RequestRecord> records) {
    return RunFixtures.run(records).load(load).durationNanos(1_000_000_000L).target("fake").build();
  }
}
