package io.infermark.cli;

import io.infermark.core.RunResult;
import io.infermark.core.sweep.CapacityProbe;
import io.infermark.core.sweep.CapacityResult;
import io.infermark.core.sweep.CapacitySearch;
import io.infermark.core.target.Target;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.slo.LatencySlo;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code infermark capacity}: the highest request rate whose run meets a latency objective, found by
 * bracketing and interpolation ({@link CapacitySearch}).
 */
@Command(name = "capacity", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Find the highest request rate (Poisson) whose run meets a latency objective, in few runs: "
        + "bracketing by doubling, then interpolation. A run whose client was CLIENT_BOUND never counts as passing.",
        "Target and dataset flags are bench's."},
    footer = {"", "Exit codes: 0 a capacity was found (and is at least --min-capacity), 1 none was, 2 bad flags, 3 failure."})
final class CapacityCommand implements Callable<Integer> {

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Mixin
  TargetOptions target = new TargetOptions();

  @Mixin
  WorkloadOptions workload = new WorkloadOptions();

  @Option(names = "--objective", required = true, paramLabel = "METRIC:PCT:MS",
      description = "The objective each probe must meet, e.g. ttft:p99:500 (metrics ttft, ttfc, itl, tpot, ntpot, e2e).")
  String objective;

  @Option(names = "--num-prompts", defaultValue = "200", description = "Requests per probe (default: ${DEFAULT-VALUE}).")
  int numPrompts;

  @Option(names = "--start-rate", defaultValue = "1", description = "First rate tried, req/s (default: ${DEFAULT-VALUE}).")
  double startRate;

  @Option(names = "--min-rate", defaultValue = "0.01", description = "Lowest rate tried (default: ${DEFAULT-VALUE}).")
  double minRate;

  @Option(names = "--max-rate", defaultValue = "1000", description = "Highest rate tried (default: ${DEFAULT-VALUE}).")
  double maxRate;

  @Option(names = "--tolerance", defaultValue = "0.05", description = "Stop when the bracket is this narrow, relative (default: ${DEFAULT-VALUE}).")
  double tolerance;

  @Option(names = "--max-runs", defaultValue = "12", description = "Stop after this many probes (default: ${DEFAULT-VALUE}).")
  int maxRuns;

  @Option(names = "--burstiness", defaultValue = "1.0", description = "Gamma shape of the arrivals (default: ${DEFAULT-VALUE}).")
  double burstiness;

  @Option(names = "--min-capacity", paramLabel = "RPS", description = "A gate: exit 1 unless the capacity is at least this.")
  Double minCapacity;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    LatencySlo slo = (LatencySlo) SloOptions.parseSlo(objective);
    CapacitySearch search = CapacitySearch.atMost(run -> percentile(run, slo), slo.thresholdMillis())
        .startRate(startRate).minRate(minRate).maxRate(maxRate).tolerance(tolerance).maxRuns(maxRuns);
    CapacityResult result;
    try (Target t = target.build()) {
      LevelRunner runner = new LevelRunner(t, workload, numPrompts, burstiness, spec.commandLine().getErr());
      result = search.run(runner::atRate);
    }
    out.printf(Locale.ROOT, "%12s | %14s | %-6s | %s%n", "rate req/s", slo.metric() + " p" + SweepCommand.trim(slo.p() * 100) + " ms",
        "result", "client");
    for (CapacityProbe p : result.probes()) {
      out.printf(Locale.ROOT, "%12.3f | %14.1f | %-6s | %s%n", p.rate(), p.value(), p.passed() ? "pass" : "FAIL",
          p.clientHealth().verdict());
    }
    result.warnings().forEach(w -> out.println("WARNING " + w));
    if (result.capacity().isEmpty()) {
      out.println("No rate met " + slo.name() + " (lowest tried " + minRate + " req/s)");
      out.println("GATE FAILED: exit code " + Infermark.GATE_FAILED);
      return Infermark.GATE_FAILED;
    }
    double capacity = result.capacity().getAsDouble();
    out.printf(Locale.ROOT, "Capacity: %.3f req/s meet %s%s (%d runs)%n", capacity, slo.name(),
        result.limitedByMaxRate() ? " (limited by --max-rate)" : "", result.runs());
    if (minCapacity != null && capacity < minCapacity) {
      out.printf(Locale.ROOT, "GATE FAILED: capacity %.3f < --min-capacity %s: exit code %d%n", capacity, minCapacity,
          Infermark.GATE_FAILED);
      return Infermark.GATE_FAILED;
    }
    out.flush();
    return Infermark.OK;
  }

  private static double percentile(RunResult run, LatencySlo slo) {
    return RunSummary.of(run).distribution(slo.metric()).percentile(slo.p()).orElse(Double.NaN);
  }
}
