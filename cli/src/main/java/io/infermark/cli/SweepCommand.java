package io.infermark.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.infermark.attribution.knee.Kneedle;
import io.infermark.attribution.knee.SlopeThreshold;
import io.infermark.attribution.knee.SweepKnees;
import io.infermark.cli.options.TargetOptions;
import io.infermark.core.RunResult;
import io.infermark.core.protocol.Target;
import io.infermark.core.sweep.Sweep;
import io.infermark.core.sweep.SweepPoint;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.journal.RecordsJournal;
import io.infermark.metrics.report.JsonReport;
import io.infermark.metrics.report.VllmResultJson;
import io.infermark.metrics.report.VllmResultOptions;
import io.infermark.metrics.slo.SloSet;
import io.infermark.metrics.timeseries.TimeSeries;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
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
 * {@code infermark sweep}: one run per load level (request rates or concurrencies), each level's row printed
 * the moment it completes, the knee of the latency curve, and the last level that meets the gates. With
 * {@code --result-dir} every level's vLLM and infermark JSON and records journal are written as the level ends,
 * and one sweep summary JSON at the end; an interrupted sweep (a signal, {@code --max-duration}) keeps its
 * finished levels.
 */
@Command(name = "sweep", mixinStandardHelpOptions = true, sortOptions = false,
    resourceBundle = "io.infermark.cli.help.sweep",
    description = {"Run one benchmark per load level (--rates or --concurrencies) and find the knee of the "
        + "latency curve (Kneedle and a slope threshold); with --slo, the last level meeting every gate.",
        "Each level's row is printed as soon as it completes. With --result-dir, each level's vLLM JSON, infermark "
            + "JSON and records journal are written as it ends, and NAME.sweep.json (levels, knee, gates) at the end.",
        "SIGINT/SIGTERM stop the level in progress (drained for --drain-timeout), keep the finished levels and exit "
            + "130/143; --max-duration bounds the whole sweep.",
        "Target and dataset flags are bench's."},
    footer = {"", "Exit codes: 0 ok, 1 no level met the --slo gates, 2 bad flags, 3 failure or an output could not be "
        + "written, 130/143 interrupted by SIGINT/SIGTERM."})
final class SweepCommand implements Callable<Integer> {

  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

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

  @Mixin
  RunBoundOptions.NumPrompts numPrompts = new RunBoundOptions.NumPrompts(200);

  @Option(names = "--burstiness", defaultValue = "1.0", description = "Gamma shape of the arrivals at each rate (default: ${DEFAULT-VALUE}).")
  double burstiness;

  @Option(names = "--knee-metric", defaultValue = "ttft", description = "Metric of the latency curve: ttft, itl, tpot, e2e (default: ${DEFAULT-VALUE}; seed 002's knee is "
          + "on P99 e2e).")
  String kneeMetric;

  @Option(names = "--knee-percentile", defaultValue = "99", description = "Percentile of the latency curve (default: ${DEFAULT-VALUE}).")
  double kneePercentile;

  @Option(names = "--slope-threshold", defaultValue = "120",
      description = "Slope (ms of latency per achieved req/s) above which the curve counts as past the knee (default: ${DEFAULT-VALUE}).")
  double slopeThreshold;

  @Mixin
  RunBoundOptions.MaxDuration maxDuration = new RunBoundOptions.MaxDuration();

  @Mixin
  RunBoundOptions.DrainTimeout drainTimeout = new RunBoundOptions.DrainTimeout();

  @Option(names = "--result-dir", paramLabel = "DIR",
      description = "Write each level's vLLM JSON, infermark JSON and records journal, and the sweep summary, here.")
  Path resultDir;

  @Option(names = "--result-filename", paramLabel = "NAME", defaultValue = "sweep",
      description = "Stem of the files written in --result-dir (default: ${DEFAULT-VALUE}): NAME-rate-4.json, "
          + "NAME-streams-8.infermark.json, NAME.sweep.json, ...")
  String resultFilename;

  @Mixin
  SloOptions slo = new SloOptions();

