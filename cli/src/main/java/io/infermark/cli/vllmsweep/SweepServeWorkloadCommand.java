package io.infermark.cli.vllmsweep;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code bench sweep serve_workload}: vLLM's {@code vllm bench sweep serve_workload}. Per combination, runs the
 * bench serially ({@code max_concurrency=1}, the workload variable 1) and as one batch ({@code max_concurrency} and
 * the variable the number of prompts), estimates the workload each achieved (request rate: the request throughput;
 * concurrency: throughput times mean E2E latency, Little's law), and runs {@code --workload-iters - 2} levels
 * evenly between them (rounded half to even, duplicates dropped).
 */
@Command(name = "serve_workload", aliases = "serve-workload", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Explore the latency-throughput tradeoff for different workload levels "
        + "(vllm bench sweep serve_workload).",
        "Writes OUTPUT_DIR/EXPERIMENT/SERVE-<s>-BENCH-<b>-WL-<var>=<value>/run=N.json and summary.json, and "
            + "summary.csv."})
final class SweepServeWorkloadCommand implements Callable<Integer> {

  /** vLLM's {@code DEFAULT_NUM_PROMPTS}: the dataset size when the bench command gives none. */
  static final int DEFAULT_NUM_PROMPTS = 1000;

  @ParentCommand
  VllmSweepCommand parent;

  @Mixin
  ServeSweepOptions options;

  @Option(names = "--workload-var", defaultValue = "request_rate", paramLabel = "VAR",
      description = "The variable to adjust in each iteration: request_rate or max_concurrency "
          + "(default: ${DEFAULT-VALUE}).")
  String workloadVar;

  @Option(names = "--workload-iters", defaultValue = "10", paramLabel = "N",
      description = "Number of workload levels to explore, including the serial and batch runs that set the range "
          + "(default: ${DEFAULT-VALUE}).")
  int workloadIters;

  @Override
  public Integer call() {
    if (!workloadVar.equals("request_rate") && !workloadVar.equals("max_concurrency")) {
      throw new IllegalArgumentException("--workload-var must be request_rate or max_concurrency, was "
          + workloadVar);
    }
    if (workloadIters < 2) {
      throw new IllegalArgumentException("--workload-iters should be at least 2, was " + workloadIters);
    }
    SweepContext ctx = parent.context();
    Path dir = options.experimentDir();
    ServeSweep sweep = options.sweep(ctx, dir);
    if (sweep.benchParams.stream().anyMatch(b -> b.hasParam(workloadVar))) {
      throw new IllegalArgumentException("you should not override " + workloadVar + " in --bench-params since it "
          + "is explored automatically");
    }
    return VllmSweepCommand.guarded(ctx, "serve_workload", dir, options.dryRun, () -> explore(sweep));
  }

  private void explore(ServeSweep sweep) {
    List<ObjectNode> all = new ArrayList<>();
    for (SweepParams.Item serve : sweep.serveParams) {
      sweep.withServer(serve, true, server -> {
        for (SweepParams.Item bench : sweep.benchParams) {
          all.addAll(exploreComb(sweep, server, serve, bench));
        }
      });
    }
    if (!sweep.dryRun) {
      SweepFiles.writeCsv(sweep.experimentDir.resolve("summary.csv"), all);
    }
  }

