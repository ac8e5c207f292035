package io.infermark.attribution.surrogate;

import java.util.Locale;

/**
 * How much one factor moves the surrogate's predictions: the mean over requests of |SHAP value|, in the
 * target's unit (ms for a latency target).
 *
 * @param factor the feature column's name
 * @param meanAbsShap mean |attribution|
 */
public record FactorImportance(String factor, double meanAbsShap) {

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "%s %.3f", factor, meanAbsShap);
  }
}
