package io.infermark.cli.vllmsweep;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * vLLM's {@code run_combs} ({@code vllm/benchmarks/sweep/serve.py}): for each serve combination, the server is
 * started (unless every bench combination already has its {@code summary.json}), health-checked, and kept for
 * every bench combination, each run {@code --num-runs} times into
 * {@code EXPERIMENT/SERVE-<serve>-BENCH-<bench>/run=N.json}, its caches reset after each run, then stopped. A
 * run whose file exists is not run again ({@code --resume}). Each combination's directory also gets
 * {@code summary.json} (its runs) and {@code server.log} (what the server wrote while the combination ran; the first
 * combination's includes the start-up). {@code summary.csv} in the experiment's directory has every run.
 */
final class ServeSweep {

  /** The percentiles vLLM's sweep asks of every bench run. */
  static final List<String> BENCH_SUFFIX = List.of("--percentile-metrics", "ttft,tpot,itl,e2el", "--save-result");

  final SweepContext ctx;
  final List<String> serveCmd;
  final List<String> benchCmd;
  final List<String> afterBenchCmd;
  final boolean showStdout;
  final Duration readyTimeout;
  final List<SweepParams.Item> serveParams;
  final List<SweepParams.Item> benchParams;
  final List<Map.Entry<String, String>> linkVars;
  final Path experimentDir;
  final int numRuns;
  final int warmupNumPrompts;
  final boolean continueOnError;
  final boolean dryRun;

  ServeSweep(SweepContext ctx, List<String> serveCmd, List<String> benchCmd, List<String> afterBenchCmd,
      boolean showStdout, Duration readyTimeout, List<SweepParams.Item> serveParams,
      List<SweepParams.Item> benchParams, List<Map.Entry<String, String>> linkVars, Path experimentDir, int numRuns,
      int warmupNumPrompts, boolean continueOnError, boolean dryRun) {
    this.ctx = ctx;
    this.serveCmd = List.copyOf(serveCmd);
    this.benchCmd = List.copyOf(benchCmd);
    this.afterBenchCmd = List.copyOf(afterBenchCmd);
    this.showStdout = showStdout;
    this.readyTimeout = readyTimeout;
    this.serveParams = List.copyOf(serveParams);
    this.benchParams = List.copyOf(benchParams);
    this.linkVars = List.copyOf(linkVars);
    this.experimentDir = experimentDir;
    this.numRuns = numRuns;
    this.warmupNumPrompts = warmupNumPrompts;
    this.continueOnError = continueOnError;
    this.dryRun = dryRun;
    if (BenchInvocation.inJvm(benchCmd) && benchCmd.size() > 2 && benchCmd.get(2).equals("sweep")) {
      throw new IllegalArgumentException("--bench-cmd cannot be a sweep: give the bench command (vllm bench serve ...)");
    }
  }

  PrintWriter out() {
    return ctx.out();
  }

  /** A combination's directory: {@code SERVE-<name>-BENCH-<name>[extra parts]}, sanitized. */
  static Path combDir(Path experimentDir, SweepParams.Item serve, SweepParams.Item bench, String... extra) {
    List<String> parts = new ArrayList<>();
    if (!serve.isEmpty()) {
      parts.add("SERVE-");
      parts.add(serve.name());
    }
    if (!bench.isEmpty()) {
      parts.add("BENCH-");
      parts.add(bench.name());
    }
    parts.addAll(List.of(extra));
    return experimentDir.resolve(SweepFiles.sanitize(String.join("-", parts)));
  }

  static Path runPath(Path base, Optional<Integer> run) {
    return base.resolve(run.map(n -> "run=" + n + ".json").orElse("summary.json"));
  }

  /** Runs every combination and writes {@code summary.csv}; returns every run's record (empty on a dry run). */
  List<ObjectNode> run() {
    List<ObjectNode> all = new ArrayList<>();
    for (SweepParams.Item serve : serveParams) {
      ctx.checkStop();
      boolean needed = benchParams.stream()
          .anyMatch(b -> !Files.exists(runPath(combDir(experimentDir, serve, b), Optional.empty())));
      try {
        withServer(serve, needed, server -> {
          for (SweepParams.Item bench : benchParams) {
            Path base = combDir(experimentDir, serve, bench);
            Optional<List<ObjectNode>> data = runComb(server, serve, bench, base);
            data.ifPresent(all::addAll);
          }
        });
      } catch (RuntimeException e) {
        if (!continueOnError || e instanceof SweepContext.Stopped) {
          throw e;
        }
        Path failure = experimentDir.resolve(SweepFiles.sanitize("SERVE-" + (serve.name().isEmpty() ? "default"
            : serve.name()) + "-failure.json"));
        ObjectNode f = SweepParams.JSON.createObjectNode();
        f.put("error_type", e.getClass().getSimpleName());
        f.put("error", String.valueOf(e.getMessage()));
        f.set("serve_overrides", serve.json());
        SweepFiles.write(failure, f);
        out().println("[FAILED SERVER COMBINATION] " + (serve.name().isEmpty() ? "(default)" : serve.name()) + ": "
            + e.getClass().getSimpleName() + ": " + e.getMessage());
        out().println("Failure details: " + failure);
      }
    }
    if (!dryRun) {
      SweepFiles.writeCsv(experimentDir.resolve("summary.csv"), all);
    }
    return all;
  }

  /** What runs while a serve combination's server is up (null on a dry run or when no server was needed). */
  interface WithServer {
    void run(Server server);
  }

  /** A running server and the combination directory its log is copied into. */
  static final class Server {
    final ServerProcess process;
    final double startupSeconds;

    Server(ServerProcess process, double startupSeconds) {
      this.process = process;
      this.startupSeconds = startupSeconds;
    }
  }

  /** vLLM's {@code server_ctx}/{@code run_server}: starts, checks and stops the server around {@code body}. */
  void withServer(SweepParams.Item serve, boolean needed, WithServer body) {
    if (!needed) {
      body.run(null);
      return;
    }
    List<String> cmd = serve.applyTo(serveCmd);
    out().println("[BEGIN SERVER]");
    out().println("Server overrides: " + serve);
    out().println("Server command: " + Shlex.repr(cmd));
    if (dryRun) {
      body.run(null);
      out().println("[END SERVER]");
      return;
    }
    Path log = experimentDir.resolve(SweepFiles.sanitize((serve.isEmpty() ? "SERVE" : "SERVE--" + serve.name())
        + ".server.log"));
    ServerProcess p = ServerProcess.start(cmd, log, Map.of(), ctx.clock());
    try {
      double startup = p.awaitReady(readyTimeout, ctx::checkStop);
      out().printf(java.util.Locale.ROOT, "Server ready at %s after %.3f s (its log: %s)%n", p.address(), startup,
          log);
      ObjectNode started = SweepParams.JSON.createObjectNode();
      started.put("server_startup_time", startup);
      started.put("address", p.address());
      cmd.forEach(started.putArray("server_command")::add);
      started.set("serve_overrides", serve.json());
      SweepFiles.write(log.resolveSibling(log.getFileName().toString().replaceFirst("\\.log$", ".json")), started);
      body.run(new Server(p, startup));
    } finally {
      p.stop(ctx.stopGrace());
    }
    out().println("[END SERVER]");
  }

  boolean combIsValid(SweepParams.Item serve, SweepParams.Item bench) {
    for (Map.Entry<String, String> link : linkVars) {
      JsonNode s = serve.get(link.getKey());
      JsonNode b = bench.get(link.getValue());
      if (s == null || b == null || !sameValue(s, b)) {
        return false;
      }
    }
    return true;
  }

  /** Python's {@code ==} on JSON values: numbers by value (4 == 4.0). */
  static boolean sameValue(JsonNode a, JsonNode b) {
    if (a.isNumber() && b.isNumber()) {
      return a.decimalValue().compareTo(b.decimalValue()) == 0;
    }
    return a.equals(b);
  }

  /** vLLM's {@code run_comb}: warmup, the runs, {@code summary.json}; empty when the link vars exclude it. */
  Optional<List<ObjectNode>> runComb(Server server, SweepParams.Item serve, SweepParams.Item bench, Path base) {
    if (!combIsValid(serve, bench)) {
      return Optional.empty();
    }
    List<ObjectNode> data = new ArrayList<>();
    try {
      if (warmupNumPrompts > 0) {
        runOne(server, serve, bench.with("num_prompts", SweepParams.number(warmupNumPrompts)), -1,
            base.resolve("warmup.json"));
      }
      for (int n = 0; n < numRuns; n++) {
        runOne(server, serve, bench, n, runPath(base, Optional.of(n))).ifPresent(data::add);
      }
    } finally {
      if (server != null) {
        String segment = server.process.logSinceLastCall();
        SweepFiles.append(base.resolve("server.log"), segment);
        if (showStdout) {
          out().print(segment);
        }
      }
    }
    if (dryRun) {
      return Optional.empty();
    }
    if (data.isEmpty()) {
      out().println("[NO SUCCESSFUL MEASURED RUNS] leaving combination retryable");
      return Optional.of(List.of());
    }
    SweepFiles.write(runPath(base, Optional.empty()), SweepFiles.array(data));
    return Optional.of(data);
  }

  private Optional<ObjectNode> runOne(Server server, SweepParams.Item serve, SweepParams.Item bench, int runNumber,
      Path output) {
    try {
      return runBenchmark(server, serve, bench, runNumber, output);
    } catch (RuntimeException e) {
      if (!continueOnError || e instanceof SweepContext.Stopped) {
        throw e;
      }
      String stem = output.getFileName().toString().replaceFirst("\\.json$", "");
      Path failure = output.resolveSibling(stem + ".failure.json");
      ObjectNode f = SweepParams.JSON.createObjectNode();
      f.put("run_number", runNumber);
      f.put("error_type", e.getClass().getSimpleName());
      f.put("error", String.valueOf(e.getMessage()));
      f.set("serve_overrides", serve.json());
      f.set("bench_overrides", bench.json());
      SweepFiles.write(failure, f);
      out().println("[FAILED BENCHMARK] run=" + runNumber + ": " + e.getClass().getSimpleName() + ": "
          + e.getMessage());
      out().println("Failure details: " + failure);
      if (server != null) {
        try {
          afterBench(server);
        } catch (RuntimeException ignored) {
          // as vLLM: a failing reset after a failed run is not a second failure
        }
      }
      return Optional.empty();
    }
  }

  /** vLLM's {@code run_benchmark}: one bench run into {@code output}, or its existing result. */
  Optional<ObjectNode> runBenchmark(Server server, SweepParams.Item serve, SweepParams.Item bench, int runNumber,
      Path output) {
    List<String> cmd = new ArrayList<>(bench.applyTo(benchCmd));
    cmd.addAll(BENCH_SUFFIX);
    cmd.addAll(List.of("--result-dir", String.valueOf(output.getParent()), "--result-filename",
        output.getFileName().toString()));
    out().println("[BEGIN BENCHMARK]");
    out().println("Benchmark overrides: " + bench);
    out().println("Run Number: " + runNumber);
    out().println("Benchmark command: " + Shlex.repr(cmd));
    out().println("Output file: " + output);
    if (Files.exists(output)) {
      out().println("Found existing results.");
      out().println("[SKIPPED BENCHMARK]");
      return Optional.of(update(readRun(output), serve, bench, runNumber));
    }
    if (server == null) {
      if (!dryRun) {
        throw new IllegalStateException("cannot find results at " + output);
      }
      out().println("[END BENCHMARK]");
      return Optional.empty();
    }
    ctx.checkStop();
    try {
      Files.createDirectories(output.getParent());
    } catch (IOException e) {
      throw new IllegalStateException("cannot create " + output.getParent() + ": " + e.getMessage());
    }
    new BenchInvocation(ctx, showStdout).run(cmd, output);
    afterBench(server);
    ObjectNode data = update(readRun(output), serve, bench, runNumber);
    SweepFiles.write(output, data);
    out().println("[END BENCHMARK]");
    return Optional.of(data);
  }

  private static ObjectNode readRun(Path file) {
    JsonNode n = SweepFiles.read(file);
    if (!n.isObject()) {
      throw new IllegalStateException(file + " is not a result object");
    }
    return (ObjectNode) n;
  }

  static ObjectNode update(ObjectNode data, SweepParams.Item serve, SweepParams.Item other, int runNumber) {
    data.put("run_number", runNumber);
    data.setAll(serve.json());
    data.setAll(other.json());
    return data;
  }

  /** After a run: the {@code --after-bench-cmd}, or the server's cache reset. */
  void afterBench(Server server) {
    if (afterBenchCmd.isEmpty()) {
      server.process.resetCaches(out());
      return;
    }
    int code = BenchInvocation.process(afterBenchCmd, showStdout);
    if (code != 0) {
      throw new IllegalStateException("the after-bench command " + Shlex.join(afterBenchCmd) + " exited with code "
          + code);
    }
  }

  /** A stream that drops what is written (a bench's standard output without --show-stdout). */
  static PrintWriter discard() {
    return new PrintWriter(OutputStream.nullOutputStream(), true);
  }
}
