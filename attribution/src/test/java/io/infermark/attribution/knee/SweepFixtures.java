package io.infermark.attribution.knee;

import io.infermark.core.RunEnvironment;
import io.infermark.core.RunResult;
import io.infermark.core.ScheduleStats;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;

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
    return new RunResult(records, true, Instant.EPOCH, 0, 1_000_000_000L, "fake", load, GenerationParams.defaults(),
        1, RunEnvironment.current(false), ScheduleStats.of(records, OptionalDouble.empty()));
  }
}
