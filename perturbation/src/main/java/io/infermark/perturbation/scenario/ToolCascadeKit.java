package io.infermark.perturbation.scenario;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.pipeline.AgentSessionTarget;
import io.infermark.core.request.Prompt;
import io.infermark.core.stats.QuantileMethod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.function.Predicate;

/**
 * Scenario kit: a tool-call timeout cascade in a multi-call agent session (seed 003 §4.4). Sessions
 * run through an {@link AgentSessionTarget} (plan, tool calls, answer); one tool step, the one under
 * test, times out on some sessions and its fallback answers instead. The kit measures what the
 * timeout cost the session (its latency with and without the fallback) and whether the fallback's
 * result was correct.
 *
 * <pre>{@code
 * ToolCascadeKit kit = ToolCascadeKit.builder("weather", result -> result.equals("21 C"))
 *     .maxSessionP95(Duration.ofSeconds(2)).build();
 * RunResult run = Benchmark.target(agent).prompts(kit.prompts(List.of("Plan my day in Oslo"))).captureText(false)
 *     .load(LoadProfile.concurrency(4).requests(100)).run();
 * CascadeVerdict v = kit.verdict(run.measured());
 * }</pre>
 *
 * <p><b>Verdict:</b> passes when no session failed, at least {@code minFallbackCorrect} [1.0] of
 * the fallback results were correct, and the sessions' P95 E2E is within {@code maxSessionP95}
 * [none]. The cascade cost is the mean E2E of sessions whose step fell back minus that of sessions
 * whose step answered in time (when both exist).
 */
public final class ToolCascadeKit {

  /** The tag naming the scenario. */
  public static final String SCENARIO = "tool-cascade";

  private final String step;
  private final Predicate<String> correct;
  private final double minFallbackCorrect;
  private final Duration maxSessionP95;

  private ToolCascadeKit(Builder b) {
    this.step = b.step;
    this.correct = b.correct;
    this.minFallbackCorrect = b.minFallbackCorrect;
    this.maxSessionP95 = b.maxSessionP95;
  }

  /** A kit watching tool step {@code step}, whose results {@code correct} judges. */
  public static Builder builder(String step, Predicate<String> correct) {
    return new Builder(Objects.requireNonNull(step, "step"), Objects.requireNonNull(correct, "correct"));
  }

  /** One prompt per task, tagged with the scenario. */
  public List<Prompt> prompts(List<String> tasks) {
    List<Prompt> out = new ArrayList<>();
    for (String t : tasks) {
      out.add(Prompt.user(t).withTag("scenario", SCENARIO));
    }
    return List.copyOf(out);
  }

  /**
   * The verdict on sessions' records (measured ones).
   *
   * @throws IllegalArgumentException if no measured session is given
   */
  public CascadeVerdict verdict(List<RequestRecord> records) {
    String outcomeTag = AgentSessionTarget.PREFIX + step + ".outcome";
    String msTag = AgentSessionTarget.PREFIX + step + ".ms";
    String resultTag = AgentSessionTarget.PREFIX + step + ".result";
    List<Double> all = new ArrayList<>();
    List<Double> fellBack = new ArrayList<>();
    List<Double> inTime = new ArrayList<>();
    List<Double> stepMsFellBack = new ArrayList<>();
    int sessions = 0;
    int failed = 0;
    int timeouts = 0;
    int fallbacks = 0;
    int fallbackCorrect = 0;
    for (RequestRecord r : records) {
      if (!r.measured()) {
        continue;
      }
      sessions++;
      String outcome = r.tags().getOrDefault(outcomeTag, "");
      if (outcome.startsWith("timeout")) {
        timeouts++;
      }
      if (!r.succeeded()) {
        failed++;
        continue;
      }
      double e2e = r.chunks().lastTokenOffsetNanos().orElse(r.endOffsetNanos()) / 1e6;
      all.add(e2e);
      if (outcome.endsWith("+fallback")) {
        fallbacks++;
        fellBack.add(e2e);
        stepMsFellBack.add(Double.parseDouble(r.tags().getOrDefault(msTag, "NaN")));
        if (correct.test(r.tags().getOrDefault(resultTag, ""))) {
          fallbackCorrect++;
        }
      } else if (outcome.equals("ok")) {
        inTime.add(e2e);
      }
    }
    if (sessions == 0) {
      throw new IllegalArgumentException("no measured sessions: run the prompts through an AgentSessionTarget");
    }
    double p95 = all.isEmpty() ? Double.NaN : quantile(all, 0.95);
    OptionalDouble cost = fellBack.isEmpty() || inTime.isEmpty() ? OptionalDouble.empty()
        : OptionalDouble.of(mean(fellBack) - mean(inTime));
    double correctShare = fallbacks == 0 ? 1 : (double) fallbackCorrect / fallbacks;
    List<String> reasons = new ArrayList<>();
    if (failed > 0) {
      reasons.add(failed + " session(s) failed");
    }
    if (correctShare < minFallbackCorrect) {
      reasons.add(String.format(Locale.ROOT, "fallback correct in %d of %d (%.1f%% < %.1f%%)", fallbackCorrect,
          fallbacks, 100 * correctShare, 100 * minFallbackCorrect));
    }
    if (maxSessionP95 != null && !(p95 <= maxSessionP95.toNanos() / 1e6)) {
      reasons.add(String.format(Locale.ROOT, "session P95 %.1f ms > %.1f ms", p95, maxSessionP95.toNanos() / 1e6));
    }
    return new CascadeVerdict(reasons.isEmpty(), step, sessions, failed, timeouts, fallbacks, fallbackCorrect, p95,
        fellBack.isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(mean(fellBack)),
        inTime.isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(mean(inTime)),
        stepMsFellBack.isEmpty() ? OptionalDouble.empty() : OptionalDouble.of(mean(stepMsFellBack)), cost, reasons);
  }

