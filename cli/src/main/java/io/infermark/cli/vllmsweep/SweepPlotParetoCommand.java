package io.infermark.cli.vllmsweep;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.infermark.metrics.report.FacetChartPage;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bench sweep plot_pareto}: vLLM's {@code vllm bench sweep plot_pareto}. For every run under the directory,
 * tokens/s/user = {@code output_throughput} / the user count ({@code --user-count-var}, else {@code request_rate},
 * else {@code max_concurrent_requests}; runs with none are skipped) and tokens/s/GPU = {@code output_throughput} /
 * the GPU count ({@code --gpu-count-var}, else tensor x pipeline x data parallel sizes, else 1); the Pareto frontier
 * is the runs no other run beats on both. vLLM writes {@code OUTPUT_DIR/pareto/PARETO.png}; infermark writes
 * {@code OUTPUT_DIR/pareto/PARETO.html}, the frontier's {@code --label-by} values in a table below the chart.
 */
@Command(name = "plot_pareto", aliases = "plot-pareto", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Plot the Pareto frontier between tokens/s/user and tokens/s/GPU from parameter sweep results "
        + "(vllm bench sweep plot_pareto).", "Writes OUTPUT_DIR/pareto/PARETO.html (vLLM: PARETO.png)."})
final class SweepPlotParetoCommand implements Callable<Integer> {

  @picocli.CommandLine.ParentCommand
  VllmSweepCommand parent;

  @Parameters(index = "0", paramLabel = "OUTPUT_DIR", description = "The directory holding the sweep results.")
  Path outputDir;

  @Option(names = "--user-count-var", defaultValue = "max_concurrency", paramLabel = "KEY",
      description = "Result key holding the concurrent user count; request_rate, then max_concurrent_requests, when "
          + "it is missing (default: ${DEFAULT-VALUE}).")
  String userCountVar;

  @Option(names = "--gpu-count-var", paramLabel = "KEY",
      description = "Result key holding the GPU count; default: tensor x pipeline x data parallel sizes, else 1.")
  String gpuCountVar;

  @Option(names = "--label-by", defaultValue = "max_concurrency,gpu_count", paramLabel = "KEYS",
      description = "Comma-separated fields shown for each frontier point (default: ${DEFAULT-VALUE}).")
  String labelBy;

  @Option(names = "--dry-run", description = "Print the figure to plot without drawing it.")
  boolean dryRun;

  /** A run with its two throughputs per user and per GPU. */
  record Point(ObjectNode run, double perUser, double perGpu) {
  }

  @Override
  public Integer call() {
    if (!Files.isDirectory(outputDir)) {
      throw new IllegalArgumentException("no parameter sweep results under " + outputDir);
    }
    List<ObjectNode> raw = SweepFiles.summaries(outputDir);
    if (raw.isEmpty()) {
      throw new IllegalStateException("did not find any parameter sweep results (summary.json) under " + outputDir);
    }
    PrintWriter out = parent.context().out();
    List<Point> points = new ArrayList<>();
    int skipped = 0;
    for (ObjectNode r : raw) {
      double throughput = numeric(r, List.of("output_throughput"), true).orElseThrow(() ->
          new IllegalStateException("cannot find throughput metric output_throughput in a run's results; its keys: "
              + SweepPlotCommand.fieldNames(r)));
      Optional<Double> users = userCount(r);
      if (users.isEmpty()) {
        skipped++;
        continue;
      }
      double gpus = gpuCount(r);
      ObjectNode p = r.deepCopy();
      p.put("tokens_per_user", throughput / users.get());
      p.put("tokens_per_gpu", throughput / gpus);
      p.put("user_count_estimate", users.get());
      p.put("gpu_count", gpus);
      points.add(new Point(p, throughput / users.get(), throughput / gpus));
    }
    if (skipped > 0) {
      out.println("Skipped " + skipped + " runs without a user count (`max_concurrency` or "
          + "`max_concurrent_requests`).");
    }
    if (points.isEmpty()) {
      throw new IllegalStateException("no data points with both throughput and user count available to plot the "
          + "Pareto frontier");
    }
    Path file = outputDir.resolve("pareto").resolve("PARETO.html");
    out.println("[BEGIN FIGURE]");
    out.println("Group: {}");
    out.println("Output file: " + file);
    if (dryRun) {
      out.println("[END FIGURE]");
      return 0;
    }
    List<Point> drawn = points.stream().filter(p -> !Double.isNaN(p.perUser) && !Double.isNaN(p.perGpu)).toList();
    if (drawn.isEmpty()) {
      out.println("No data points available after filtering; skipping.");
      out.println("[END FIGURE]");
      return 0;
    }
    List<Point> frontier = frontier(drawn);
    List<String> labels = SweepPlotCommand.vars(labelBy);
    List<List<String>> rows = new ArrayList<>();
    for (Point p : frontier) {
      List<String> parts = new ArrayList<>();
      for (String key : labels) {
        JsonNode v = p.run.get(key);
        if (v != null) {
          parts.add(key + "=" + SweepParams.pyStr(v));
        }
      }
      rows.add(List.of(SweepPlotCommand.fmt(p.perUser), SweepPlotCommand.fmt(p.perGpu), String.join(", ", parts)));
    }
    FacetChartPage.builder("Pareto frontier: tokens/s/user vs tokens/s/GPU")
        .axes("Tokens/s/user", "Tokens/s/GPU", false, false)
        .note(drawn.size() + " runs; the frontier (" + frontier.size() + " points) is the runs no other run beats on "
            + "both throughputs.")
        .row(List.of(FacetChartPage.panel("", List.of(
            FacetChartPage.Curve.scatter("All runs", drawn.stream().mapToDouble(Point::perUser).toArray(),
                drawn.stream().mapToDouble(Point::perGpu).toArray()),
            FacetChartPage.Curve.line("Pareto frontier", frontier.stream().mapToDouble(Point::perUser).toArray(),
                frontier.stream().mapToDouble(Point::perGpu).toArray())))))
        .table(List.of("Tokens/s/user", "Tokens/s/GPU", String.join(",", labels)), rows)
        .build().write(SweepPlotCommand.ensureDir(file));
    out.println("Plotted " + drawn.size() + " points; Pareto frontier size: " + frontier.size() + ".");
    out.println("[END FIGURE]");
    return 0;
  }

