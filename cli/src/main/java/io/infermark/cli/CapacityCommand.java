package io.infermark.cli;

import io.infermark.cli.options.DurationText;
import io.infermark.cli.options.TargetOptions;
import io.infermark.core.RunResult;
import io.infermark.core.protocol.Target;
import io.infermark.core.sweep.CapacityAxis;
import io.infermark.core.sweep.CapacityResult;
import io.infermark.core.sweep.CapacitySearch;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.slo.LatencySlo;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.DoubleFunction;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code infermark capacity}: the highest request rate ({@code --search rate}) or the largest closed-loop
 * concurrency ({@code --search concurrency}, seed 002's "RPS at P95 ≤ 2 s") whose run meets a latency objective,
 * found by bracketing and interpolation ({@link CapacitySearch}).
 */
@Command(name = "capacity", mixinStandardHelpOptions = true, sortOptions = false,
    resourceBundle = "io.infermark.cli.help.capacity",
    description = {"Find the highest request rate (Poisson, --search rate, the default) or the largest closed-loop "
        + "concurrency (--search concurrency: seed 002's \"max concurrency at P95 <= 2 s\") whose run meets a latency "
        + "objective, in few runs: bracketing by doubling, then interpolation. Each probe's row is printed as soon as "
        + "it ends; the console and --result-json say which search ran.",
        "A probe whose client was CLIENT_BOUND never counts as passing, and ends the search: its figures are the "
            + "client's. Probes at low rates last at most --probe-duration; --max-duration bounds the whole search; "
            + "SIGINT/SIGTERM stop it with the capacity found so far (exit 130/143).",
        "Target and dataset flags are bench's."},
    footer = {"", "Exit codes: 0 a capacity was found (and is at least --min-capacity), 1 none was, 2 bad flags, 3 failure, "
        + "130/143 interrupted by SIGINT/SIGTERM."})
final class CapacityCommand implements Callable<Integer> {

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Mixin
  TargetOptions target = new TargetOptions();

  @Mixin
  WorkloadOptions workload = new WorkloadOptions();

  @Option(names = "--objective", paramLabel = "METRIC:PCT:MS", defaultValue = SEED_002_OBJECTIVE,
      description = "The objective each probe must meet, e.g. ttft:p99:500 (metrics ttft, ttfc, itl, tpot, ntpot, e2e; "
          + "default: ${DEFAULT-VALUE}, seed 002's P95 end-to-end latency <= 2 s).")
  String objective;

  @Option(names = "--search", paramLabel = "rate|concurrency", defaultValue = "rate",
      description = "What to search: the highest Poisson request rate (rate, the default) or the largest number of "
          + "closed-loop streams (concurrency), each probe sending --num-prompts requests.")
  String searchAxis;

  @Option(names = "--start-concurrency", defaultValue = "1",
      description = "With --search concurrency: first concurrency tried (default: ${DEFAULT-VALUE}).")
  int startConcurrency;

  @Option(names = "--max-concurrency", defaultValue = "1024",
      description = "With --search concurrency: highest concurrency tried (default: ${DEFAULT-VALUE}).")
  int maxConcurrency;

  @Option(names = "--result-json", paramLabel = "FILE",
      description = "Write the search (which axis, the objective, every probe, the capacity) as JSON here.")
  java.nio.file.Path resultJson;

  /** Seed 002's objective: "系统在P95延迟≤2s前提下" (with P95 latency at most 2 s), end to end. */
  static final String SEED_002_OBJECTIVE = "e2e:p95:2000";

  @Mixin
  RunBoundOptions.NumPrompts numPrompts = new RunBoundOptions.NumPrompts(200);

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

  @Option(names = "--min-capacity", paramLabel = "RPS|STREAMS",
      description = "A gate: exit 1 unless the capacity is at least this (req/s, or streams with --search concurrency).")
  Double minCapacity;

  @Option(names = "--probe-duration", paramLabel = "DURATION", converter = DurationText.class, defaultValue = "60s",
      description = "How long a probe lasts at most: a probe sends --num-prompts requests, or fewer at low rates, "
          + "as many as arrive in this time (at least 10), so probes at low rates do not run for hours "
          + "(default: ${DEFAULT-VALUE}).")
  Duration probeDuration;

  @Mixin
  MonitorOptions monitors = new MonitorOptions();

  @Mixin
  RunBoundOptions.MaxDuration maxDuration = new RunBoundOptions.MaxDuration();

  @Mixin
  RunBoundOptions.DrainTimeout drainTimeout = new RunBoundOptions.DrainTimeout();

  /** The smallest probe at a low rate, unless --num-prompts is smaller. */
  static final int MIN_PROBE_REQUESTS = 10;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    LatencySlo slo = (LatencySlo) SloOptions.parseSlo(objective);
    CapacityAxis axis = axis(searchAxis);
    boolean streams = axis == CapacityAxis.CONCURRENCY;
    for (String flag : streams ? List.of("--start-rate", "--min-rate", "--max-rate", "--burstiness", "--probe-duration")
        : List.of("--start-concurrency", "--max-concurrency")) {
      if (spec.commandLine().getParseResult() != null && spec.commandLine().getParseResult().hasMatchedOption(flag)) {
        throw new IllegalArgumentException(flag + " applies to --search " + (streams ? "rate" : "concurrency")
            + ", not to --search " + axis.word());
      }
    }
    CapacitySearch search = CapacitySearch.atMost(run -> percentile(run, slo), slo.thresholdMillis())
        .tolerance(tolerance).maxRuns(maxRuns);
    if (streams) {
      if (startConcurrency < 1 || maxConcurrency < startConcurrency) {
        throw new IllegalArgumentException("need 1 <= --start-concurrency <= --max-concurrency, were "
            + startConcurrency + " and " + maxConcurrency);
      }
      search = search.overConcurrency().startRate(startConcurrency).minRate(1).maxRate(maxConcurrency);
    } else {
      search = search.startRate(startRate).minRate(minRate).maxRate(maxRate);
    }
    Duration drain = drainTimeout.duration();
    target.resolveModel(err);
    LevelRunner.Deadline deadline = maxDuration.deadline();
    StopSignals signals = StopSignals.current(err);
    OutputFiles outputs = new OutputFiles();
    CapacityResult result;
    String unit = axis.unit();
    try (Target t = target.build()) {
      LevelRunner runner = new LevelRunner(t, workload, VllmCompatOptions.levelParams(workload, target, err),
          numPrompts.value, burstiness, err, signals, drain, deadline,
          level -> Optional.empty(), outputs).monitoring(monitors);
      out.println(streams
          ? "Searching the largest closed-loop concurrency (streams) that meets " + slo.name()
          : "Searching the highest request rate (Poisson arrivals, req/s) that meets " + slo.name());
      out.printf(Locale.ROOT, "%12s | %8s | %14s | %-6s | %s%n", streams ? "streams" : "rate req/s", "requests",
          slo.metric() + " p" + SweepCommand.trim(slo.p() * 100) + " ms", "result", "client");
      out.flush();
      DoubleFunction<RunResult> probe = streams ? level -> runner.atConcurrency((int) level)
          : rate -> runner.atRate(rate, probeRequests(rate));
      result = search.run(probe, p -> {
        out.printf(Locale.ROOT, "%12s | %8d | %14.1f | %-6s | %s%s%n",
            streams ? Long.toString((long) p.rate()) : level(axis, p.rate()),
            p.result().schedule().sent(), p.value(), p.passed() ? "pass" : p.refusedAsClientBound() ? "REFUSED" : "FAIL",
            p.clientHealth().verdict(), p.result().interruption().map(i -> "  (interrupted: " + i.reason() + ")")
                .orElse(""));
        out.flush();
      }, () -> signals.received() || deadline.passed());
    }
    result.warnings().forEach(w -> out.println("WARNING " + w));
    result.stoppedEarly().ifPresent(why -> out.println("Search stopped early: " + why));
    if (result.stoppedEarly().isPresent() && deadline.passed() && !signals.received()) {
      out.println("  (--max-duration " + maxDuration.value + " reached after " + result.runs() + " probes)");
    }
    if (resultJson != null && outputs.write(resultJson, f -> CapacityJson.write(result, slo, f))) {
      out.println("Wrote " + resultJson);
    }
    String what = streams ? "concurrency" : "rate";
    if (signals.received()) {
      out.println(result.capacity().isPresent()
          ? String.format(Locale.ROOT, "Capacity so far (%s search): at least %s meet %s (%d runs)", what,
              level(axis, result.capacity().getAsDouble()), slo.name(), result.runs())
          : "No " + what + " met " + slo.name() + " before the search was interrupted");
      out.flush();
      err.println("infermark: capacity search interrupted by " + signals.signal().orElseThrow() + ": exit code "
          + signals.exitCode());
      err.flush();
      return signals.exitCode();
    }
    if (outputs.anyFailed()) {
      err.println("infermark: " + outputs.failureLine() + ": exit code " + Infermark.FAILED);
      err.flush();
      return Infermark.FAILED;
    }
    if (result.capacity().isEmpty()) {
      out.println("No " + what + " met " + slo.name() + (result.stoppedEarly().isPresent() ? " before the search stopped"
          : " (lowest tried " + (streams ? "1 stream" : minRate + " req/s") + ")"));
      out.println("GATE FAILED: exit code " + Infermark.GATE_FAILED);
      out.flush();
      return Infermark.GATE_FAILED;
    }
    double capacity = result.capacity().getAsDouble();
    out.printf(Locale.ROOT, "Capacity (%s search): %s%s meet %s%s (%d runs)%n", what,
        result.stoppedEarly().isPresent() ? "at least " : "", streams ? level(axis, capacity)
            : String.format(Locale.ROOT, "%.3f req/s", capacity), slo.name(),
        result.limitedByMaxRate() ? (streams ? " (limited by --max-concurrency)" : " (limited by --max-rate)") : "",
        result.runs());
    if (minCapacity != null && capacity < minCapacity) {
      out.printf(Locale.ROOT, "GATE FAILED: capacity %s < --min-capacity %s: exit code %d%n",
          streams ? level(axis, capacity) : String.format(Locale.ROOT, "%.3f", capacity), minCapacity,
          Infermark.GATE_FAILED);
      out.flush();
      return Infermark.GATE_FAILED;
    }
    out.flush();
    return Infermark.OK;
  }

  /** The axis {@code --search} names. */
  static CapacityAxis axis(String word) {
    for (CapacityAxis a : CapacityAxis.values()) {
      if (a.word().equalsIgnoreCase(word.strip())) {
        return a;
      }
    }
    throw new IllegalArgumentException("--search takes rate or concurrency, was '" + word + "'");
  }

  /** A level as the rows show it: {@code 4.000} (req/s) or {@code 8 streams}. */
  private static String level(CapacityAxis axis, double level) {
    return axis == CapacityAxis.CONCURRENCY ? String.format(Locale.ROOT, "%d streams", (long) level)
        : String.format(Locale.ROOT, "%.4g", level);
  }

  /**
   * Requests in a probe at {@code rate}: --num-prompts, or as many as arrive in --probe-duration when that is
   * fewer, but at least {@value #MIN_PROBE_REQUESTS}.
   */
  int probeRequests(double rate) {
    long inDuration = (long) Math.ceil(rate * probeDuration.toNanos() / 1e9);
    return (int) Math.max(Math.min(numPrompts.value, MIN_PROBE_REQUESTS), Math.min(numPrompts.value, inDuration));
  }

  private static double percentile(RunResult run, LatencySlo slo) {
    return RunSummary.of(run).distribution(slo.metric()).percentile(slo.p()).orElse(Double.NaN);
  }
}
