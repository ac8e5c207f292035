package io.infermark.attribution.surrogate;

import java.util.Locale;
import java.util.Objects;

/**
 * How much one factor moves the surrogate's predictions: the mean over requests of |SHAP value|, in the
 * target's unit ({@code "ms"} for a latency target, {@code "log-odds"} for a tail target).
 *
 * @param factor the feature column's name
 * @param meanAbsShap mean |attribution|, in {@code unit}
 * @param unit the unit of {@code meanAbsShap}, {@link SurrogateTarget#unit()}
 */
public record FactorImportance(String factor, double meanAbsShap, String unit) {

  /** Validates. */
  public FactorImportance {
    Objects.requireNonNull(factor, "factor");
    Objects.requireNonNull(unit, "unit");
  }

  /** One line: {@code input_tokens 84.100 ms}. */
  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%s %.3f %s", factor, meanAbsShap, unit);
  }
}
