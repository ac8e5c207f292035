package io.infermark.perturbation.design;

import java.util.List;
import java.util.Locale;

/**
 * Designs compared on the same space, one {@link DesignQuality} row each; {@link #table()} renders
 * them as a fixed-width text table.
 *
 * @param rows one row per design, in the order given
 */
public record DesignComparison(List<DesignQuality> rows) {

  /** Copies. */
  public DesignComparison {
    rows = List.copyOf(rows);
    if (rows.isEmpty()) {
      throw new IllegalArgumentException("a design comparison needs at least one design");
    }
  }

  /** The row of the design with the highest pairwise coverage, ties broken by the larger minimum distance. */
  public DesignQuality best() {
    DesignQuality best = rows.get(0);
    for (DesignQuality q : rows) {
      if (q.pairwiseCoverage() > best.pairwiseCoverage()
          || (q.pairwiseCoverage() == best.pairwiseCoverage() && q.minDistance() > best.minDistance())) {
        best = q;
      }
    }
    return best;
  }

  /** A text table: design, runs, coverage, worst pair, min and mean distance, diversity. */
  public String table() {
    int width = "design".length();
    for (DesignQuality q : rows) {
      width = Math.max(width, q.name().length());
    }
    StringBuilder s = new StringBuilder();
    String format = "%-" + width + "s  %5s  %8s  %10s  %8s  %9s  %9s%n";
    s.append(String.format(Locale.ROOT, format, "design", "runs", "coverage", "worst pair", "min dist", "mean dist",
        "diversity"));
    for (DesignQuality q : rows) {
      s.append(String.format(Locale.ROOT, format, q.name(), q.runs(), f(q.pairwiseCoverage()),
          f(q.worstPairCoverage()), f(q.minDistance()), f(q.meanDistance()),
          q.diversity().isPresent() ? f(q.diversity().getAsDouble()) : "-"));
    }
    return s.toString();
  }

  private static String f(double v) {
    return String.format(Locale.ROOT, "%.3f", v);
  }

  @Override
  public String toString() {
    return "DesignComparison[" + rows.size() + " designs, best coverage: " + best().name() + "]";
  }
}
