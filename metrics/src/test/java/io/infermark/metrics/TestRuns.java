package io.infermark.metrics;

import static io.infermark.core.capture.ChunkTimeline.UNKNOWN_TOKENS;

import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.TimeoutPhase;
import io.infermark.core.capture.Usage;
import io.infermark.core.fixtures.RunFixtures;
import io.infermark.core.load.LoadProfile;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;

/** Builds the run results the metrics and report tests summarise. */
public final class TestRuns {

  /** The fixed wall-clock start of every test run. */
  public static final Instant STARTED_AT = RunFixtures.STARTED_AT;

  private TestRuns() {}

  /** Milliseconds as the nanoseconds records store; exact for the whole and fractional ms the tests use. */
  public static long ms(double millis) {
    return RunFixtures.ms(millis);
  }

  /** A closed-loop run of the given records against a test target. */
  public static RunResult run(List<RequestRecord> records) {
    return run(records, LoadProfile.concurrency(1).requests(Math.max(records.size(), 1)));
  }

  /** A run of the given records with the given load profile. */
  public static RunResult run(List<RequestRecord> records, LoadProfile load) {
    return RunFixtures.run(records).load(load).startedAt(STARTED_AT)
        .target("openai-chat http://localhost:8000/v1 model=test")
        .nominalRate(load.arrivalProcess().map(a -> a.nominalRate()).orElse(OptionalDouble.empty())).build();
  }

  /**
   * A run with one warmup request, four successes (one without tokens, one whose server and stream
   * counts disagree) and four failures (two HTTP statuses, a read timeout after a token, one never
   * sent). Every expected number in this class is computed by hand from these records.
   */
  public static RunResult mixedRun() {
    return TestRuns.run(List.of(
        // #0 warmup: its 1 ms TTFT must not appear anywhere.
        RequestRecord.builder().index(0).warmup(true)
            .chunks(ChunkTimeline.builder().add(ms(1), ChunkKind.CONTENT, UNKNOWN_TOKENS).build())
            .endOffsetNanos(ms(5)).build(),
        // #1 TTFT 10, E2E 30, gaps 10 and 10, N = 3 from usage, 50 prompt tokens; ends at 132 ms.
        RequestRecord.builder().index(1).intendedNanos(ms(100)).sendNanos(ms(100)).httpStatus(200)
            .chunks(ChunkTimeline.builder()
                .add(ms(2), ChunkKind.ROLE, UNKNOWN_TOKENS)
                .add(ms(10), ChunkKind.CONTENT, UNKNOWN_TOKENS)
                .add(ms(20), ChunkKind.CONTENT, UNKNOWN_TOKENS)
                .add(ms(30), ChunkKind.CONTENT, UNKNOWN_TOKENS)
                .add(ms(31), ChunkKind.USAGE, UNKNOWN_TOKENS)
                .build())
            .usage(Usage.of(50, 3)).finishReason("stop").endOffsetNanos(ms(32)).build(),
        // #2 sent 50 ms late: TTFT 20 (70 from intended), E2E 40, N = 2 chunks counted; ends at 291 ms.
        RequestRecord.builder().index(2).intendedNanos(ms(200)).sendNanos(ms(250)).httpStatus(200)
            .chunks(ChunkTimeline.builder()
                .add(ms(20), ChunkKind.CONTENT, UNKNOWN_TOKENS)
                .add(ms(40), ChunkKind.CONTENT, UNKNOWN_TOKENS)
                .build())
            .endOffsetNanos(ms(41)).build(),
        // #3 succeeded without a token-bearing chunk; 20 prompt tokens, 0 completion; ends at 307 ms.
        RequestRecord.builder().index(3).intendedNanos(ms(300)).sendNanos(ms(300)).httpStatus(200)
            .chunks(ChunkTimeline.builder()
                .add(ms(5), ChunkKind.ROLE, UNKNOWN_TOKENS)
                .add(ms(6), ChunkKind.EMPTY, UNKNOWN_TOKENS)
                .build())
            .usage(Usage.of(20, 0)).endOffsetNanos(ms(7)).build(),
        // #4 HTTP 503; ends at 403 ms.
        RequestRecord.builder().index(4).intendedNanos(ms(400)).sendNanos(ms(400)).httpStatus(503)
            .failure(Optional.of(Failure.httpStatus(503, "overloaded"))).endOffsetNanos(ms(3)).build(),
        // #5 read timeout after one token; ends at 1500 ms, the end of the window. Its TTFT must not count.
        RequestRecord.builder().index(5).intendedNanos(ms(500)).sendNanos(ms(500)).httpStatus(200)
            .chunks(ChunkTimeline.builder().add(ms(15), ChunkKind.CONTENT, UNKNOWN_TOKENS).build())
            .failure(Optional.of(Failure.timeout(TimeoutPhase.READ, "no byte for 1 s")))
            .endOffsetNanos(ms(1000)).build(),
        // #6 never sent: outside the window.
        RequestRecord.builder().index(6).intendedNanos(ms(600)).sendNanos(ms(600))
            .failure(Optional.of(Failure.of(ErrorCategory.NOT_SENT, "run ended first"))).build(),
        // #7 HTTP 429; ends at 702 ms.
        RequestRecord.builder().index(7).intendedNanos(ms(700)).sendNanos(ms(700)).httpStatus(429)
            .failure(Optional.of(Failure.httpStatus(429, ""))).endOffsetNanos(ms(2)).build(),
        // #8 server says 5 tokens, stream shows 2 chunks: a disagreement; TTFT 10, E2E 20; ends at 821 ms.
        RequestRecord.builder().index(8).intendedNanos(ms(800)).sendNanos(ms(800)).httpStatus(200)
            .chunks(ChunkTimeline.builder()
                .add(ms(10), ChunkKind.CONTENT, UNKNOWN_TOKENS)
                .add(ms(20), ChunkKind.CONTENT, UNKNOWN_TOKENS)
                .build())
            .usage(Usage.builder().completionTokens(5).build()).endOffsetNanos(ms(21)).build()));
  }
}
