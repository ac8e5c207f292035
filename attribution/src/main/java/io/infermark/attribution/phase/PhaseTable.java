package io.infermark.attribution.phase;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Renders {@link PhaseBreakdown}s side by side as a Markdown table whose columns are padded so it
 * also reads well on a console: a row per phase, and per breakdown its mean in ms and its share.
 *
 * <pre>{@code
 * | phase                     |  mean ms | share | >=P99 ms | share |
 * |---------------------------|---------:|------:|---------:|------:|
 * | connect                   |    0.120 |  0.2% |    0.000 |  0.0% |
 * | waiting                   |   20.511 | 35.1% |  200.840 | 88.1% |
 * | total                     |   58.400 |  100% |  228.000 |  100% |
 * | requests                  |      100 |       |        1 |       |
 * }</pre>
 */
public final class PhaseTable {

  private PhaseTable() {}

  /**
   * The table of the given breakdowns, lines separated by {@code \n} and ending with one.
   *
   * @throws IllegalArgumentException if there are none or they were split on different bases
   */
  public static String markdown(List<PhaseBreakdown> breakdowns) {
    if (breakdowns.isEmpty()) {
      throw new IllegalArgumentException("give at least one phase breakdown to render");
    }
    LatencyBasis basis = breakdowns.get(0).basis();
    for (PhaseBreakdown b : breakdowns) {
      if (b.basis() != basis) {
        throw new IllegalArgumentException("breakdowns on different bases cannot share a table: " + basis + " and "
            + b.basis());
      }
    }
    List<String[]> rows = new ArrayList<>();
    List<String> header = new ArrayList<>(List.of("phase"));
    for (PhaseBreakdown b : breakdowns) {
      header.add(b.selectionLabel() + " ms");
      header.add("share");
    }
    rows.add(header.toArray(String[]::new));
    for (LatencyPhase p : basis.phases()) {
      List<String> row = new ArrayList<>(List.of(p.label()));
      for (PhaseBreakdown b : breakdowns) {
        row.add(String.format(Locale.ROOT, "%.3f", b.meanMillis(p)));
        row.add(String.format(Locale.ROOT, "%.1f%%", 100 * b.share(p)));
      }
      rows.add(row.toArray(String[]::new));
    }
    List<String> total = new ArrayList<>(List.of("total (" + basis.metric().name() + ")"));
    List<String> count = new ArrayList<>(List.of("requests"));
    for (PhaseBreakdown b : breakdowns) {
      total.add(String.format(Locale.ROOT, "%.3f", b.meanTotalMillis()));
      total.add("100%");
      count.add(Integer.toString(b.requestCount()));
      count.add("");
    }
    rows.add(total.toArray(String[]::new));
    rows.add(count.toArray(String[]::new));

    int columns = header.size();
    int[] width = new int[columns];
    for (String[] row : rows) {
      for (int c = 0; c < columns; c++) {
        width[c] = Math.max(width[c], Math.max(row[c].length(), 3));
      }
    }
    StringBuilder out = new StringBuilder();
    for (int r = 0; r < rows.size(); r++) {
      line(out, rows.get(r), width);
      if (r == 0) {
        out.append('|');
        for (int c = 0; c < columns; c++) {
          out.append(c == 0 ? "-".repeat(width[c] + 2) : "-".repeat(width[c] + 1) + ":").append('|');
        }
        out.append('\n');
      }
    }
    return out.toString();
  }

  private static void line(StringBuilder out, String[] cells, int[] width) {
    out.append('|');
    for (int c = 0; c < cells.length; c++) {
      String pad = " ".repeat(width[c] - cells[c].length());
      out.append(' ').append(c == 0 ? cells[c] + pad : pad + cells[c]).append(" |");
    }
    out.append('\n');
  }
}
