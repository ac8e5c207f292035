package io.infermark.metrics.session;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.session.SessionTags;
import io.infermark.core.workload.WorkloadTags;
import io.infermark.metrics.Distribution;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Per-session metrics of a run of a session workload, rebuilt from the records' {@link SessionTags}
 * alone (so a journal rebuilds them too). A session counts when its first call was measured (not warmup
 * or cooldown). Times are milliseconds on the run's one clock.
 *
 * <ul>
 *   <li>A session is <b>completed</b> when every turn ended with a successful call and no call or tool
 *       exhausted its retries; <b>failed</b> when a call or a tool failed every attempt; <b>cut</b> when
 *       the run ended (or stopped issuing) before it finished. {@link #toolChainCompletionRate()} is
 *       completed / (completed + failed): sessions the run cut are neither.</li>
 *   <li>{@link #sessionMillis()}: completed sessions, from their first call's intended time to their last
 *       call's end (think time, tools and backoff included). {@link #turnsPerSession()}: turns finished,
 *       per completed or failed session.</li>
 *   <li>{@link #turnLatency()} ({@code agent_turn_latency_ms}): each finished turn, from its first call's
 *       intended time to its last call's end, labelled by {@code tool_call_depth} (the deepest call of
 *       the turn) and {@code retry_count} (retried attempts in the turn).</li>
 *   <li>{@link #retries()}: calls whose first attempt failed; a call converged when an attempt succeeded,
 *       its cycles the attempts it took.</li>
 *   <li>Time split over completed and failed sessions: in tools (the {@code tool_nanos} tags), in the
 *       model (the union of the session's call intervals, send to end), and the rest (think time,
 *       backoff, scheduling).</li>
 *   <li>{@link #ttftByTurn()}: TTFT of each turn's first call (first attempt, successful) against its
 *       context length (the server's prompt tokens, else the client's count), per turn index, and the
 *       least-squares slope in ms per 1,000 context tokens.</li>
 *   <li>{@link #fidelity()}: memory decay and context truncation (see {@link Fidelity}).</li>
 * </ul>
 */
public final class SessionSummary {

  /** How a session ended. */
  public enum Outcome {
    /** Every turn finished and every call and tool succeeded (after retries). */
    COMPLETED,
    /** A call or a tool failed every attempt. */
    FAILED,
    /** The run ended before the session did. */
    CUT
  }

  /**
   * Agent turn latency of the finished turns with one pair of labels.
   *
   * @param toolCallDepth the deepest call of the turn
   * @param retryCount retried attempts in the turn
   * @param latencyMillis the turns' latencies, ms
   */
  public record TurnLatency(int toolCallDepth, int retryCount, Distribution latencyMillis) {}

  /**
   * TTFT of the turns at one index against their context length.
   *
   * @param turn the turn index, from 0
   * @param calls how many first calls were measured
   * @param meanContextTokens their mean context length, tokens
   * @param ttftMillis their TTFTs, ms
   */
  public record ContextPoint(int turn, int calls, double meanContextTokens, Distribution ttftMillis) {}

  /**
   * Retry convergence: calls whose first attempt failed.
   *
   * @param retriedCalls calls whose first attempt failed (and whose session the run did not cut mid-retry)
   * @param converged of those, calls a later attempt succeeded
   * @param exhausted of those, calls that failed every attempt
   * @param cycles attempts each converged call took (2 = succeeded at the first retry)
   */
  public record RetryConvergence(int retriedCalls, int converged, int exhausted, Distribution cycles) {}

  /**
   * Long-session fidelity.
   *
   * <p><b>Memory decay</b>: a fact planted at turn 0 is asked for at probe turns; a probe is recalled
   * when the judge finds the fact in the reply to the question (the turn's first call). The decay rate is 1 − recalled / probes, also per probe
   * turn. <b>Context truncation</b>: along a session's main chain every call's context holds the previous
   * call's context and reply, so the server's prompt tokens must be at least the previous call's prompt
   * plus completion tokens; a call below that was truncated (counted only when the server reported both
   * calls' usage). A call failing with a context-length error (HTTP 400/413 whose message speaks of the
   * context or maximum length) counts too. The truncation rate is (truncated + context-length errors) /
   * (checked calls + context-length errors).
   *
   * @param probes probe replies judged
   * @param recalled of those, replies that recalled the fact
   * @param recallByTurn recalled share by probe turn
   * @param checkedCalls calls whose context growth could be checked
   * @param truncatedCalls of those, calls whose server prompt was shorter than what was sent
   * @param contextLengthErrors calls that failed with a context-length error
   */
  public record Fidelity(int probes, int recalled, Map<Integer, Double> recallByTurn, int checkedCalls,
      int truncatedCalls, int contextLengthErrors) {

    /** Copies. */
    public Fidelity {
      recallByTurn = Map.copyOf(recallByTurn);
    }

    /** 1 − recalled / probes, or empty without probes. */
    public OptionalDouble memoryDecayRate() {
      return probes == 0 ? OptionalDouble.empty() : OptionalDouble.of(1 - (double) recalled / probes);
    }

    /** (truncated + context-length errors) / (checked + context-length errors), or empty. */
    public OptionalDouble contextTruncationRate() {
      int n = checkedCalls + contextLengthErrors;
      return n == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) (truncatedCalls + contextLengthErrors) / n);
    }
  }

  private static final Pattern CONTEXT_ERROR = Pattern.compile(
      "(?i)context|maximum (input |prompt )?length|too long|max_model_len|exceeds? .*tokens");

  private final int sessions;
  private final Map<Outcome, Integer> outcomes;
  private final Distribution sessionMillis;
  private final Distribution turnsPerSession;
  private final List<TurnLatency> turnLatency;
  private final RetryConvergence retries;
  private final double toolMillis;
  private final double modelMillis;
  private final double otherMillis;
  private final List<ContextPoint> ttftByTurn;
  private final OptionalDouble ttftSlope;
  private final Fidelity fidelity;

  private SessionSummary(int sessions, Map<Outcome, Integer> outcomes, Distribution sessionMillis,
      Distribution turnsPerSession, List<TurnLatency> turnLatency, RetryConvergence retries, double toolMillis,
      double modelMillis, double otherMillis, List<ContextPoint> ttftByTurn, OptionalDouble ttftSlope,
      Fidelity fidelity) {
    this.sessions = sessions;
    this.outcomes = outcomes;
    this.sessionMillis = sessionMillis;
    this.turnsPerSession = turnsPerSession;
    this.turnLatency = List.copyOf(turnLatency);
    this.retries = retries;
    this.toolMillis = toolMillis;
    this.modelMillis = modelMillis;
    this.otherMillis = otherMillis;
    this.ttftByTurn = List.copyOf(ttftByTurn);
    this.ttftSlope = ttftSlope;
    this.fidelity = fidelity;
  }

  /** True when a record carries the tags of a session workload's call. */
  public static boolean isSessionCall(RequestRecord r) {
    return r.tags().containsKey(SessionTags.TOOL_CALL_DEPTH) && r.tags().containsKey(SessionTags.SESSION);
  }

  /** The sessions of {@code records}, probes judged by {@link FactJudge#containsFact()}. */
  public static SessionSummary of(List<RequestRecord> records) {
    return of(records, FactJudge.containsFact());
  }

  /** The sessions of {@code records}, probes judged by {@code judge}. */
  public static SessionSummary of(List<RequestRecord> records, FactJudge judge) {
    Objects.requireNonNull(records, "records");
    Objects.requireNonNull(judge, "judge");
    Map<String, List<RequestRecord>> bySession = new LinkedHashMap<>();
    for (RequestRecord r : records) {
      if (isSessionCall(r)) {
        bySession.computeIfAbsent(r.tags().get(SessionTags.SESSION), k -> new ArrayList<>()).add(r);
      }
    }
    Map<Outcome, Integer> outcomes = new java.util.EnumMap<>(Outcome.class);
    for (Outcome o : Outcome.values()) {
      outcomes.put(o, 0);
    }
    List<Double> sessionMs = new ArrayList<>();
    List<Double> turns = new ArrayList<>();
    Map<List<Integer>, List<Double>> turnMs = new TreeMap<>(Comparator.<List<Integer>>comparingInt(l -> l.get(0))
        .thenComparingInt(l -> l.get(1)));
    int retried = 0;
    int converged = 0;
    int exhausted = 0;
    List<Double> cycles = new ArrayList<>();
    double tool = 0;
    double model = 0;
    double other = 0;
    Map<Integer, List<double[]>> firstCalls = new TreeMap<>();
    int probes = 0;
    int recalled = 0;
    Map<Integer, int[]> probeTurns = new TreeMap<>();
    int checked = 0;
    int truncated = 0;
    int contextErrors = 0;
    int counted = 0;
    for (List<RequestRecord> calls : bySession.values()) {
      calls.sort(Comparator.comparingLong(RequestRecord::index));
      if (!calls.get(0).measured()) {
        continue;
      }
      counted++;
      int plannedTurns = tagInt(calls.get(0), SessionTags.SESSION_TURNS, 1);
      // attempts of each call: (turn, step, branch) -> attempts in order
      Map<List<Integer>, List<RequestRecord>> attempts = new TreeMap<>(Comparator.<List<Integer>>comparingInt(
          l -> l.get(0)).thenComparingInt(l -> l.get(1)).thenComparingInt(l -> l.get(2)));
      for (RequestRecord r : calls) {
        attempts.computeIfAbsent(List.of(tagInt(r, SessionTags.TURN, 0), tagInt(r, SessionTags.STEP, 0),
            tagInt(r, SessionTags.BRANCH, -1)), k -> new ArrayList<>()).add(r);
      }
      boolean failed = false;
      boolean cutShort = false;
      for (List<RequestRecord> a : attempts.values()) {
        RequestRecord last = a.get(a.size() - 1);
        boolean firstFailed = !a.get(0).succeeded();
        if (last.succeeded()) {
          if (firstFailed) {
            retried++;
            converged++;
            cycles.add((double) a.size());
          }
        } else if (runEnded(last) || tagInt(last, SessionTags.RETRY_COUNT, 0) + 1 < tagInt(last,
            SessionTags.MAX_ATTEMPTS, 1)) {
          cutShort = true; // the run ended before this call's next attempt
          if (isContextLengthError(last)) {
            contextErrors++;
          }
        } else {
          failed = true;
          retried += a.size() > 1 ? 1 : 0;
          exhausted += a.size() > 1 ? 1 : 0;
          if (isContextLengthError(last)) {
            contextErrors++;
          }
        }
      }
      boolean toolFailed = calls.stream().anyMatch(r -> r.tags().containsKey(SessionTags.TOOL_FAILED));
      // finished turns: the call at the turn's last step (no branch) succeeded
      Map<Integer, List<RequestRecord>> byTurn = new TreeMap<>();
      for (RequestRecord r : calls) {
        byTurn.computeIfAbsent(tagInt(r, SessionTags.TURN, 0), k -> new ArrayList<>()).add(r);
      }
      int finishedTurns = 0;
      for (Map.Entry<Integer, List<RequestRecord>> e : byTurn.entrySet()) {
        List<RequestRecord> t = e.getValue();
        int lastStep = tagInt(t.get(0), SessionTags.TURN_STEPS, 1) - 1;
        boolean done = t.stream().anyMatch(r -> r.succeeded() && tagInt(r, SessionTags.STEP, 0) == lastStep
            && !r.tags().containsKey(SessionTags.BRANCH));
        if (!done) {
          continue;
        }
        finishedTurns++;
        long start = t.stream().mapToLong(RequestRecord::intendedNanos).min().orElseThrow();
        long end = t.stream().filter(RequestRecord::wasSent).mapToLong(SessionSummary::endNanos).max().orElseThrow();
        int depth = t.stream().mapToInt(r -> tagInt(r, SessionTags.TOOL_CALL_DEPTH, 0)).max().orElse(0);
        int turnRetries = (int) t.stream().filter(r -> tagInt(r, SessionTags.RETRY_COUNT, 0) > 0).count();
        turnMs.computeIfAbsent(List.of(depth, turnRetries), k -> new ArrayList<>()).add((end - start) / 1e6);
      }
      Outcome outcome = failed || toolFailed ? Outcome.FAILED
          : !cutShort && finishedTurns == plannedTurns ? Outcome.COMPLETED : Outcome.CUT;
      outcomes.merge(outcome, 1, Integer::sum);
      long sessionStart = calls.stream().mapToLong(RequestRecord::intendedNanos).min().orElseThrow();
      long sessionEnd = calls.stream().filter(RequestRecord::wasSent).mapToLong(SessionSummary::endNanos).max()
          .orElse(sessionStart);
      if (outcome != Outcome.CUT) {
        turns.add((double) finishedTurns);
        double e2e = (sessionEnd - sessionStart) / 1e6;
        double t = calls.stream().mapToLong(r -> tagLong(r, SessionTags.TOOL_NANOS, 0)).sum() / 1e6;
        double m = union(calls) / 1e6;
        tool += t;
        model += m;
        other += Math.max(0, e2e - t - m);
      }
      if (outcome == Outcome.COMPLETED) {
        sessionMs.add((sessionEnd - sessionStart) / 1e6);
      }
      // TTFT against context: each turn's first call, first attempt, successful
      for (RequestRecord r : calls) {
        if (r.succeeded() && tagInt(r, SessionTags.STEP, 0) == 0 && tagInt(r, SessionTags.RETRY_COUNT, 0) == 0
            && r.chunks().firstTokenOffsetNanos().isPresent()) {
          OptionalDouble context = contextTokens(r);
          if (context.isPresent()) {
            firstCalls.computeIfAbsent(tagInt(r, SessionTags.TURN, 0), k -> new ArrayList<>()).add(new double[] {
                context.getAsDouble(), r.chunks().firstTokenOffsetNanos().getAsLong() / 1e6});
          }
        }
        String fact = r.tags().get(SessionTags.PROBE_EXPECTED);
        // the reply to the probe's question is the turn's first call (its successful attempt)
        if (fact != null && r.succeeded() && tagInt(r, SessionTags.STEP, 0) == 0
            && !r.tags().containsKey(SessionTags.BRANCH)) {
          probes++;
          boolean ok = judge.recalls(r.text().orElse(""), fact);
          recalled += ok ? 1 : 0;
          int[] pt = probeTurns.computeIfAbsent(tagInt(r, SessionTags.TURN, 0), k -> new int[2]);
          pt[0]++;
          pt[1] += ok ? 1 : 0;
        }
      }
      // context growth along the main chain: final successful attempts without a branch, in order
      RequestRecord previous = null;
      for (List<RequestRecord> a : attempts.values()) {
        RequestRecord last = a.get(a.size() - 1);
        if (last.tags().containsKey(SessionTags.BRANCH) || !last.succeeded()) {
          continue;
        }
        if (previous != null && previous.usage().promptTokens().isPresent()
            && last.usage().promptTokens().isPresent()) {
          checked++;
          int floor = previous.usage().promptTokens().getAsInt() + previous.outputTokens();
          if (last.usage().promptTokens().getAsInt() < floor) {
            truncated++;
          }
        }
        previous = last;
      }
    }
    List<TurnLatency> latency = new ArrayList<>();
    turnMs.forEach((k, v) -> latency.add(new TurnLatency(k.get(0), k.get(1), dist(v))));
    List<ContextPoint> points = new ArrayList<>();
    double sx = 0;
    double sy = 0;
    double sxx = 0;
    double sxy = 0;
    int n = 0;
    for (Map.Entry<Integer, List<double[]>> e : firstCalls.entrySet()) {
      double ctx = 0;
      List<Double> ttft = new ArrayList<>();
      for (double[] p : e.getValue()) {
        ctx += p[0];
        ttft.add(p[1]);
        sx += p[0];
        sy += p[1];
        sxx += p[0] * p[0];
        sxy += p[0] * p[1];
        n++;
      }
      points.add(new ContextPoint(e.getKey(), e.getValue().size(), ctx / e.getValue().size(), dist(ttft)));
    }
    double denominator = n * sxx - sx * sx;
    OptionalDouble slope = n >= 2 && denominator > 0 ? OptionalDouble.of((n * sxy - sx * sy) / denominator * 1000)
        : OptionalDouble.empty();
    Map<Integer, Double> recallByTurn = new TreeMap<>();
    probeTurns.forEach((t, c) -> recallByTurn.put(t, (double) c[1] / c[0]));
    return new SessionSummary(counted, outcomes, dist(sessionMs), dist(turns), latency,
        new RetryConvergence(retried, converged, exhausted, dist(cycles)), tool, model, other, points, slope,
        new Fidelity(probes, recalled, recallByTurn, checked, truncated, contextErrors));
  }

  private static boolean runEnded(RequestRecord r) {
    return r.failure().map(f -> f.category() == ErrorCategory.CANCELLED || f.category() == ErrorCategory.NOT_SENT)
        .orElse(false);
  }

  private static boolean isContextLengthError(RequestRecord r) {
    return r.failure().map(f -> (f.httpStatus() == 400 || f.httpStatus() == 413)
        && CONTEXT_ERROR.matcher(f.message()).find()).orElse(false);
  }

  private static OptionalDouble contextTokens(RequestRecord r) {
    if (r.usage().promptTokens().isPresent()) {
      return OptionalDouble.of(r.usage().promptTokens().getAsInt());
    }
    String achieved = r.tags().get(WorkloadTags.INPUT_TOKENS_ACHIEVED);
    return achieved == null ? OptionalDouble.empty() : OptionalDouble.of(Integer.parseInt(achieved));
  }

  /** Nanoseconds covered by the union of the calls' send-to-end intervals. */
  private static long union(List<RequestRecord> calls) {
    List<long[]> spans = new ArrayList<>();
    for (RequestRecord r : calls) {
      if (r.wasSent()) {
        spans.add(new long[] {r.sendNanos(), endNanos(r)});
      }
    }
    spans.sort(Comparator.comparingLong(s -> s[0]));
    long total = 0;
    long from = Long.MIN_VALUE;
    long to = Long.MIN_VALUE;
    for (long[] s : spans) {
      if (s[0] > to) {
        total += to - from;
        from = s[0];
        to = s[1];
      } else {
        to = Math.max(to, s[1]);
      }
    }
    return total + (to - from);
  }

  private static long endNanos(RequestRecord r) {
    return r.sendNanos() + r.endOffsetNanos();
  }

  private static Distribution dist(List<Double> values) {
    double[] v = new double[values.size()];
    for (int i = 0; i < v.length; i++) {
      v[i] = values.get(i);
    }
    return Distribution.of(v);
  }

  private static int tagInt(RequestRecord r, String tag, int absent) {
    String v = r.tags().get(tag);
    return v == null ? absent : Integer.parseInt(v);
  }

  private static long tagLong(RequestRecord r, String tag, long absent) {
    String v = r.tags().get(tag);
    return v == null ? absent : Long.parseLong(v);
  }

  /** Sessions counted (their first call measured). */
  public int sessions() {
    return sessions;
  }

  /** True when the records held no measured session. */
  public boolean isEmpty() {
    return sessions == 0;
  }

  /** Sessions by how they ended (every outcome present, possibly 0). */
  public Map<Outcome, Integer> outcomes() {
    return Map.copyOf(outcomes);
  }

  /** {@code tool_chain_completion_rate}: completed / (completed + failed), or empty when neither. */
  public OptionalDouble toolChainCompletionRate() {
    int c = outcomes.get(Outcome.COMPLETED);
    int f = outcomes.get(Outcome.FAILED);
    return c + f == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) c / (c + f));
  }

  /** End-to-end time of completed sessions, ms. */
  public Distribution sessionMillis() {
    return sessionMillis;
  }

  /** Turns finished per completed or failed session. */
  public Distribution turnsPerSession() {
    return turnsPerSession;
  }

  /** {@code agent_turn_latency_ms} by tool-call depth and retry count, ordered by both. */
  public List<TurnLatency> turnLatency() {
    return turnLatency;
  }

  /** Retry convergence of calls whose first attempt failed. */
  public RetryConvergence retries() {
    return retries;
  }

  /** Time in client-side tools over completed and failed sessions, ms. */
  public double toolMillis() {
    return toolMillis;
  }

  /** Time waiting on the model (union of call intervals) over completed and failed sessions, ms. */
  public double modelMillis() {
    return modelMillis;
  }

  /** The rest of those sessions' time (think time, backoff, scheduling), ms. */
  public double otherMillis() {
    return otherMillis;
  }

  /** TTFT of each turn's first call against its context length, by turn index. */
  public List<ContextPoint> ttftByTurn() {
    return ttftByTurn;
  }

  /** Least-squares slope of those TTFTs on context length, ms per 1,000 tokens, or empty. */
  public OptionalDouble ttftMillisPerThousandContextTokens() {
    return ttftSlope;
  }

  /** Memory decay and context truncation. */
  public Fidelity fidelity() {
    return fidelity;
  }

  /** Console lines (no trailing newline each); empty when there were no sessions. */
  public List<String> lines() {
    List<String> l = new ArrayList<>();
    if (isEmpty()) {
      return l;
    }
    l.add(String.format(Locale.ROOT, "sessions            %d: %d completed, %d failed, %d cut by the run's end;"
        + " tool_chain_completion_rate %s", sessions, outcomes.get(Outcome.COMPLETED), outcomes.get(Outcome.FAILED),
        outcomes.get(Outcome.CUT), percent(toolChainCompletionRate())));
    l.add(String.format(Locale.ROOT, "session e2e ms      p50 %s  p90 %s  p99 %s  (turns per session p50 %s, max %s)",
        num(sessionMillis.p50()), num(sessionMillis.p90()), num(sessionMillis.p99()), num(turnsPerSession.p50()),
        num(turnsPerSession.max())));
    double total = toolMillis + modelMillis + otherMillis;
    if (total > 0) {
      l.add(String.format(Locale.ROOT, "session time        model %.1f%%  tools %.1f%%  think/backoff/other %.1f%%",
          100 * modelMillis / total, 100 * toolMillis / total, 100 * otherMillis / total));
    }
    for (TurnLatency t : turnLatency) {
      l.add(String.format(Locale.ROOT, "agent_turn_latency_ms{tool_call_depth=%d,retry_count=%d}  n %d  p50 %s"
          + "  p90 %s  p99 %s", t.toolCallDepth(), t.retryCount(), t.latencyMillis().count(),
          num(t.latencyMillis().p50()), num(t.latencyMillis().p90()), num(t.latencyMillis().p99())));
    }
    if (retries.retriedCalls() > 0) {
      l.add(String.format(Locale.ROOT, "retry convergence   %d calls retried: %d converged (cycles p50 %s, max %s),"
          + " %d exhausted", retries.retriedCalls(), retries.converged(), num(retries.cycles().p50()),
          num(retries.cycles().max()), retries.exhausted()));
    }
    if (!ttftByTurn.isEmpty()) {
      StringBuilder s = new StringBuilder("ttft by turn        ");
      for (ContextPoint p : ttftByTurn) {
        s.append(String.format(Locale.ROOT, "t%d %.0f tok %s ms  ", p.turn(), p.meanContextTokens(),
            num(p.ttftMillis().p50())));
      }
      ttftSlope.ifPresent(v -> s.append(String.format(Locale.ROOT, "(%.2f ms per 1k context tokens)", v)));
      l.add(s.toString().stripTrailing());
    }
    if (fidelity.probes() > 0 || fidelity.checkedCalls() > 0 || fidelity.contextLengthErrors() > 0) {
      l.add(String.format(Locale.ROOT, "fidelity            memory decay %s (%d probes)  context truncation %s"
          + " (%d truncated of %d checked, %d context-length errors)", percent(fidelity.memoryDecayRate()),
          fidelity.probes(), percent(fidelity.contextTruncationRate()), fidelity.truncatedCalls(),
          fidelity.checkedCalls(), fidelity.contextLengthErrors()));
    }
    return l;
  }

  private static String num(OptionalDouble v) {
    return v.isPresent() ? String.format(Locale.ROOT, "%.1f", v.getAsDouble()) : "-";
  }

  private static String percent(OptionalDouble v) {
    return v.isPresent() ? String.format(Locale.ROOT, "%.2f%%", 100 * v.getAsDouble()) : "-";
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "SessionSummary[%d sessions %s, completion %s, %d turn-latency series]",
        sessions, outcomes, percent(toolChainCompletionRate()), turnLatency.size());
  }
}
