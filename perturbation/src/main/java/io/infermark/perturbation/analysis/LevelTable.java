package io.infermark.perturbation.analysis;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.stats.QuantileMethod;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Latency and correctness by level of one dimension of a perturbation run: for each level, how many
 * measured requests there were, how many failed, the share that were valid, TTFT and E2E medians
 * and 95th percentiles (milliseconds, linear interpolation, successful requests only — failed
 * requests never enter latency statistics) and the mean output tokens. TTFT is the first
 * token-bearing chunk minus the send time, E2E the last one minus the send time, as the metrics
 * module defines them.
 *
 * @param dimension the dimension
 * @param rows one row per level seen, in level order
 */
public record LevelTable(String dimension, List<Row> rows) {

  /**
   * One level's numbers.
   *
   * @param level the level
   * @param requests measured requests at this level
   * @param failed of which failed
   * @param validRate valid / requests, empty when no validity check was given
   * @param ttftP50Ms median TTFT of the successful requests, if any
   * @param ttftP95Ms 95th percentile TTFT
   * @param e2eP50Ms median E2E
   * @param e2eP95Ms 95th percentile E2E
   * @param meanOutputTokens mean output tokens of the successful requests
   */
  public record Row(int level, int requests, int failed, OptionalDouble validRate, OptionalDouble ttftP50Ms,
      OptionalDouble ttftP95Ms, OptionalDouble e2eP50Ms, OptionalDouble e2eP95Ms, OptionalDouble meanOutputTokens) {}

  /** Copies. */
  public LevelTable {
    rows = List.copyOf(rows);
  }

  /** The table for {@code dimension} without validity. */
  public static LevelTable of(RunResult run, String dimension) {
    return build(run.measured(), dimension, null);
  }

  /** The table for {@code dimension} with the valid share from {@code validity}. */
  public static LevelTable of(RunResult run, String dimension, Predicate<RequestRecord> validity) {
    return build(run.measured(), dimension, java.util.Objects.requireNonNull(validity, "validity"));
  }

  /** The table of the given records (warmup skipped). */
  public static LevelTable of(List<RequestRecord> records, String dimension, Predicate<RequestRecord> validity) {
    return build(records, dimension, java.util.Objects.requireNonNull(validity, "validity"));
  }

  private static LevelTable build(List<RequestRecord> records, String dimension, Predicate<RequestRecord> validity) {
    String tag = "level." + dimension;
    Map<Integer, List<RequestRecord>> byLevel = new TreeMap<>();
    for (RequestRecord r : records) {
      String level = r.tags().get(tag);
      if (level != null && r.measured()) {
        byLevel.computeIfAbsent(Integer.parseInt(level), k -> new ArrayList<>()).add(r);
      }
    }
    if (byLevel.isEmpty()) {
      throw new IllegalArgumentException("no measured records are tagged " + tag);
    }
    List<Row> rows = new ArrayList<>();
    for (Map.Entry<Integer, List<RequestRecord>> e : byLevel.entrySet()) {
      List<RequestRecord> rs = e.getValue();
      int failed = 0;
      int valid = 0;
      List<Double> ttft = new ArrayList<>();
      List<Double> e2e = new ArrayList<>();
      double tokens = 0;
      int ok = 0;
      for (RequestRecord r : rs) {
        if (validity != null && validity.test(r)) {
          valid++;
        }
        if (!r.succeeded()) {
          failed++;
          continue;
        }
        ok++;
        tokens += r.outputTokens();
        r.chunks().firstTokenOffsetNanos().ifPresent(t -> ttft.add(t / 1e6));
        r.chunks().lastTokenOffsetNanos().ifPresent(t -> e2e.add(t / 1e6));
      }
      rows.add(new Row(e.getKey(), rs.size(), failed,
          validity == null ? OptionalDouble.empty() : OptionalDouble.of(valid / (double) rs.size()),
          quantile(ttft, 0.5), quantile(ttft, 0.95), quantile(e2e, 0.5), quantile(e2e, 0.95),
          ok == 0 ? OptionalDouble.empty() : OptionalDouble.of(tokens / ok)));
    }
    return new LevelTable(dimension, rows);
  }

  static OptionalDouble quantile(List<Double> values, double p) {
    if (values.isEmpty()) {
      return OptionalDouble.empty();
    }
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(sorted);
    return OptionalDouble.of(QuantileMethod.LINEAR.quantile(sorted, p));
  }

  /** A fixed-width text table. */
  public String table() {
    StringBuilder s = new StringBuilder();
    String head = "%-10s %8s %7s %7s %9s %9s %9s %9s %8s%n";
    s.append(String.format(Locale.ROOT, head, dimension, "requests", "failed", "valid", "ttft p50", "ttft p95",
        "e2e p50", "e2e p95", "tokens"));
    for (Row r : rows) {
      s.append(String.format(Locale.ROOT, head, r.level(), r.requests(), r.failed(), pct(r.validRate()),
          ms(r.ttftP50Ms()), ms(r.ttftP95Ms()), ms(r.e2eP50Ms()), ms(r.e2eP95Ms()), num(r.meanOutputTokens())));
    }
    return s.toString();
  }

  private static String pct(OptionalDouble v) {
    return v.isPresent() ? String.format(Locale.ROOT, "%.1f%%", 100 * v.getAsDouble()) : "-";
  }

  private static String ms(OptionalDouble v) {
    return v.isPresent() ? String.format(Locale.ROOT, "%.2f", v.getAsDouble()) : "-";
  }

  private static String num(OptionalDouble v) {
    return v.isPresent() ? String.format(Locale.ROOT, "%.1f", v.getAsDouble()) : "-";
  }

  @Override
  public String toString() {
    return "LevelTable[" + dimension + ", " + rows.size() + " levels]";
  }
}
