package io.infermark.metrics.session;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.session.SessionTags;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.TreeMap;

/**
 * What users of a session workload would have seen, seed 002 §2.5's two outcomes of a delay-injection
 * test ("首屏完成率" first-screen completion rate, 98.2 % → 83.7 % under injection; "会话中断率" session
 * interruption rate, 1.1 % → 12.4 %). The seed names them without defining them; infermark's reading, from the
 * records' {@link SessionTags} alone:
 *
 * <ul>
 *   <li>A turn's latency runs from its first call's intended time to its last call's end (tools, retries and
 *       backoff included, the think time before it not), as {@code agent_turn_latency_ms}. A turn finished when
 *       the call at its last step (not a fan-out branch) succeeded.</li>
 *   <li><b>First screen</b>: the session's first turn. It completed when that turn finished within
 *       {@code firstScreen} of the session's first intended time; it missed when it finished later or a call of
 *       it failed every attempt. {@link #firstScreenCompletionRate()} = completed / (completed + missed).</li>
 *   <li><b>Interrupted</b>: a session in which a turn took longer than {@code patience} (the user gives up
 *       there) or a call or tool failed every attempt. <b>Completed</b>: every planned turn finished within
 *       {@code patience}. {@link #interruptionRate()} = interrupted / (interrupted + completed).</li>
 *   <li>A session the run ended (a call cancelled or never sent at the end) before either happened counts in
 *       neither rate; one whose first turn the run ended counts in neither either.</li>
 * </ul>
 *
 * A session counts when its first call was measured (not warmup or cooldown). Immutable.
 */
public final class SessionOutcomes {

  private final Duration firstScreen;
  private final Duration patience;
  private final int sessions;
  private final int firstScreenCompleted;
  private final int firstScreenMissed;
  private final int completed;
  private final int interrupted;

  private SessionOutcomes(Duration firstScreen, Duration patience, int sessions, int firstScreenCompleted,
      int firstScreenMissed, int completed, int interrupted) {
    this.firstScreen = firstScreen;
    this.patience = patience;
    this.sessions = sessions;
    this.firstScreenCompleted = firstScreenCompleted;
    this.firstScreenMissed = firstScreenMissed;
    this.completed = completed;
    this.interrupted = interrupted;
  }

  /**
   * The outcomes of the sessions in {@code records}.
   *
   * @param records a run's records (calls of no session are ignored)
   * @param firstScreen how soon the first turn must finish, > 0
   * @param patience the longest turn a user waits for, > 0
   * @throws IllegalArgumentException if a duration is not positive
   */
  public static SessionOutcomes of(List<RequestRecord> records, Duration firstScreen, Duration patience) {
    Objects.requireNonNull(records, "records");
    positive(firstScreen, "firstScreen");
    positive(patience, "patience");
    Map<String, List<RequestRecord>> bySession = new LinkedHashMap<>();
    for (RequestRecord r : records) {
      if (SessionSummary.isSessionCall(r)) {
        bySession.computeIfAbsent(r.tags().get(SessionTags.SESSION), k -> new ArrayList<>()).add(r);
      }
    }
    int sessions = 0;
    int screenOk = 0;
    int screenMissed = 0;
    int completed = 0;
    int interrupted = 0;
    for (List<RequestRecord> calls : bySession.values()) {
      calls.sort(Comparator.comparingLong(RequestRecord::index));
      if (!calls.get(0).measured()) {
        continue;
      }
      sessions++;
      long start = calls.stream().mapToLong(RequestRecord::intendedNanos).min().orElseThrow();
      int planned = tagInt(calls.get(0), SessionTags.SESSION_TURNS, 1);
      Map<Integer, List<RequestRecord>> byTurn = new TreeMap<>();
      for (RequestRecord r : calls) {
        byTurn.computeIfAbsent(tagInt(r, SessionTags.TURN, 0), k -> new ArrayList<>()).add(r);
      }
      boolean gaveUp = false;
      boolean finishedAll = true;
      for (int turn = 0; turn < planned; turn++) {
        List<RequestRecord> t = byTurn.getOrDefault(turn, List.of());
        if (finished(t)) {
          long end = t.stream().filter(RequestRecord::wasSent).mapToLong(r -> r.sendNanos() + r.endOffsetNanos())
              .max().orElseThrow();
          long turnStart = t.stream().mapToLong(RequestRecord::intendedNanos).min().orElseThrow();
          if (turn == 0) {
            if (end - start <= firstScreen.toNanos()) {
              screenOk++;
            } else {
              screenMissed++;
            }
          }
          if (end - turnStart > patience.toNanos()) {
            gaveUp = true;
            break;
          }
        } else {
          if (t.stream().anyMatch(SessionOutcomes::failedForGood)) {
            gaveUp = true;
            screenMissed += turn == 0 ? 1 : 0;
          }
          finishedAll = false;
          break;
        }
      }
      if (gaveUp) {
        interrupted++;
      } else if (finishedAll) {
        completed++;
      }
    }
    return new SessionOutcomes(firstScreen, patience, sessions, screenOk, screenMissed, completed, interrupted);
  }