  /**
   * vLLM's {@code _pareto_frontier}: sorted by tokens/s/user then tokens/s/GPU, both descending, a point is on the
   * frontier when its tokens/s/GPU is at least the best so far (less 1e-9); returned by tokens/s/user ascending.
   */
  static List<Point> frontier(List<Point> points) {
    List<Point> sorted = new ArrayList<>(points);
    sorted.sort(Comparator.comparingDouble(Point::perUser).thenComparingDouble(Point::perGpu).reversed());
    List<Point> out = new ArrayList<>();
    double best = Double.NEGATIVE_INFINITY;
    for (Point p : sorted) {
      if (p.perGpu >= best - 1e-9) {
        out.add(p);
        best = Math.max(best, p.perGpu);
      }
    }
    out.sort(Comparator.comparingDouble(Point::perUser));
    return out;
  }

  private Optional<Double> userCount(ObjectNode r) {
    List<String> candidates = new ArrayList<>();
    if (userCountVar != null && !userCountVar.isEmpty()) {
      candidates.add(userCountVar);
    }
    candidates.add("request_rate");
    Optional<Double> u = numeric(r, candidates, false);
    return u.isPresent() ? u : numeric(r, List.of("max_concurrent_requests"), false);
  }

  private double gpuCount(ObjectNode r) {
    if (gpuCountVar != null && !gpuCountVar.isEmpty()) {
      Optional<Double> direct = numeric(r, List.of(gpuCountVar), false);
      if (direct.isPresent()) {
        return direct.get();
      }
    }
    double world = 1;
    for (List<String> keys : List.of(List.of("tensor_parallel_size", "tp"), List.of("pipeline_parallel_size", "pp"),
        List.of("data_parallel_size", "dp"))) {
      Optional<Double> size = numeric(r, keys, true);
      if (size.isPresent() && size.get() != 0) {
        world *= size.get();
      }
    }
    return world;
  }

  /**
   * vLLM's {@code _get_numeric}: the value of the first key present (as given, with dashes or underscores), empty
   * when it is null (or 0 and zero is not allowed).
   *
   * @throws IllegalStateException if the value is not a number
   */
  static Optional<Double> numeric(ObjectNode r, List<String> keys, boolean allowZero) {
    for (String key : keys) {
      for (String candidate : List.of(key, key.replace('_', '-'), key.replace('-', '_'))) {
        if (r.has(candidate)) {
          JsonNode v = r.get(candidate);
          if (v.isNull()) {
            return Optional.empty();
          }
          double d = SweepPlotCommand.number(v);
          if (Double.isNaN(d) && !(v.isTextual() && v.textValue().equals("nan"))) {
            throw new IllegalStateException("expected a number for one of " + keys + ", found " + v);
          }
          return !allowZero && d == 0 ? Optional.empty() : Optional.of(d);
        }
      }
    }
    return Optional.empty();
  }
}
