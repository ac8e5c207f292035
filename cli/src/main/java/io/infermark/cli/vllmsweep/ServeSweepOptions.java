package io.infermark.cli.vllmsweep;

import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The options of {@code bench sweep serve} (and {@code serve_workload}), as vLLM's {@code SweepServeArgs} names
 * them.
 */
final class ServeSweepOptions {

  @Option(names = "--serve-cmd", required = true, paramLabel = "CMD",
      description = "The command used to run the server: `vllm serve ...` (a process started per --serve-params "
          + "combination).")
  String serveCmd;

  @Option(names = "--bench-cmd", required = true, paramLabel = "CMD",
      description = "The command used to run the benchmark: `vllm bench serve ...` or `infermark bench ...` runs "
          + "infermark's bench in this JVM; any other command runs as a process.")
  String benchCmd;

  @Option(names = "--after-bench-cmd", paramLabel = "CMD",
      description = "After a benchmark run is complete, invoke this command instead of resetting the server's "
          + "caches (POST /reset_prefix_cache, /reset_mm_cache, /reset_encoder_cache where the server offers them).")
  String afterBenchCmd;

  @Option(names = "--show-stdout", description = "Show the benchmark's standard output and the server's log.")
  boolean showStdout;

  @Option(names = "--server-ready-timeout", defaultValue = "300", paramLabel = "SECONDS",
      description = "Timeout in seconds to wait for the server to answer 200 on /health (default: ${DEFAULT-VALUE}).")
  int serverReadyTimeout;

  @Option(names = "--serve-params", paramLabel = "FILE",
      description = "JSON file of parameter combinations for the serve command: a list of objects, or an object of "
          + "named objects. With --bench-params, their Cartesian product is run.")
  Path serveParams;

  @Option(names = "--link-vars", defaultValue = "", paramLabel = "S=B,...",
      description = "Comma-separated serve=bench parameter pairs that must be equal for a combination to run, e.g. "
          + "max_num_seqs=max_concurrency.")
  String linkVars;

  @Option(names = "--bench-params", paramLabel = "FILE",
      description = "JSON file of parameter combinations for the bench command (as --serve-params).")
  Path benchParams;

  @Option(names = {"-o", "--output-dir"}, defaultValue = "results", paramLabel = "DIR",
      description = "The main directory to which results are written (default: ${DEFAULT-VALUE}).")
  Path outputDir;

  @Option(names = {"-e", "--experiment-name"}, paramLabel = "NAME",
      description = "The name of this experiment (default: the current time, yyyyMMdd_HHmmss); results go to "
          + "OUTPUT_DIR/NAME.")
  String experimentName;

  @Option(names = "--num-runs", defaultValue = "3", paramLabel = "N",
      description = "Number of runs per parameter combination (default: ${DEFAULT-VALUE}).")
  int numRuns;

  @Option(names = "--warmup-num-prompts", defaultValue = "0", paramLabel = "N",
      description = "Prompts of one unmeasured warmup run before each combination, saved as warmup.json and left "
          + "out of the summary (default: ${DEFAULT-VALUE}: none).")
  int warmupNumPrompts;

  @Option(names = "--continue-on-error",
      description = "Record a failed run (run=N.failure.json) or server (SERVE-...-failure.json) and go on.")
  boolean continueOnError;

  @Option(names = "--dry-run", description = "Print the commands to run, then exit without running them.")
  boolean dryRun;

  @Option(names = "--resume",
      description = "Continue an experiment (-e NAME): run only the combinations whose result files are missing.")
  boolean resume;

  /** The experiment's directory, checked as vLLM checks it. */
  Path experimentDir() {
    String name = experimentName != null ? experimentName
        : LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd_HHmmss"));
    return resolveExperimentDir(outputDir.resolve(name), resume);
  }

  static Path resolveExperimentDir(Path dir, boolean resume) {
    if (resume && !java.nio.file.Files.isDirectory(dir)) {
      throw new IllegalArgumentException("cannot resume from " + dir + ": no such directory (give the experiment's "
          + "-o and -e)");
    }
    if (!resume && java.nio.file.Files.exists(dir)) {
      throw new IllegalArgumentException("cannot overwrite the existing experiment " + dir
          + " (add --resume to continue it, or give another -e)");
    }
    return dir;
  }

  /** The sweep these options describe (files read, values checked). */
  ServeSweep sweep(SweepContext ctx, Path experimentDir) {
    if (numRuns < 1) {
      throw new IllegalArgumentException("--num-runs should be at least 1, was " + numRuns);
    }
    if (warmupNumPrompts < 0) {
      throw new IllegalArgumentException("--warmup-num-prompts should be at least 0, was " + warmupNumPrompts);
    }
    if (serverReadyTimeout < 1) {
      throw new IllegalArgumentException("--server-ready-timeout should be at least 1 second, was "
          + serverReadyTimeout);
    }
    List<String> serve = words(serveCmd, "--serve-cmd");
    List<String> bench = words(benchCmd, "--bench-cmd");
    List<String> after = afterBenchCmd == null ? List.of() : Shlex.split(afterBenchCmd);
    List<SweepParams.Item> serves = serveParams == null ? SweepParams.none()
        : SweepParams.read(serveParams, "--serve-params");
    List<SweepParams.Item> benches = benchParams == null ? SweepParams.none()
        : SweepParams.read(benchParams, "--bench-params");
    return new ServeSweep(ctx, serve, bench, after, showStdout, Duration.ofSeconds(serverReadyTimeout), serves,
        benches, linkVars(linkVars), experimentDir, numRuns, warmupNumPrompts, continueOnError, dryRun);
  }

  static List<String> words(String cmd, String option) {
    List<String> w = Shlex.split(cmd);
    if (w.isEmpty()) {
      throw new IllegalArgumentException(option + " is empty");
    }
    return w;
  }

  /** vLLM's {@code parse_link_vars}: "a=b,c=d" as pairs. */
  static List<Map.Entry<String, String>> linkVars(String s) {
    List<Map.Entry<String, String>> pairs = new ArrayList<>();
    if (s == null || s.isEmpty()) {
      return pairs;
    }
    for (String item : s.split(",")) {
      String[] ab = item.split("=", -1);
      if (ab.length != 2) {
        throw new IllegalArgumentException("--link-vars takes serve_key=bench_key pairs, was " + item);
      }
      pairs.add(Map.entry(ab[0].strip(), ab[1].strip()));
    }
    return pairs;
  }
}
