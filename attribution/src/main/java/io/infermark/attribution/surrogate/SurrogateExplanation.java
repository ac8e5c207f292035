package io.infermark.attribution.surrogate;

import io.infermark.attribution.tree.TreeShapValues;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;

/**
 * Why the surrogate predicts what it does for each request: per-request TreeSHAP attributions in the
 * target's unit (ms for a latency target), their mean |value| per factor ranked, the efficiency check
 * and the model's held-out fit quality.
 *
 * <p>For each request, {@code baseValue() + Σ attributions = prediction} — the explanation adds up
 * to the model's prediction, not to the measured latency; the gap between those two is the model's
 * error, which {@link #fit()} measures. {@link #maxEfficiencyGap()} is computed over every request,
 * not assumed.
 */
public final class SurrogateExplanation {

  private final TreeShapValues values;
  private final long[] requestIndexes;
  private final SurrogateTarget target;
  private final FitQuality fit;
  private final List<FactorImportance> importance;

  SurrogateExplanation(TreeShapValues values, long[] requestIndexes, SurrogateTarget target, FitQuality fit) {
    this.values = values;
    this.requestIndexes = requestIndexes;
    this.target = target;
    this.fit = fit;
    double[] mean = values.meanAbsolute();
    List<FactorImportance> list = new ArrayList<>();
    for (int f = 0; f < mean.length; f++) {
      list.add(new FactorImportance(values.features().get(f), mean[f], target.unit()));
    }
    list.sort(Comparator.comparingDouble((FactorImportance i) -> -i.meanAbsShap()));
    this.importance = List.copyOf(list);
  }

  /** The factors (feature columns), in column order. */
  public List<String> factors() {
    return values.features();
  }

  /** What was explained. */
  public SurrogateTarget target() {
    return target;
  }

  /** The unit of attributions, base value and predictions: {@code "ms"}, or {@code "log-odds"}. */
  public String unit() {
    return target.unit();
  }

  /** The number of requests explained. */
  public int requestCount() {
    return requestIndexes.length;
  }

  /** The schedule index ({@code RequestRecord.index()}) of the request in row {@code row}. */
  public long requestIndex(int row) {
    return requestIndexes[row];
  }

  /** Row {@code row}'s attribution per factor, in column order (a copy). */
  public double[] attributions(int row) {
    return values.row(row);
  }

  /** The model's expected prediction, where every request's attributions start. */
  public double baseValue() {
    return values.baseValue();
  }

  /** The model's prediction for row {@code row}. */
  public double prediction(int row) {
    return values.prediction(row);
  }

  /** Factors by decreasing mean |attribution| over requests, in the target's unit. */
  public List<FactorImportance> importance() {
    return importance;
  }

  /** Factor names by decreasing mean |attribution|. */
  public List<String> ranking() {
    return importance.stream().map(FactorImportance::factor).toList();
  }

  /** The largest |base + Σ attributions − prediction| over all requests, in the target's unit. */
  public double maxEfficiencyGap() {
    return values.maxEfficiencyGap();
  }

  /** The model's held-out quality: how far to trust these attributions. */
  public FitQuality fit() {
    return fit;
  }

  /** The raw TreeSHAP values. */
  public TreeShapValues values() {
    return values;
  }

  /**
   * The per-request attributions as CSV: a header {@code request_index,prediction,base,<factor>…}, then
   * one line per request in row order, numbers in the target's {@link #unit()} with full precision, so
   * they can be joined with the records (by {@code RequestRecord.index()}) or plotted elsewhere.
   */
  public String toCsv() {
    StringBuilder out = new StringBuilder("request_index,prediction,base");
    for (String factor : factors()) {
      out.append(',').append(csvField(factor));
    }
    out.append('\n');
    for (int row = 0; row < requestIndexes.length; row++) {
      out.append(requestIndexes[row]).append(',').append(prediction(row)).append(',').append(baseValue());
      for (double v : attributions(row)) {
        out.append(',').append(v);
      }
      out.append('\n');
    }
    return out.toString();
  }

  /**
   * Writes {@link #toCsv()} to {@code file} in UTF-8, replacing it.
   *
   * @throws UncheckedIOException if the file cannot be written
   */
  public void writeCsv(Path file) {
    try {
      Files.writeString(file, toCsv(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("could not write surrogate attributions to " + file, e);
    }
  }

  private static String csvField(String s) {
    return s.contains(",") || s.contains("\"") || s.contains("\n") ? '"' + s.replace("\"", "\"\"") + '"' : s;
  }

  @Override
  public String toString() {
    StringJoiner top = new StringJoiner(", ");
    for (int i = 0; i < Math.min(5, importance.size()); i++) {
      top.add(importance.get(i).toString());
    }
    return String.format(Locale.ROOT, "SurrogateExplanation[%s, %d requests, mean |SHAP|: %s; base %.3f %s, "
        + "efficiency gap %.3g; %s]", target.name(), requestIndexes.length, top, baseValue(), unit(),
        maxEfficiencyGap(), fit);
  }
}
