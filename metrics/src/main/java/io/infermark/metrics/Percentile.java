package io.infermark.metrics;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;

/** The percentiles every summary and report shows, with their labels and report field names. */
public enum Percentile {
  /** The median. */
  P50(0.5),
  /** The 90th percentile. */
  P90(0.9),
  /** The 95th percentile. */
  P95(0.95),
  /** The 99th percentile; flagged when it rests on fewer than 100 values. */
  P99(0.99),
  /** The 99.9th percentile; flagged when it rests on fewer than 1000 values. */
  P99_9(0.999);

  private final double p;

  Percentile(double p) {
    this.p = p;
  }

  /** The quantile as a fraction in [0, 1], e.g. 0.99. */
  public double p() {
    return p;
  }

  /** The display label, e.g. {@code p99.9}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', '.');
  }

  /**
   * The percentage of any quantile {@code p} (a fraction in [0, 1]) as it appears in names and labels,
   * with at most four decimals and no trailing zeros: 0.99 → {@code "99"}, 0.999 → {@code "99.9"},
   * 0.5 → {@code "50"}, 1/3 → {@code "33.3333"}.
   */
  public static String percentText(double p) {
    return new BigDecimal(Double.toString(p * 100)).setScale(4, RoundingMode.HALF_EVEN).stripTrailingZeros()
        .toPlainString();
  }

  /** The report field name, e.g. {@code p99_9}. */
  public String fieldName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