  /** True when the call at the turn's last step (not a branch) succeeded. */
  private static boolean finished(List<RequestRecord> turn) {
    if (turn.isEmpty()) {
      return false;
    }
    int lastStep = tagInt(turn.get(0), SessionTags.TURN_STEPS, 1) - 1;
    return turn.stream().anyMatch(r -> r.succeeded() && tagInt(r, SessionTags.STEP, 0) == lastStep
        && !r.tags().containsKey(SessionTags.BRANCH));
  }

  /** A call that failed its last allowed attempt (not cut by the run's end), or a tool that failed. */
  private static boolean failedForGood(RequestRecord r) {
    if (r.tags().containsKey(SessionTags.TOOL_FAILED)) {
      return true;
    }
    if (r.succeeded()) {
      return false;
    }
    boolean runEnded = r.failure().map(f -> f.category() == ErrorCategory.CANCELLED
        || f.category() == ErrorCategory.NOT_SENT).orElse(false);
    return !runEnded && tagInt(r, SessionTags.RETRY_COUNT, 0) + 1 >= tagInt(r, SessionTags.MAX_ATTEMPTS, 1);
  }

  private static int tagInt(RequestRecord r, String tag, int absent) {
    String v = r.tags().get(tag);
    return v == null ? absent : Integer.parseInt(v);
  }

  private static void positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0, was " + d);
    }
  }

  /** Sessions counted (first call measured). */
  public int sessions() {
    return sessions;
  }

  /** Sessions whose first turn finished within the first-screen limit. */
  public int firstScreenCompleted() {
    return firstScreenCompleted;
  }

  /** Sessions whose first turn finished later than the limit or failed. */
  public int firstScreenMissed() {
    return firstScreenMissed;
  }

  /** Sessions whose every turn finished within the patience. */
  public int completed() {
    return completed;
  }

  /** Sessions with a turn slower than the patience or a call or tool that failed every attempt. */
  public int interrupted() {
    return interrupted;
  }

  /** Sessions the run ended before they completed or were interrupted. */
  public int cut() {
    return sessions - completed - interrupted;
  }

  /** The first-screen limit. */
  public Duration firstScreen() {
    return firstScreen;
  }

  /** The longest turn a user waits for. */
  public Duration patience() {
    return patience;
  }

  /** First-screen completion rate, 1 (a share in [0, 1]): completed / (completed + missed); empty without either. */
  public OptionalDouble firstScreenCompletionRate() {
    int n = firstScreenCompleted + firstScreenMissed;
    return n == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) firstScreenCompleted / n);
  }

  /** Session interruption rate, 1 (a share in [0, 1]): interrupted / (interrupted + completed); empty without either. */
  public OptionalDouble interruptionRate() {
    int n = interrupted + completed;
    return n == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) interrupted / n);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "SessionOutcomes[%d sessions, first screen within %d ms: %d of %d, "
        + "interrupted (turn over %d ms or failed): %d of %d, cut %d]", sessions, firstScreen.toMillis(),
        firstScreenCompleted, firstScreenCompleted + firstScreenMissed, patience.toMillis(), interrupted,
        interrupted + completed, cut());
  }
}
