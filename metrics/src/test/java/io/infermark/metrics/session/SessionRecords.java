package io.infermark.metrics.session;

import static io.infermark.metrics.TestRuns.ms;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.Usage;
import io.infermark.core.session.SessionTags;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Three hand-timed sessions (and a warmup one) with known per-session metrics, shared by the summary,
 * OTel and report tests. All times in ms from the run's origin.
 *
 * <ul>
 *   <li>A (2 turns, a tool each): turn 0 = call 0-100 (TTFT 20, 100 prompt tokens), tool 50 ms, call
 *       150-250; turn 1 = call 300-310 failed, retry 330-400, tool 40 ms, call 440-500 whose 100 prompt
 *       tokens are below the 160 it was sent (truncated); turn 1 is a probe whose question (the retry at 330)
 *       forgot the fact, though the later call at 440 repeats it (not judged: not the question's reply). Completed:
 *       e2e 500, turns 250 (depth 1, 0 retries) and 200 (depth 1, 1 retry), tools 90, model 340, other 70.</li>
 *   <li>B (1 turn, 2 attempts allowed): both attempts fail (1000-1010, 1020-1030). Failed: model 20,
 *       other 10.</li>
 *   <li>C (2 turns): turn 0 = call 2000-2050 (TTFT 10, 50 prompt tokens), a probe that recalled "kw1";
 *       turn 1 cancelled by the run's end. Cut.</li>
 * </ul>
 */
final class SessionRecords {

  private SessionRecords() {}

  private static long index;

  static List<RequestRecord> all() {
    index = 0;
    List<RequestRecord> l = new ArrayList<>();
    // warmup session D: not counted
    l.add(call("D", 0, 1, 0, 0, 1, 1, -5, -4, 0, 10, 10, 1).warmup(true).build());
    l.add(call("A", 0, 2, 0, 0, 2, 3, 0, 100, 20, 100, 10, 3).build());
    l.add(call("A", 0, 2, 1, 0, 2, 3, 150, 250, 10, 130, 10, 3).tags(tags("A", 0, 2, 1, 0, 2, 3,
        Map.of(SessionTags.TOOL_NANOS, Long.toString(ms(50)), SessionTags.TOOL_RETRIES, "0"))).build());
    l.add(failed(call("A", 1, 2, 0, 0, 2, 3, 300, 310, 0, 0, 0, 3), 500).build());
    l.add(call("A", 1, 2, 0, 1, 2, 3, 330, 400, 30, 150, 10, 3).tags(tags("A", 1, 2, 0, 1, 2, 3,
        Map.of(SessionTags.PROBE_EXPECTED, "kwA"))).text(Optional.of("I forgot")).build());
    l.add(call("A", 1, 2, 1, 0, 2, 3, 440, 500, 10, 100, 10, 3).tags(tags("A", 1, 2, 1, 0, 2, 3,
        Map.of(SessionTags.TOOL_NANOS, Long.toString(ms(40)), SessionTags.TOOL_RETRIES, "0",
            SessionTags.PROBE_EXPECTED, "kwA"))).text(Optional.of("kwA")).build());
    l.add(failed(call("B", 0, 1, 0, 0, 1, 2, 1000, 1010, 0, 0, 0, 2), 500).build());
    l.add(failed(call("B", 0, 1, 0, 1, 1, 2, 1020, 1030, 0, 0, 0, 2), 500).build());
    l.add(call("C", 0, 2, 0, 0, 1, 1, 2000, 2050, 10, 50, 5, 1).tags(tags("C", 0, 2, 0, 0, 1, 1,
        Map.of(SessionTags.PROBE_EXPECTED, "kw1"))).text(Optional.of("The code word is KW1.")).build());
    l.add(call("C", 1, 2, 0, 0, 1, 1, 2060, 2060, 0, 0, 0, 1)
        .failure(Optional.of(Failure.of(ErrorCategory.CANCELLED, "the run ended"))).build());
    return l;
  }

  private static Map<String, String> tags(String session, int turn, int turns, int step, int retry, int turnSteps,
      int maxAttempts, Map<String, String> extra) {
    Map<String, String> t = new LinkedHashMap<>();
    t.put(SessionTags.SESSION, session);
    t.put(SessionTags.TURN, Integer.toString(turn));
    t.put(SessionTags.SESSION_TURNS, Integer.toString(turns));
    t.put(SessionTags.STEP, Integer.toString(step));
    t.put(SessionTags.TURN_STEPS, Integer.toString(turnSteps));
    t.put(SessionTags.TOOL_CALL_DEPTH, Integer.toString(step));
    t.put(SessionTags.RETRY_COUNT, Integer.toString(retry));
    t.put(SessionTags.MAX_ATTEMPTS, Integer.toString(maxAttempts));
    t.putAll(extra);
    return t;
  }

  private static RequestRecord.Builder call(String session, int turn, int turns, int step, int retry, int turnSteps,
      int maxAttempts, double sendMs, double endMs, double ttftMs, int promptTokens, int completionTokens,
      int unused) {
    RequestRecord.Builder b = RequestRecord.builder().index(index++)
        .tags(tags(session, turn, turns, step, retry, turnSteps, maxAttempts, Map.of()))
        .intendedNanos(ms(sendMs)).sendNanos(ms(sendMs)).httpStatus(200).endOffsetNanos(ms(endMs - sendMs));
    if (ttftMs > 0) {
      b.chunks(ChunkTimeline.builder().add(ms(ttftMs), ChunkKind.CONTENT, completionTokens).build())
          .usage(Usage.of(promptTokens, completionTokens));
    }
    return b;
  }

  private static RequestRecord.Builder failed(RequestRecord.Builder b, int status) {
    return b.httpStatus(status).failure(Optional.of(Failure.httpStatus(status, "overloaded")));
  }
}