  @Mixin
  HtmlOptions html = new HtmlOptions();

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (rates.isEmpty() == concurrencies.isEmpty()) {
      throw new IllegalArgumentException("give --rates or --concurrencies (one of them)");
    }
    var metric = SloOptions.parseSlo(kneeMetric + ":p" + kneePercentile + ":0");
    io.infermark.metrics.slo.LatencySlo curve = (io.infermark.metrics.slo.LatencySlo) metric;
    Optional<SloSet> gates = slo.gates();
    Duration drain = drainTimeout.duration();
    if (numPrompts.value < 1) {
      throw new IllegalArgumentException("--num-prompts must be >= 1, was " + numPrompts.value);
    }
    target.resolveModel(err);
    LevelRunner.Deadline deadline = maxDuration.deadline();
    StopSignals signals = StopSignals.current(err);
    OutputFiles outputs = new OutputFiles();
    String variable = rates.isEmpty() ? "streams" : "rate";
    List<LevelFiles> levelFiles = new ArrayList<>();
    java.util.concurrent.atomic.AtomicReference<Number> lastPassing = new java.util.concurrent.atomic.AtomicReference<>();
    List<? extends SweepPoint<? extends Number>> points;
    try (Target t = target.build()) {
      LevelRunner runner = new LevelRunner(t, workload, VllmCompatOptions.levelParams(workload, target, err),
          numPrompts.value, burstiness, err, signals, drain, deadline,
          level -> Optional.ofNullable(resultDir).map(d -> d.resolve(levelStem(variable, level) + RecordsJournal.SUFFIX)),
          outputs);
      // Offered (the level) beside achieved (successful req/s): the knee is found on the achieved axis (seed 002 §3.2).
      out.printf(Locale.ROOT, "%10s | %8s | %7s | %10s | %12s | %11s | %11s | %-12s%s%n", variable.equals("rate")
          ? "rate req/s" : "streams", "measured", "failed", "achieved/s", "output tok/s", "P99 TTFT ms", "P99 E2E ms",
          "client", gates.isPresent() ? " | gates" : "");
      out.flush();
      java.util.function.BooleanSupplier stop = () -> signals.received() || deadline.passed();
      if (!rates.isEmpty()) {
        points = Sweep.rates(rates.stream().mapToDouble(Double::doubleValue).toArray()).run(runner::atRate,
            p -> levelDone(out, p, gates, variable, outputs, levelFiles, lastPassing), stop);
      } else {
        points = Sweep.concurrency(concurrencies.stream().mapToInt(Integer::intValue).toArray())
            .run(runner::atConcurrency, p -> levelDone(out, p, gates, variable, outputs, levelFiles, lastPassing),
                stop);
      }
    }
    int planned = rates.isEmpty() ? concurrencies.size() : rates.size();
    Optional<String> stopped = stoppedBecause(points, planned, signals, deadline);
    stopped.ifPresent(why -> out.println("Sweep stopped after " + points.size() + " of " + planned + " levels: " + why));
    SweepKnees knees = SweepKnees.ofSweep(points, curve.metric(), curve.p(), Kneedle.latencyCurve(),
        SlopeThreshold.of(slopeThreshold));
    out.println();
    out.printf(Locale.ROOT, "Knee of the P%s %s curve against achieved req/s%s:%n", trim(kneePercentile), curve.metric(),
        curve.metric() == SweepKnees.SEED_002_METRIC && kneePercentile == 99 ? " (seed 002's knee)"
            : " (seed 002's knee is on P99 E2E: --knee-metric e2e)");
    knees.clientWarnings().forEach(w -> out.println("  WARNING client not trustworthy at " + w));
    out.println("  Kneedle: " + knees.kneedleLabel().orElse("none found"));
    out.println("  Slope above " + trim(slopeThreshold) + " ms per achieved req/s: " + knees.slopeLabel()
        .map(l -> "reached at " + l + ", last acceptable level " + knees.lastAcceptableLabel().orElse("none"))
        .orElse("never"));
    Path page = resultDir != null ? resultDir.resolve(resultFilename + ".sweep.html") : Path.of("infermark-sweep.html");
    html.file(page).ifPresent(file -> {
      if (outputs.write(file, p -> SweepPage.write(points, knees, curve, rates.isEmpty(), p))) {
        out.println("Wrote " + file + " (latency-load curve)");
      }
    });
    if (gates.isPresent()) {
      out.println("Last level meeting every gate: " + Optional.ofNullable(lastPassing.get()).map(Object::toString)
          .orElse("none"));
    }
    if (resultDir != null) {
      Path summary = resultDir.resolve(resultFilename + ".sweep.json");
      ObjectNode root = summaryJson(variable, curve, knees, gates.isPresent(), Optional.ofNullable(lastPassing.get()),
          levelFiles, stopped, planned);
      if (outputs.write(summary, p -> JSON.writeValue(p.toFile(), root))) {
        out.println("Wrote " + summary + " and " + levelFiles.size() + " levels' files in " + resultDir);
      }
    }
    out.flush();
    if (outputs.anyFailed()) {
      err.println("infermark: " + outputs.failureLine() + ": exit code " + Infermark.FAILED);
      err.flush();
      return Infermark.FAILED;
    }
    if (signals.received()) {
      err.println("infermark: sweep interrupted by " + signals.signal().orElseThrow() + "; its finished levels are "
          + "kept: exit code " + signals.exitCode());
      err.flush();
      return signals.exitCode();
    }
    if (gates.isPresent() && lastPassing.get() == null) {
      out.println("GATE FAILED: exit code " + Infermark.GATE_FAILED);
      out.flush();
      return Infermark.GATE_FAILED;
    }
    return Infermark.OK;
  }

  /** What one level wrote. */
  private record LevelFiles(SweepPoint<? extends Number> point, RunSummary summary, Optional<Boolean> passed,
      Optional<Path> vllm, Optional<Path> report, Optional<Path> records) {}

  /** A level ended: its row now, its files now. */
  private void levelDone(PrintWriter out, SweepPoint<? extends Number> p, Optional<SloSet> gates, String variable,
      OutputFiles outputs, List<LevelFiles> levelFiles, java.util.concurrent.atomic.AtomicReference<Number> lastPassing) {
    RunResult r = p.result();
    RunSummary s = RunSummary.of(r);
    Optional<Boolean> pass = gates.map(g -> g.evaluate(r, s).allPassed() && !r.clientHealth().isClientBound());
    if (pass.orElse(false)) {
      lastPassing.set(p.level());
    }
    out.printf(Locale.ROOT, "%10s | %8d | %7d | %10.2f | %12.1f | %11.1f | %11.1f | %-12s%s%s%n", p.level(),
        s.requests().measured(), s.requests().failed(), or(s.requestThroughputRps()), or(s.outputTokenThroughputTps()),
        or(s.distribution(LatencyMetric.TTFT).p99()), or(s.distribution(LatencyMetric.E2E).p99()),
        r.clientHealth().verdict(), pass.map(ok -> ok ? " | pass" : " | FAIL").orElse(""),
        r.interruption().map(i -> "  (interrupted: " + i.reason() + ")").orElse(""));
    out.flush();
    Optional<Path> vllm = Optional.empty();
    Optional<Path> report = Optional.empty();
    Optional<Path> records = Optional.empty();
    if (resultDir != null) {
      String stem = levelStem(variable, label(p.level()));
      Path v = resultDir.resolve(stem + ".json");
      Path j = resultDir.resolve(stem + ".infermark.json");
      VllmResultOptions options = levelOptions(variable, p.level(), r);
      if (outputs.write(v, f -> VllmResultJson.write(r, options, f))) {
        vllm = Optional.of(v);
      }
      JsonReport.Extras extras = JsonReport.Extras.NONE.withSeries(TimeSeries.of(r));
      if (gates.isPresent()) {
        extras = extras.withSlo(gates.get().evaluate(r, s));
      }
      JsonReport.Extras e = extras;
      if (outputs.write(j, f -> JsonReport.write(s, e, f))) {
        report = Optional.of(j);
      }
      Path journal = resultDir.resolve(stem + RecordsJournal.SUFFIX);
      if (!outputs.failures().containsKey(journal)) {
        records = Optional.of(journal);
      }
    }
    levelFiles.add(new LevelFiles(p, s, pass, vllm, report, records));
  }

  /** A level as files and logs name it: {@code 4}, {@code 2.5}, {@code 16}. */
  static String label(Number level) {
    return level instanceof Double d ? trim(d) : level.toString();
  }

  private String levelStem(String variable, String level) {
    return resultFilename + "-" + variable + "-" + level;
  }

  private VllmResultOptions levelOptions(String variable, Number level, RunResult r) {
    VllmResultOptions.Builder b = VllmResultOptions.builder(target.backendName(), target.model())
        .numPrompts(numPrompts.value).chat(target.chat()).burstiness(burstiness)
        .date(LocalDateTime.ofInstant(r.startedAt(), ZoneOffset.UTC));
    if (variable.equals("rate")) {
      b.requestRate(level.doubleValue());
    } else {
      b.requestRate(Double.POSITIVE_INFINITY).maxConcurrency(level.intValue());
    }
    if (workload.tokenizer != null) {
      b.tokenizerId(workload.tokenizer);
    }
    return b.build();
  }

  private static Optional<String> stoppedBecause(List<? extends SweepPoint<? extends Number>> points, int planned,
      StopSignals signals, LevelRunner.Deadline deadline) {
    if (signals.received()) {
      return Optional.of("interrupted by " + signals.signal().orElseThrow());
    }
    Optional<String> interrupted = points.stream().map(p -> p.result().interruption()).flatMap(Optional::stream)
        .map(i -> i.reason()).findFirst();
    if (interrupted.isPresent()) {
      return interrupted;
    }
    if (points.size() < planned && deadline.passed()) {
      return Optional.of("--max-duration reached");
    }
    return Optional.empty();
  }

  private ObjectNode summaryJson(String variable, io.infermark.metrics.slo.LatencySlo curve, SweepKnees knees,
      boolean gated, Optional<Number> lastPassing, List<LevelFiles> levels, Optional<String> stopped, int planned) {
    ObjectNode root = JSON.createObjectNode();
    root.put("format", "infermark-sweep/1");
    root.put("variable", variable);
    root.put("levels_planned", planned);
    root.put("levels_run", levels.size());
    if (stopped.isPresent()) {
      root.put("stopped", stopped.get());
    } else {
      root.putNull("stopped");
    }
    ArrayNode list = root.putArray("levels");
    for (LevelFiles l : levels) {
      ObjectNode n = list.addObject();
      n.put("level", l.point().level().doubleValue());
      RunResult r = l.point().result();
      n.put("started_at", r.startedAt().toString());
      n.put("measured", l.summary().requests().measured());
      n.put("failed", l.summary().requests().failed());
      number(n, "request_throughput_rps", l.summary().requestThroughputRps());
      number(n, "output_tokens_per_s", l.summary().outputTokenThroughputTps());
      number(n, "p99_ttft_ms", l.summary().distribution(LatencyMetric.TTFT).p99());
      number(n, "p99_e2e_ms", l.summary().distribution(LatencyMetric.E2E).p99());
      n.put("client_health", r.clientHealth().verdict().name());
      if (l.passed().isPresent()) {
        n.put("gates_passed", l.passed().get());
      }
      if (r.interruption().isPresent()) {
        n.put("interrupted", r.interruption().get().reason());
      }
      ObjectNode files = n.putObject("files");
      l.vllm().ifPresent(f -> files.put("vllm", f.getFileName().toString()));
      l.report().ifPresent(f -> files.put("infermark", f.getFileName().toString()));
      l.records().ifPresent(f -> files.put("records", f.getFileName().toString()));
    }
    ObjectNode knee = root.putObject("knee");
    knee.put("metric", curve.metric().name());
    knee.put("percentile", kneePercentile);
    knee.put("kneedle", knees.kneedleLabel().orElse(null));
    knee.put("slope_threshold_ms_per_unit", slopeThreshold);
    knee.put("slope_reached_at", knees.slopeLabel().orElse(null));
    knee.put("last_acceptable", knees.lastAcceptableLabel().orElse(null));
    ArrayNode warnings = knee.putArray("client_warnings");
    knees.clientWarnings().forEach(warnings::add);
    ObjectNode g = root.putObject("gates");
    g.put("given", gated);
    if (lastPassing.isPresent()) {
      g.put("last_passing_level", lastPassing.get().doubleValue());
    } else {
      g.putNull("last_passing_level");
    }
    return root;
  }

  private static void number(ObjectNode n, String key, OptionalDouble v) {
    if (v.isPresent() && Double.isFinite(v.getAsDouble())) {
      n.put(key, v.getAsDouble());
    } else {
      n.putNull(key);
    }
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
