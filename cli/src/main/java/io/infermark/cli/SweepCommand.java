package io.infermark.cli;

import io.infermark.attribution.knee.Kneedle;
import io.infermark.attribution.knee.SlopeThreshold;
import io.infermark.attribution.knee.SweepKnees;
import io.infermark.core.RunResult;
import io.infermark.core.sweep.Sweep;
import io.infermark.core.sweep.SweepPoint;
import io.infermark.core.target.Target;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.slo.SloSet;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code infermark sweep}: one run per load level (request rates or concurrencies), a table of
 * throughput and latency per level, the knee of the latency curve, and the last level that meets
 * the gates.
 */
@Command(name = "sweep", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Run one benchmark per load level (--rates or --concurrencies) and find the knee of the "
        + "latency curve (Kneedle and a slope threshold); with --slo, the last level meeting every gate.",
        "Target and dataset flags are bench's."},
    footer = {"", "Exit codes: 0 ok, 1 no level met the --slo gates, 2 bad flags, 3 failure."})
final class SweepCommand implements Callable<Integer> {

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Mixin
  TargetOptions target = new TargetOptions();

  @Mixin
  WorkloadOptions workload = new WorkloadOptions();

  @Option(names = "--rates", paramLabel = "R1,R2,...", split = ",", description = "Request rates (req/s), Poisson arrivals.")
  List<Double> rates = new ArrayList<>();

  @Option(names = "--concurrencies", paramLabel = "N1,N2,...", split = ",", description = "Closed-loop stream counts.")
  List<Integer> concurrencies = new ArrayList<>();

  @Option(names = "--num-prompts", defaultValue = "200", description = "Requests per level (default: ${DEFAULT-VALUE}).")
  int numPrompts;

  @Option(names = "--burstiness", defaultValue = "1.0", description = "Gamma shape of the arrivals at each rate (default: ${DEFAULT-VALUE}).")
  double burstiness;

  @Option(names = "--knee-metric", defaultValue = "ttft", description = "Metric of the latency curve: ttft, itl, tpot, e2e (default: ${DEFAULT-VALUE}).")
  String kneeMetric;

  @Option(names = "--knee-percentile", defaultValue = "99", description = "Percentile of the latency curve (default: ${DEFAULT-VALUE}).")
  double kneePercentile;

  @Option(names = "--slope-threshold", defaultValue = "120",
      description = "Slope (ms per req/s or per stream) above which the curve counts as past the knee (default: ${DEFAULT-VALUE}).")
  double slopeThreshold;

  @Mixin
  SloOptions slo = new SloOptions();

  @Mixin
  HtmlOptions html = new HtmlOptions();

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    if (rates.isEmpty() == concurrencies.isEmpty()) {
      throw new IllegalArgumentException("give --rates or --concurrencies (one of them)");
    }
    var metric = SloOptions.parseSlo(kneeMetric + ":p" + kneePercentile + ":0");
    Optional<SloSet> gates = slo.gates();
    List<? extends SweepPoint<? extends Number>> points;
    try (Target t = target.build()) {
      LevelRunner runner = new LevelRunner(t, workload, numPrompts, burstiness, spec.commandLine().getErr());
      if (!rates.isEmpty()) {
        points = Sweep.rates(rates.stream().mapToDouble(Double::doubleValue).toArray()).run(runner::atRate);
      } else {
        points = Sweep.concurrency(concurrencies.stream().mapToInt(Integer::intValue).toArray()).run(runner::atConcurrency);
      }
    }
    io.infermark.metrics.slo.LatencySlo curve = (io.infermark.metrics.slo.LatencySlo) metric;
    out.printf(Locale.ROOT, "%10s | %8s | %7s | %10s | %12s | %11s | %11s | %-12s%s%n", rates.isEmpty() ? "streams" : "rate req/s",
        "measured", "failed", "req/s", "output tok/s", "P99 TTFT ms", "P99 E2E ms", "client", gates.isPresent() ? " | gates" : "");
    Optional<Number> lastPassing = Optional.empty();
    for (SweepPoint<? extends Number> p : points) {
      RunResult r = p.result();
      RunSummary s = RunSummary.of(r);
      boolean pass = gates.map(g -> g.evaluate(r, s).allPassed()).orElse(true);
      if (pass && gates.isPresent()) {
        lastPassing = Optional.of(p.level());
      }
      out.printf(Locale.ROOT, "%10s | %8d | %7d | %10.2f | %12.1f | %11.1f | %11.1f | %-12s%s%n", p.level(),
          s.requests().measured(), s.requests().failed(), or(s.requestThroughputRps()), or(s.outputTokenThroughputTps()),
          or(s.distribution(io.infermark.metrics.LatencyMetric.TTFT).p99()),
          or(s.distribution(io.infermark.metrics.LatencyMetric.E2E).p99()), s.clientHealth().verdict(),
          gates.isPresent() ? (pass ? " | pass" : " | FAIL") : "");
    }
    SweepKnees knees = SweepKnees.ofSweep(points, curve.metric(), curve.p(), Kneedle.latencyCurve(),
        SlopeThreshold.of(slopeThreshold));
    out.println();
    out.printf(Locale.ROOT, "Knee of the P%s %s curve:%n", trim(kneePercentile), curve.metric());
    knees.clientWarnings().forEach(w -> out.println("  WARNING client not trustworthy at " + w));
    out.println("  Kneedle: " + knees.kneedleLabel().orElse("none found"));
    out.println("  Slope above " + trim(slopeThreshold) + " ms per unit: " + knees.slopeLabel()
        .map(l -> "reached at " + l + ", last acceptable level " + knees.lastAcceptableLabel().orElse("none"))
        .orElse("never"));
    html.file(Path.of("infermark-sweep.html")).ifPresent(file -> out.println("Wrote " + SweepPage.write(points, knees,
        curve, rates.isEmpty(), file) + " (latency-load curve)"));
    if (gates.isPresent()) {
      out.println("Last level meeting every gate: " + lastPassing.map(Object::toString).orElse("none"));
      if (lastPassing.isEmpty()) {
        out.println("GATE FAILED: exit code " + Infermark.GATE_FAILED);
        return Infermark.GATE_FAILED;
      }
    }
    out.flush();
    return Infermark.OK;
  }

  private static double or(OptionalDouble v) {
    return v.orElse(Double.NaN);
  }

  static String trim(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }

  @Override
  public String toString() {
    return "SweepCommand" + Arrays.asList(rates, concurrencies);
  }
}
