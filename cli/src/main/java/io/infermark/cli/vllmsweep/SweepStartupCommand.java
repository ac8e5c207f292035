package io.infermark.cli.vllmsweep;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code bench sweep startup}: vLLM's {@code vllm bench sweep startup}, measuring a server's start-up time per
 * parameter combination. vLLM's {@code vllm bench startup} builds the engine in its own process; infermark starts
 * the server the command names and times it from launch to the first 200 on {@code GET /health}: {@code vllm bench
 * startup ARGS} becomes {@code vllm serve ARGS}, any other command is the server command itself. vLLM's
 * {@code --num-iters-cold} (each with fresh {@code VLLM_CACHE_ROOT} and {@code TORCHINDUCTOR_CACHE_DIR}
 * directories), {@code --num-iters-warmup} and {@code --num-iters-warm} are honoured and taken off the command;
 * {@code --output-json} names the result file.
 */
@Command(name = "startup", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Benchmark a server's start-up time over parameter combinations (vllm bench sweep startup): "
        + "from launch to the first 200 on GET /health, cold (fresh cache directories) and warm.",
        "Writes OUTPUT_DIR/EXPERIMENT/SERVE-<s>-STARTUP-<t>/run=N.json (vLLM's keys: avg_cold_startup_time, "
            + "cold_startup_times, cold_startup_percentiles, and the same for warm), summary.json, server.log, "
            + "and summary.csv."})
final class SweepStartupCommand implements Callable<Integer> {

  static final int[] PERCENTAGES = {10, 25, 50, 75, 90, 99};

  @ParentCommand
  VllmSweepCommand parent;

  @Option(names = "--startup-cmd", defaultValue = "vllm bench startup", paramLabel = "CMD",
      description = "The command whose start-up is measured: `vllm bench startup ARGS` runs `vllm serve ARGS`; "
          + "any other command is run as the server (default: ${DEFAULT-VALUE}).")
  String startupCmd;

  @Option(names = "--serve-params", paramLabel = "FILE",
      description = "JSON file of parameter combinations for the server command.")
  Path serveParams;

  @Option(names = "--startup-params", paramLabel = "FILE",
      description = "JSON file of parameter combinations for the startup command (e.g. num_iters_cold).")
  Path startupParams;

  @Option(names = "--strict-params",
      description = "vLLM: fail on parameters `vllm bench startup` does not take. infermark applies every parameter "
          + "to the server command (the server rejects what it does not take), so there is nothing to drop.")
  boolean strictParams;

  @Option(names = {"-o", "--output-dir"}, defaultValue = "results", paramLabel = "DIR",
      description = "The main directory to which results are written (default: ${DEFAULT-VALUE}).")
  Path outputDir;

  @Option(names = {"-e", "--experiment-name"}, paramLabel = "NAME",
      description = "The name of this experiment (default: the current time); results go to OUTPUT_DIR/NAME.")
  String experimentName;

  @Option(names = "--num-runs", defaultValue = "1", paramLabel = "N",
      description = "Number of runs per parameter combination (default: ${DEFAULT-VALUE}).")
  int numRuns;

  @Option(names = "--show-stdout", description = "Print each run's results table and the server's log.")
  boolean showStdout;

  @Option(names = "--dry-run", description = "Print the commands to run, then exit without running them.")
  boolean dryRun;

  @Option(names = "--resume", description = "Continue an experiment (-e NAME): run only what has no result file.")
  boolean resume;

  @Option(names = "--server-ready-timeout", defaultValue = "300", paramLabel = "SECONDS",
      description = "infermark: seconds a start may take before it is a failure (default: ${DEFAULT-VALUE}).")
  int serverReadyTimeout;

  @Override
  public Integer call() {
    if (numRuns < 1) {
      throw new IllegalArgumentException("--num-runs should be at least 1, was " + numRuns);
    }
    if (serverReadyTimeout < 1) {
      throw new IllegalArgumentException("--server-ready-timeout should be at least 1 second");
    }
    SweepContext ctx = parent.context();
    List<String> cmd = ServeSweepOptions.words(startupCmd, "--startup-cmd");
    List<SweepParams.Item> serves = serveParams == null ? SweepParams.none()
        : SweepParams.read(serveParams, "--serve-params");
    List<SweepParams.Item> startups = startupParams == null ? SweepParams.none()
        : SweepParams.read(startupParams, "--startup-params");
    String name = experimentName != null ? experimentName
        : java.time.LocalDateTime.now().format(java.time.format.DateTimeFormatter.ofPattern("yyyyMMdd_HHmmss"));
    Path dir = ServeSweepOptions.resolveExperimentDir(outputDir.resolve(name), resume);
    if (strictParams) {
      ctx.out().println("--strict-params: every parameter is applied to the server command, which rejects what it "
          + "does not take");
    }
    return VllmSweepCommand.guarded(ctx, "startup", dir, dryRun, () -> {
      List<ObjectNode> all = new ArrayList<>();
      for (SweepParams.Item serve : serves) {
        for (SweepParams.Item startup : startups) {
          Path base = combDir(dir, serve, startup);
          List<ObjectNode> data = new ArrayList<>();
          for (int n = 0; n < numRuns; n++) {
            runOne(ctx, cmd, serve, startup, n, ServeSweep.runPath(base, Optional.of(n))).ifPresent(data::add);
          }
          if (!dryRun) {
            SweepFiles.write(ServeSweep.runPath(base, Optional.empty()), SweepFiles.array(data));
            all.addAll(data);
          }
        }
      }
      if (!dryRun) {
        SweepFiles.writeCsv(dir.resolve("summary.csv"), all);
      }
    });
  }

