package io.infermark.metrics.slo;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.Distribution;
import io.infermark.metrics.RunSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * A named group of {@link Slo}s evaluated together: {@code SloSet.of("chat", Slo.latency(TTFT, 0.99, 200))
 * .evaluate(run)} gives a verdict per objective and the run's {@link Goodput}. Immutable; presets in
 * {@link SloPresets}; {@link #and(SloSet)} combines sets.
 *
 * <p>How each objective is measured over the run's measured (non-warmup) requests:
 * <ul>
 *   <li>latency: the percentile of the metric's {@link Distribution} in {@link RunSummary} (successful
 *       requests only, linear percentiles unless the summary chose otherwise); the verdict notes when
 *       the percentile rests on too few samples;
 *   <li>error rate: failed ÷ measured; completion rate: succeeded ÷ measured;
 *   <li>validity: successful requests passing the predicate ÷ successful requests;
 *   <li>throughput: {@link RunSummary#outputTokenThroughputTps()} ÷ GPUs.
 * </ul>
 * Goodput counts a measured request when it succeeded, meets every {@link LatencySlo} per request
 * and passes every {@link ValiditySlo} predicate.
 *
 * @param name what the set is for
 * @param slos the objectives, in report order
 */
public record SloSet(String name, List<Slo> slos) {

  /** Validates and copies. */
  public SloSet {
    Objects.requireNonNull(name, "name");
    slos = List.copyOf(slos);
    if (slos.isEmpty()) {
      throw new IllegalArgumentException("an SLO set needs at least one objective");
    }
  }

  /** A set of the given objectives. */
  public static SloSet of(String name, Slo... slos) {
    return new SloSet(name, List.of(slos));
  }

  /** This set's objectives followed by another's, named {@code "this + other"}. */
  public SloSet and(SloSet other) {
    List<Slo> all = new ArrayList<>(slos);
    all.addAll(other.slos);
    return new SloSet(name + " + " + other.name, all);
  }

  /**
   * Evaluates the run. Summarises it first; use {@link #evaluate(RunResult, RunSummary)} when a
   * summary exists.
   *
   * @throws IllegalStateException if the run did not retain its records
   */
  public SloReport evaluate(RunResult run) {
    return evaluate(run, RunSummary.of(run));
  }

  /**
   * Evaluates the run, reading aggregate values from {@code summary} (which must summarise {@code run}).
   *
   * @throws IllegalStateException if the run did not retain its records
   */
  public SloReport evaluate(RunResult run, RunSummary summary) {
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(summary, "summary");
    List<RequestRecord> records = run.records();
    int measured = summary.requests().measured();
    int succeeded = summary.requests().succeeded();
    List<SloVerdict> verdicts = new ArrayList<>();
    for (Slo slo : slos) {
      verdicts.add(verdict(slo, records, summary, measured, succeeded));
    }
    int count = 0;
    for (RequestRecord r : records) {
      if (r.measured() && r.succeeded() && meetsAll(r)) {
        count++;
      }
    }
    int met = count;
    OptionalDouble rps = summary.window().filter(w -> w.durationNanos() > 0)
        .map(w -> OptionalDouble.of(met / w.durationSeconds())).orElse(OptionalDouble.empty());
    return new SloReport(name, verdicts, new Goodput(measured, met, rps));
  }

  /** True when a successful request meets every per-request objective of this set. */
  public boolean meetsAll(RequestRecord r) {
    for (Slo slo : slos) {
      if (slo instanceof LatencySlo l && !l.metBy(r)) {
        return false;
      }
      if (slo instanceof ValiditySlo v && !v.valid().test(r)) {
        return false;
      }
    }
    return true;
  }

  private static SloVerdict verdict(Slo slo, List<RequestRecord> records, RunSummary summary, int measured,
      int succeeded) {
    if (slo instanceof LatencySlo l) {
      Distribution d = summary.distribution(l.metric());
      String note = !d.isEmpty() && d.isTailUnreliable(l.p())
          ? "too few samples for this percentile (" + d.count() + " of " + Distribution.samplesNeeded(l.p()) + ")"
          : "";
      return SloVerdict.upperBound(slo, d.percentile(l.p()), l.thresholdMillis(), "ms", note);
    }
    if (slo instanceof ErrorRateSlo e) {
      return SloVerdict.upperBound(slo, fraction(summary.requests().failed(), measured), e.maxFraction(), "fraction",
          "");
    }
    if (slo instanceof CompletionRateSlo c) {
      return SloVerdict.lowerBound(slo, fraction(succeeded, measured), c.minFraction(), "fraction", "");
    }
    if (slo instanceof ValiditySlo v) {
      int valid = 0;
      for (RequestRecord r : records) {
        if (r.measured() && r.succeeded() && v.valid().test(r)) {
          valid++;
        }
      }
      return SloVerdict.lowerBound(slo, fraction(valid, succeeded), v.minValidFraction(), "fraction",
          (succeeded - valid) + " invalid of " + succeeded);
    }
    ThroughputSlo t = (ThroughputSlo) slo;
    OptionalDouble tps = summary.outputTokenThroughputTps();
    return SloVerdict.lowerBound(slo, tps.isPresent() ? OptionalDouble.of(tps.getAsDouble() / t.gpus())
        : OptionalDouble.empty(), t.minTokensPerSecondPerGpu(), "tokens/s/GPU", "");
  }

  private static OptionalDouble fraction(int part, int whole) {
    return whole == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) part / whole);
  }

  @Override
  public String toString() {
    return "SloSet[" + name + ": " + String.join(", ", slos.stream().map(Slo::name).toList()) + "]";
  }
}
