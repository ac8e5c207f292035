package io.infermark.metrics;

import io.infermark.core.RunEnvironment;
import io.infermark.core.RunResult;
import io.infermark.core.ScheduleStats;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.capture.RequestRecord;
import java.time.Instant;
import java.util.List;
import java.util.OptionalDouble;

/** Builds the run results the metrics and report tests summarise. */
public final class TestRuns {

  /** The fixed wall-clock start of every test run. */
  public static final Instant STARTED_AT = Instant.parse("2025-03-04T05:06:07Z");

  private TestRuns() {}

  /** Milliseconds as the nanoseconds records store; exact for the whole and fractional ms the tests use. */
  public static long ms(double millis) {
    return Math.round(millis * 1_000_000);
  }

  /** A closed-loop run of the given records against a test target. */
  public static RunResult run(List<RequestRecord> records) {
    return run(records, LoadProfile.concurrency(1).requests(Math.max(records.size(), 1)));
  }

  /** A run of the given records with the given load profile. */
  public static RunResult run(List<RequestRecord> records, LoadProfile load) {
    long end = 0;
    for (RequestRecord r : records) {
      end = Math.max(end, r.sendNanos() + r.endOffsetNanos());
    }
    return new RunResult(records, STARTED_AT, end, "openai-chat http://localhost:8000/v1 model=test", load,
        GenerationParams.defaults(), 1, RunEnvironment.current(false),
        ScheduleStats.of(records, load.arrivalProcess().map(a -> a.nominalRate()).orElse(OptionalDouble.empty())));
  }
}