  private static double mean(List<Double> v) {
    return v.stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
  }

  private static double quantile(List<Double> v, double p) {
    return QuantileMethod.LINEAR.quantile(v.stream().mapToDouble(Double::doubleValue).sorted().toArray(), p);
  }

  @Override
  public String toString() {
    return "ToolCascadeKit[step " + step + ", min fallback correct " + minFallbackCorrect + ", max session P95 "
        + (maxSessionP95 == null ? "none" : maxSessionP95) + "]";
  }

  /**
   * The outcome of a {@link ToolCascadeKit}. Times in milliseconds.
   *
   * @param pass every limit held
   * @param step the tool step watched
   * @param sessions measured sessions
   * @param failed sessions that failed
   * @param timeouts sessions whose step timed out
   * @param fallbacks sessions whose step's fallback answered
   * @param fallbackCorrect of those, fallback results judged correct
   * @param sessionP95Ms P95 E2E of the successful sessions
   * @param fallbackSessionMeanMs mean E2E of sessions whose step fell back
   * @param inTimeSessionMeanMs mean E2E of sessions whose step answered in time
   * @param fallbackStepMeanMs mean wall time of the step when it fell back (timeout plus fallback)
   * @param cascadeCostMs fallback sessions' mean E2E minus in-time sessions', when both exist
   * @param reasons each limit broken, in words
   */
  public record CascadeVerdict(boolean pass, String step, int sessions, int failed, int timeouts, int fallbacks,
      int fallbackCorrect, double sessionP95Ms, OptionalDouble fallbackSessionMeanMs,
      OptionalDouble inTimeSessionMeanMs, OptionalDouble fallbackStepMeanMs, OptionalDouble cascadeCostMs,
      List<String> reasons) {

    /** Copies. */
    public CascadeVerdict {
      reasons = List.copyOf(reasons);
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "CascadeVerdict[%s, step %s: %d sessions, %d failed, %d timeouts, %d "
          + "fallbacks (%d correct), session p95 %.1f ms, cascade cost %s%s]", pass ? "PASS" : "FAIL", step, sessions,
          failed, timeouts, fallbacks, fallbackCorrect, sessionP95Ms,
          cascadeCostMs.isPresent() ? String.format(Locale.ROOT, "%.1f ms", cascadeCostMs.getAsDouble()) : "n/a",
          reasons.isEmpty() ? "" : ", " + String.join("; ", reasons));
    }
  }

  /** Collects a {@link ToolCascadeKit}'s limits. */
  public static final class Builder {
    private final String step;
    private final Predicate<String> correct;
    private double minFallbackCorrect = 1.0;
    private Duration maxSessionP95;

    private Builder(String step, Predicate<String> correct) {
      this.step = step;
      this.correct = correct;
    }

    /** The share of fallback results that must be correct, in [0, 1] [1]. */
    public Builder minFallbackCorrect(double share) {
      if (!(share >= 0 && share <= 1)) {
        throw new IllegalArgumentException("minFallbackCorrect must be in [0, 1], was " + share);
      }
      this.minFallbackCorrect = share;
      return this;
    }

    /** The longest acceptable P95 session E2E [none]. */
    public Builder maxSessionP95(Duration limit) {
      Objects.requireNonNull(limit, "limit");
      if (limit.isNegative() || limit.isZero()) {
        throw new IllegalArgumentException("maxSessionP95 must be > 0, was " + limit);
      }
      this.maxSessionP95 = limit;
      return this;
    }

    /** The kit. */
    public ToolCascadeKit build() {
      return new ToolCascadeKit(this);
    }
  }
}