  static Path combDir(Path dir, SweepParams.Item serve, SweepParams.Item startup) {
    List<String> parts = new ArrayList<>();
    if (!serve.isEmpty()) {
      parts.add("SERVE-");
      parts.add(serve.name());
    }
    if (!startup.isEmpty()) {
      parts.add("STARTUP-");
      parts.add(startup.name());
    }
    return dir.resolve(SweepFiles.sanitize(String.join("-", parts)));
  }

  private Optional<ObjectNode> runOne(SweepContext ctx, List<String> startupCmd, SweepParams.Item serve,
      SweepParams.Item startup, int runNumber, Path output) {
    List<String> cmd = startup.applyTo(serve.applyTo(startupCmd));
    cmd = new ArrayList<>(strip(cmd, "--output-json", "--output_json").command());
    cmd.addAll(List.of("--output-json", output.toString()));
    PrintWriter out = ctx.out();
    out.println("[BEGIN BENCHMARK]");
    out.println("Serve overrides: " + serve);
    out.println("Startup overrides: " + startup);
    out.println("Run Number: " + runNumber);
    out.println("Benchmark command: " + Shlex.repr(cmd));
    out.println("Output file: " + output);
    if (Files.exists(output)) {
      out.println("Found existing results.");
      out.println("[SKIPPED BENCHMARK]");
      return Optional.of(ServeSweep.update((ObjectNode) SweepFiles.read(output), serve, startup, runNumber));
    }
    ctx.checkStop();
    Plan plan = plan(cmd);
    out.println("Server command: " + Shlex.repr(plan.server()) + " (cold " + plan.cold() + ", warmup "
        + plan.warmup() + ", warm " + plan.warm() + ")");
    if (dryRun) {
      out.println("[END BENCHMARK]");
      return Optional.empty();
    }
    Path log = output.resolveSibling("server.log");
    double[] cold = new double[plan.cold()];
    double[] warm = new double[plan.warm()];
    for (int i = 0; i < plan.cold(); i++) {
      ctx.checkStop();
      cold[i] = coldStart(ctx, plan.server(), log, "cold " + (i + 1));
    }
    for (int i = 0; i < plan.warmup(); i++) {
      ctx.checkStop();
      start(ctx, plan.server(), log, "warmup " + (i + 1), Map.of());
    }
    for (int i = 0; i < plan.warm(); i++) {
      ctx.checkStop();
      warm[i] = start(ctx, plan.server(), log, "warm " + (i + 1), Map.of());
    }
    ObjectNode result = SweepParams.JSON.createObjectNode();
    metric(result, "cold_startup", cold);
    metric(result, "warm_startup", warm);
    if (showStdout) {
      printResults(out, cold, warm);
    } else {
      out.printf(Locale.ROOT, "Avg startup time: cold %s s, warm %s s%n", avgText(cold), avgText(warm));
    }
    ObjectNode data = ServeSweep.update(result, serve, startup, runNumber);
    SweepFiles.write(output, data);
    out.println("[END BENCHMARK]");
    return Optional.of(data);
  }

  private static String avgText(double[] v) {
    return v.length == 0 ? "-" : String.format(Locale.ROOT, "%.2f", mean(v));
  }

  /** A cold start: fresh, emptied cache directories for vLLM and torch.compile, removed afterwards. */
  private double coldStart(SweepContext ctx, List<String> server, Path log, String label) {
    Path tmp;
    try {
      tmp = Files.createTempDirectory("infermark_startup_bench_cold_");
    } catch (IOException e) {
      throw new IllegalStateException("cannot create a temporary cache directory: " + e.getMessage());
    }
    try {
      return start(ctx, server, log, label, Map.of("VLLM_CACHE_ROOT", tmp.toString(), "TORCHINDUCTOR_CACHE_DIR",
          tmp.resolve("inductor").toString()));
    } finally {
      try (Stream<Path> files = Files.walk(tmp)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException e) {
        // a temporary directory left behind is the OS's to clean
      }
    }
  }

