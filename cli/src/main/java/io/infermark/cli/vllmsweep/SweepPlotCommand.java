package io.infermark.cli.vllmsweep;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.infermark.metrics.report.FacetChartPage;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bench sweep plot}: vLLM's {@code vllm bench sweep plot}. Reads every {@code summary.json} under the
 * directory, and draws one page per {@code --fig-by} group, a grid of panels ({@code --row-by} x {@code --col-by})
 * with one curve per {@code --curve-by} group of {@code --var-y} against {@code --var-x}, where runs at the same x are
 * averaged (seaborn's lineplot estimator). vLLM writes PNGs; infermark writes self-contained HTML pages
 * ({@code FIGURE[-k=v...].html}) with the points drawn in a table below the charts.
 */
@Command(name = "plot", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Plot performance curves from parameter sweep results (vllm bench sweep plot).",
        "Writes FIG_DIR/<fig-name>[-k=v...].html (vLLM: .png), one per --fig-by group."})
final class SweepPlotCommand implements Callable<Integer> {

  @picocli.CommandLine.ParentCommand
  VllmSweepCommand parent;

  @Parameters(index = "0", paramLabel = "OUTPUT_DIR",
      description = "The directory holding the results to plot: the sweep's --output-dir (or one experiment in it).")
  Path outputDir;

  @Option(names = "--fig-dir", defaultValue = "", paramLabel = "DIR",
      description = "Where the figures go, relative to OUTPUT_DIR (default: OUTPUT_DIR itself).")
  String figDir;

  @Option(names = "--fig-by", defaultValue = "", paramLabel = "VARS",
      description = "Comma-separated variables: one figure per combination of their values.")
  String figBy;

  @Option(names = "--row-by", defaultValue = "", paramLabel = "VARS",
      description = "Comma-separated variables: one row of panels per combination of their values.")
  String rowBy;

  @Option(names = "--col-by", defaultValue = "", paramLabel = "VARS",
      description = "Comma-separated variables: one column of panels per combination of their values.")
  String colBy;

  @Option(names = "--curve-by", paramLabel = "VARS",
      description = "Comma-separated variables: one curve per combination of their values.")
  String curveBy;

  @Option(names = "--var-x", defaultValue = "request_throughput", paramLabel = "VAR",
      description = "The variable for the x-axis (default: ${DEFAULT-VALUE}).")
  String varX;

  @Option(names = "--var-y", defaultValue = "p99_e2el_ms", paramLabel = "VAR",
      description = "The variable for the y-axis (default: ${DEFAULT-VALUE}).")
  String varY;

  @Option(names = "--filter-by", defaultValue = "", paramLabel = "CONDS",
      description = "Comma-separated conditions a point must meet (==, !=, <=, >=, <, >), e.g. "
          + "'max_concurrency<1000,max_num_batched_tokens<=4096'.")
  String filterBy;

  @Option(names = "--bin-by", defaultValue = "", paramLabel = "BINS",
      description = "Comma-separated VAR%%SIZE: round VAR down to multiples of SIZE, e.g. request_throughput%%1.")
  String binBy;

  @Option(names = "--scale-x", paramLabel = "SCALE", description = "The x-axis scale: linear or log.")
  String scaleX;

  @Option(names = "--scale-y", paramLabel = "SCALE", description = "The y-axis scale: linear or log.")
  String scaleY;

  @Option(names = "--fig-name", defaultValue = "FIGURE", paramLabel = "NAME",
      description = "The figures' file name prefix; the group's k=v parts are appended (default: ${DEFAULT-VALUE}).")
  String figName;

  @Option(names = "--dry-run", description = "Print what each figure would hold, then exit without drawing.")
  boolean dryRun;

