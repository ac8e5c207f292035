package io.infermark.benchmarks;

import io.infermark.core.RunEnvironment;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.ScheduleStats;
import io.infermark.core.capture.Usage;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;
import java.util.SplittableRandom;

/** Realistic records for the metrics benchmarks: streamed responses at a steady rate, seeded. */
final class MetricsData {

  private MetricsData() {}

  /**
   * Record {@code i} of a run at 100 requests/s: a role chunk, then {@code chunks} content chunks of
   * one token about 20 ms apart after a TTFT of 40–140 ms, server usage, finish reason "stop".
   */
  static RequestRecord record(long i, int chunks, SplittableRandom random) {
    long send = i * 10_000_000L;
    ChunkTimeline.Builder c = ChunkTimeline.builder().add(5_000_000L + random.nextInt(1_000_000), ChunkKind.ROLE, -1);
    long t = 40_000_000L + random.nextInt(100_000_000);
    for (int k = 0; k < chunks; k++) {
      c.add(t, ChunkKind.CONTENT, 1);
      t += 18_000_000L + random.nextInt(4_000_000);
    }
    return RequestRecord.builder().index(i).requestId("r" + i).intendedNanos(send)
        .sendNanos(send + random.nextInt(50_000))
        .httpStatus(200).chunks(c.build()).usage(Usage.of(512, chunks)).finishReason("stop").endOffsetNanos(t)
        .build();
  }

  static List<RequestRecord> records(int n, int chunks, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<RequestRecord> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(record(i, chunks, random));
    }
    return out;
  }

  static RunResult run(List<RequestRecord> records) {
    long end = 0;
    for (RequestRecord r : records) {
      end = Math.max(end, r.sendNanos() + r.endOffsetNanos());
    }
    LoadProfile load = LoadProfile.constantRate(100).requests(Math.max(records.size(), 1));
    return RunResult.builder()
        .records(records)
        .startedAt(Instant.parse("2025-01-01T00:00:00Z"))
        .durationNanos(end)
        .target("bench")
        .load(load)
        .params(GenerationParams.defaults())
        .promptCount(1)
        .environment(RunEnvironment.current(false))
        .schedule(ScheduleStats.of(records, OptionalDouble.of(100)))
        .build();
  }
}