  /** One start, from launch to the first 200 on /health, in seconds; the server is stopped before it returns. */
  private double start(SweepContext ctx, List<String> server, Path log, String label, Map<String, String> env) {
    SweepFiles.append(log, "=== infermark bench sweep startup: " + label + " start: " + Shlex.join(server) + "\n");
    ServerProcess p = ServerProcess.start(server, log, env, ctx.clock());
    try {
      double seconds = p.awaitReady(Duration.ofSeconds(serverReadyTimeout), ctx::checkStop);
      ctx.out().printf(Locale.ROOT, "Startup (%s): %.3f s%n", label, seconds);
      return seconds;
    } finally {
      p.stop(ctx.stopGrace());
      if (showStdout) {
        ctx.out().print(p.logSinceLastCall());
      }
    }
  }

  /** The server command and the iteration counts a startup command asks for. */
  record Plan(List<String> server, int cold, int warmup, int warm) {
  }

  static Plan plan(List<String> cmd) {
    Stripped s = strip(cmd, "--output-json", "--output_json");
    Stripped c = strip(s.command(), "--num-iters-cold", "--num_iters_cold");
    Stripped w = strip(c.command(), "--num-iters-warmup", "--num_iters_warmup");
    Stripped m = strip(w.command(), "--num-iters-warm", "--num_iters_warm");
    List<String> server = new ArrayList<>(m.command());
    if (server.size() >= 3 && Path.of(server.get(0)).getFileName().toString().equals("vllm")
        && server.get(1).equals("bench") && server.get(2).equals("startup")) {
      server.subList(1, 3).clear();
      server.add(1, "serve");
    }
    return new Plan(server, count(c, 3, "--num-iters-cold"), count(w, 1, "--num-iters-warmup"),
        count(m, 3, "--num-iters-warm"));
  }

  private static int count(Stripped s, int fallback, String option) {
    if (s.value().isEmpty()) {
      return fallback;
    }
    try {
      int n = Integer.parseInt(s.value().get());
      if (n < 0) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " must be a count (0 or more), was " + s.value().get());
    }
  }

  /** A command without an option, and the option's last value. */
  record Stripped(List<String> command, Optional<String> value) {
  }

  /** vLLM's {@code _strip_arg}: the command without {@code key value} and {@code key=value} of any of the keys. */
  static Stripped strip(List<String> cmd, String... keys) {
    List<String> out = new ArrayList<>();
    Optional<String> value = Optional.empty();
    for (int i = 0; i < cmd.size(); i++) {
      String a = cmd.get(i);
      String key = Arrays.stream(keys).filter(k -> a.equals(k) || a.startsWith(k + "=")).findFirst().orElse(null);
      if (key == null) {
        out.add(a);
      } else if (a.equals(key)) {
        value = i + 1 < cmd.size() ? Optional.of(cmd.get(++i)) : value;
      } else {
        value = Optional.of(a.substring(key.length() + 1));
      }
    }
    return new Stripped(out, value);
  }

  /** vLLM's keys of one metric: {@code avg_<key>_time}, {@code <key>_times}, {@code <key>_percentiles}. */
  static void metric(ObjectNode json, String key, double[] values) {
    if (values.length == 0) {
      json.putNull("avg_" + key + "_time");
    } else {
      json.put("avg_" + key + "_time", mean(values));
    }
    ArrayNode times = json.putArray(key + "_times");
    Arrays.stream(values).forEach(times::add);
    ObjectNode pct = json.putObject(key + "_percentiles");
    if (values.length > 0) {
      for (int p : PERCENTAGES) {
        pct.put(Integer.toString(p), percentile(values, p));
      }
    }
  }

  static double mean(double[] v) {
    return Arrays.stream(v).sum() / v.length;
  }

  /** numpy's default percentile: linear interpolation between the two nearest ranks. */
  static double percentile(double[] values, double p) {
    double[] s = values.clone();
    Arrays.sort(s);
    double pos = (s.length - 1) * p / 100;
    int lo = (int) Math.floor(pos);
    int hi = Math.min(lo + 1, s.length - 1);
    return s[lo] + (s[hi] - s[lo]) * (pos - lo);
  }

  private static void printResults(PrintWriter out, double[] cold, double[] warm) {
    out.println();
    out.println("=".repeat(60));
    out.println("STARTUP TIME BENCHMARK RESULTS");
    out.println("=".repeat(60));
    phase(out, "COLD STARTUP", cold);
    phase(out, "WARM STARTUP", warm);
    out.println("=".repeat(60));
  }

  private static void phase(PrintWriter out, String name, double[] v) {
    out.println();
    out.println(name + ":");
    if (v.length == 0) {
      out.println("(no iterations)");
      return;
    }
    out.printf(Locale.ROOT, "Avg startup time: %.2f seconds%n", mean(v));
    out.println("Startup time percentiles:");
    for (int p : PERCENTAGES) {
      out.printf(Locale.ROOT, "  %d%%: %.2f seconds%n", p, percentile(v, p));
    }
  }
}