  @Override
  public Integer call() {
    if (!Files.isDirectory(outputDir)) {
      throw new IllegalArgumentException("no parameter sweep results under " + outputDir);
    }
    boolean logX = logScale(scaleX, "--scale-x");
    boolean logY = logScale(scaleY, "--scale-y");
    List<Filter> filters = Filter.parseAll(filterBy);
    List<Binner> binners = Binner.parseAll(binBy);
    List<ObjectNode> all = SweepFiles.summaries(outputDir);
    if (all.isEmpty()) {
      throw new IllegalStateException("did not find any parameter sweep results (summary.json) under " + outputDir);
    }
    Path figs = outputDir.resolve(figDir);
    PrintWriter out = parent.context().out();
    List<String> figVars = vars(figBy);
    List<String> rowVars = vars(rowBy);
    List<String> colVars = vars(colBy);
    List<String> curveVars = vars(curveBy);
    Set<String> columns = new LinkedHashSet<>();
    all.forEach(r -> r.fieldNames().forEachRemaining(columns::add));
    for (Map.Entry<String, List<ObjectNode>> fig : groupBy(all, r -> group(r, figVars)).entrySet()) {
      List<ObjectNode> data = fig.getValue();
      Map<String, List<ObjectNode>> rows = groupBy(data, r -> group(r, rowVars));
      int cols = rows.values().stream().mapToInt(rd -> groupBy(rd, r -> group(r, colVars)).size()).max().orElse(0);
      Path file = figs.resolve(SweepFiles.sanitize(figName + (fig.getKey().isEmpty() ? "" : "-" + fig.getKey())
          + ".html"));
      out.println("[BEGIN FIGURE]");
      out.println("Group: " + groupDict(data.get(0), figVars));
      out.println("Grid: " + rows.size() + " rows x " + cols + " cols");
      out.println("Output file: " + file);
      if (dryRun) {
        out.println("[END FIGURE]");
        continue;
      }
      for (String v : concat(List.of(varX, varY), rowVars, colVars, curveVars)) {
        if (!columns.contains(v)) {
          throw new IllegalArgumentException("cannot find " + v + " in the parameter sweep results; available "
              + "variables: " + columns);
        }
      }
      List<ObjectNode> kept = new ArrayList<>();
      for (ObjectNode r : data) {
        if (filters.stream().allMatch(f -> f.test(r))) {
          ObjectNode copy = r.deepCopy();
          binners.forEach(b -> b.apply(copy));
          kept.add(copy);
        }
      }
      page(kept, rowVars, colVars, curveVars, logX, logY, fig.getKey()).write(ensureDir(file));
      out.println("[END FIGURE]");
    }
    return 0;
  }

  private FacetChartPage page(List<ObjectNode> data, List<String> rowVars, List<String> colVars,
      List<String> curveVars, boolean logX, boolean logY, String group) {
    FacetChartPage.Builder b = FacetChartPage.builder(varY + " vs " + varX + (group.isEmpty() ? "" : " (" + group
        + ")")).axes(varX, varY, logX, logY);
    b.note("Each point is the mean of the runs at that " + varX + " (" + data.size() + " runs after the filters).");
    List<List<String>> table = new ArrayList<>();
    Map<String, List<ObjectNode>> rows = groupBy(data, r -> label(r, rowVars));
    Set<String> colLabels = new LinkedHashSet<>();
    data.forEach(r -> colLabels.add(label(r, colVars)));
    if (rows.isEmpty()) {
      b.row(List.of(FacetChartPage.panel("(no point passes the filters)", List.of())));
    }
    for (Map.Entry<String, List<ObjectNode>> row : rows.entrySet()) {
      Map<String, List<ObjectNode>> byCol = groupBy(row.getValue(), r -> label(r, colVars));
      List<FacetChartPage.Panel> panels = new ArrayList<>();
      for (String col : colLabels) {
        List<ObjectNode> cell = byCol.getOrDefault(col, List.of());
        String title = !rowVars.isEmpty() && !colVars.isEmpty() ? row.getKey() + " / " + col
            : !rowVars.isEmpty() ? row.getKey() : !colVars.isEmpty() ? col : "";
        List<FacetChartPage.Curve> curves = new ArrayList<>();
        for (Map.Entry<String, List<ObjectNode>> curve : groupBy(cell, r -> label(r, curveVars)).entrySet()) {
          TreeMap<Double, double[]> sums = new TreeMap<>();
          for (ObjectNode r : curve.getValue()) {
            double x = number(r.get(varX));
            double y = number(r.get(varY));
            if (Double.isNaN(x) || Double.isNaN(y)) {
              continue; // as seaborn: a point without both values is not drawn
            }
            double[] s = sums.computeIfAbsent(x, k -> new double[2]);
            s[0] += y;
            s[1]++;
          }
          double[] xs = sums.keySet().stream().mapToDouble(Double::doubleValue).toArray();
          double[] ys = sums.values().stream().mapToDouble(s -> s[0] / s[1]).toArray();
          String name = curveVars.isEmpty() ? varY : curve.getKey();
          curves.add(FacetChartPage.Curve.line(name, xs, ys));
          sums.forEach((x, s) -> table.add(List.of(title.isEmpty() ? "(All)" : title, name, fmt(x), fmt(s[0] / s[1]),
              Long.toString((long) s[1]))));
        }
        panels.add(FacetChartPage.panel(title, curves));
      }
      b.row(panels);
    }
    b.table(List.of("panel", "curve", varX, varY + " (mean)", "runs"), table);
    return b.build();
  }