  private List<ObjectNode> exploreComb(ServeSweep sweep, ServeSweep.Server server, SweepParams.Item serve,
      SweepParams.Item bench) {
    var out = sweep.out();
    out.println("[WL START]");
    out.println("Serve parameters: " + (serve.asText(", ").isEmpty() ? "(None)" : serve.asText(", ")));
    out.println("Bench parameters: " + (bench.asText(", ").isEmpty() ? "(None)" : bench.asText(", ")));
    out.println("Number of workload iterations: " + workloadIters);
    int datasetSize = datasetSize(bench, sweep.benchCmd);
    out.println("Dataset size: " + datasetSize);
    Optional<List<ObjectNode>> serial = level(sweep, server, serve,
        bench.with("max_concurrency", SweepParams.number(1)), 1);
    Optional<List<ObjectNode>> batch = level(sweep, server, serve,
        bench.with("max_concurrency", SweepParams.number(datasetSize)), datasetSize);
    if (serial.isEmpty() || batch.isEmpty() || serial.get().isEmpty() || batch.get().isEmpty()) {
      if (sweep.dryRun) {
        out.println("Omitting intermediate Workload iterations.");
        out.println("[WL END]");
      }
      return List.of();
    }
    long serialValue = (long) Math.ceil(average(serial.get()));
    out.println("Serial inference: " + workloadVar + "=" + serialValue);
    long batchValue = (long) Math.floor(average(batch.get()));
    out.println("Batch inference: " + workloadVar + "=" + batchValue);
    List<ObjectNode> inter = new ArrayList<>();
    for (long value : interLevels(serialValue, batchValue, workloadIters)) {
      out.println("Exploring: " + workloadVar + "=" + value);
      level(sweep, server, serve, bench, value).ifPresent(inter::addAll);
    }
    out.println("[WL END]");
    List<ObjectNode> data = new ArrayList<>(serial.get());
    data.addAll(inter);
    data.addAll(batch.get());
    return data;
  }

  /** {@code numpy.linspace(lo, hi, n)[1:-1]}, each rounded half to even (Python's round), sorted, unique. */
  static List<Long> interLevels(long lo, long hi, int n) {
    TreeSet<Long> values = new TreeSet<>();
    for (int i = 1; i < n - 1; i++) {
      double v = lo + (hi - lo) * ((double) i / (n - 1));
      values.add((long) Math.rint(v));
    }
    return List.copyOf(values);
  }

  private Optional<List<ObjectNode>> level(ServeSweep sweep, ServeSweep.Server server, SweepParams.Item serve,
      SweepParams.Item bench, long value) {
    // the directory is named by the combination as given (with the serial/batch max_concurrency), as vLLM's
    SweepParams.Item withVar = bench.with(workloadVar, SweepParams.number(value));
    Path base = ServeSweep.combDir(sweep.experimentDir, serve, bench, "WL-", workloadVar + "=" + value);
    return sweep.runComb(server, serve, withVar, base);
  }

  private double average(List<ObjectNode> runs) {
    double total = 0;
    for (ObjectNode r : runs) {
      double throughput = number(r, "request_throughput");
      total += workloadVar.equals("request_rate") ? throughput : throughput * number(r, "mean_e2el_ms") / 1000;
    }
    return total / runs.size();
  }

  private static double number(ObjectNode r, String key) {
    JsonNode v = r.get(key);
    if (v == null || !v.isNumber()) {
      throw new IllegalStateException("a run's result has no number " + key + " (keys: " + fieldNames(r) + ")");
    }
    return v.doubleValue();
  }

  private static List<String> fieldNames(ObjectNode r) {
    List<String> names = new ArrayList<>();
    r.fieldNames().forEachRemaining(names::add);
    return names;
  }

  /** The number of prompts: the bench parameters', else the bench command's {@code --num-prompts}, else 1000. */
  static int datasetSize(SweepParams.Item bench, List<String> benchCmd) {
    if (bench.has("num_prompts")) {
      return bench.get("num_prompts").asInt();
    }
    for (int i = 0; i < benchCmd.size(); i++) {
      String a = benchCmd.get(i);
      if (a.equals("--num-prompts") && i + 1 < benchCmd.size()) {
        return Integer.parseInt(benchCmd.get(i + 1));
      }
      if (a.startsWith("--num-prompts=")) {
        return Integer.parseInt(a.substring("--num-prompts=".length()));
      }
    }
    return DEFAULT_NUM_PROMPTS;
  }
}