  static Path ensureDir(Path file) {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot create " + file.getParent() + ": " + e.getMessage());
    }
    return file;
  }

  static String fmt(double v) {
    return SweepParams.pyFloat(v);
  }

  @SafeVarargs
  private static List<String> concat(List<String>... lists) {
    List<String> out = new ArrayList<>();
    for (List<String> l : lists) {
      out.addAll(l);
    }
    return out;
  }

  static boolean logScale(String scale, String option) {
    if (scale == null || scale.equals("linear")) {
      return false;
    }
    if (scale.equals("log")) {
      return true;
    }
    throw new IllegalArgumentException(option + " " + scale + ": infermark's charts draw linear or log axes only");
  }

  static List<String> vars(String s) {
    return s == null || s.isEmpty() ? List.of() : List.of(s.split(","));
  }

  /** The group's key as vLLM's figure names have it: {@code k=v} parts joined by "-" (empty without variables). */
  static String group(ObjectNode r, List<String> vars) {
    List<String> parts = new ArrayList<>();
    for (String v : vars) {
      parts.add(v + "=" + SweepParams.pyStr(value(r, v)));
    }
    return String.join("-", parts);
  }

  private static String groupDict(ObjectNode r, List<String> vars) {
    List<String> parts = new ArrayList<>();
    for (String v : vars) {
      parts.add("'" + v + "': '" + SweepParams.pyStr(value(r, v)) + "'");
    }
    return "{" + String.join(", ", parts) + "}";
  }

  /** A panel's or curve's label: {@code k=v} parts joined by ", ", "(All)" without variables. */
  static String label(ObjectNode r, List<String> vars) {
    if (vars.isEmpty()) {
      return "(All)";
    }
    List<String> parts = new ArrayList<>();
    for (String v : vars) {
      JsonNode n = r.get(v);
      parts.add(v + "=" + (n == null ? "nan" : SweepParams.pyStr(n)));
    }
    return String.join(", ", parts);
  }

  static JsonNode value(ObjectNode r, String key) {
    JsonNode v = r.get(key);
    if (v == null) {
      throw new IllegalArgumentException("cannot find " + key + " in a run's results; its variables: "
          + fieldNames(r));
    }
    return v;
  }

  static List<String> fieldNames(ObjectNode r) {
    List<String> names = new ArrayList<>();
    r.fieldNames().forEachRemaining(names::add);
    return names;
  }

  /** Groups in order of first appearance (vLLM's {@code full_groupby}). */
  static <T> Map<String, List<T>> groupBy(List<T> items, Function<T, String> key) {
    Map<String, List<T>> out = new LinkedHashMap<>();
    items.forEach(i -> out.computeIfAbsent(key.apply(i), k -> new ArrayList<>()).add(i));
    return out;
  }

  /** A JSON value as a number: numbers, and the strings "inf", "-inf" and "nan" vLLM's files hold; else NaN. */
  static double number(JsonNode v) {
    if (v == null || v.isNull()) {
      return Double.NaN;
    }
    if (v.isNumber()) {
      return v.doubleValue();
    }
    if (v.isTextual()) {
      switch (v.textValue()) {
        case "inf", "Infinity" -> {
          return Double.POSITIVE_INFINITY;
        }
        case "-inf", "-Infinity" -> {
          return Double.NEGATIVE_INFINITY;
        }
        default -> {
          try {
            return Double.parseDouble(v.textValue());
          } catch (NumberFormatException e) {
            return Double.NaN;
          }
        }
      }
    }
    return Double.NaN;
  }

  /** One {@code --filter-by} condition. */
  record Filter(String var, String op, String target) {
    static final List<String> OPS = List.of("==", "!=", "<=", ">=", "<", ">");

    static List<Filter> parseAll(String s) {
      List<Filter> out = new ArrayList<>();
      for (String e : vars(s)) {
        out.add(parse(e));
      }
      return out;
    }

    static Filter parse(String s) {
      for (String op : OPS) {
        int at = s.indexOf(op);
        if (at >= 0) {
          if (s.indexOf(op, at + op.length()) >= 0) {
            throw new IllegalArgumentException("--filter-by " + s + ": one operator per condition");
          }
          String target = s.substring(at + op.length()).replaceAll("^'+|'+$", "").replaceAll("^\"+|\"+$", "");
          return new Filter(s.substring(0, at), op, target);
        }
      }
      throw new IllegalArgumentException("invalid operator for plot filter '" + s + "'; valid operators are: "
          + List.of("!=", "<", "<=", "==", ">", ">="));
    }

    boolean test(ObjectNode r) {
      JsonNode v = r.get(var);
      if (v == null) {
        throw new IllegalArgumentException("--filter-by: cannot find " + var + " in a run's results");
      }
      Double t;
      try {
        t = Double.parseDouble(target);
      } catch (NumberFormatException e) {
        t = null;
      }
      if (op.equals("==") || op.equals("!=")) {
        // as pandas: a number matches a numeric target by value, a string matches a non-numeric target exactly
        boolean eq = t != null ? v.isNumber() && v.doubleValue() == t : v.isTextual() && v.textValue().equals(target);
        return op.equals("==") == eq;
      }
      if (t == null) {
        throw new IllegalArgumentException("--filter-by " + var + op + target + ": " + op + " needs a number");
      }
      double x = number(v);
      return switch (op) {
        case "<=" -> x <= t;
        case ">=" -> x >= t;
        case "<" -> x < t;
        default -> x > t;
      };
    }
  }

  /** One {@code --bin-by} rule: {@code VAR%SIZE}. */
  record Binner(String var, double size) {
    static List<Binner> parseAll(String s) {
      List<Binner> out = new ArrayList<>();
      for (String e : vars(s)) {
        int at = e.indexOf('%');
        if (at < 0) {
          throw new IllegalArgumentException("invalid operator for plot binner '" + e + "'; valid operators are: [%]");
        }
        double size;
        try {
          size = Double.parseDouble(e.substring(at + 1));
        } catch (NumberFormatException ex) {
          throw new IllegalArgumentException("--bin-by " + e + ": the bin size is not a number");
        }
        if (!(size > 0)) {
          throw new IllegalArgumentException("--bin-by " + e + ": the bin size must be above 0");
        }
        out.add(new Binner(e.substring(0, at), size));
      }
      return out;
    }

    void apply(ObjectNode r) {
      JsonNode v = r.get(var);
      if (v == null) {
        throw new IllegalArgumentException("--bin-by: cannot find " + var + " in a run's results");
      }
      r.put(var, Math.floor(number(v) / size) * size);
    }
  }
}
