package io.infermark.attribution.change;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The two runs' component columns after coupling: row {@code r} of {@code a} and row {@code r} of
 * {@code b} describe the same request (paired) or the same quantile level (by rank). Columns are in run
 * A's component order.
 */
final class CoupledRuns {

  final double[][] a;
  final double[][] b;
  final Coupling coupling;
  final int droppedA;
  final int droppedB;

  private CoupledRuns(double[][] a, double[][] b, Coupling coupling, int droppedA, int droppedB) {
    this.a = a;
    this.b = b;
    this.coupling = coupling;
    this.droppedA = droppedA;
    this.droppedB = droppedB;
  }

  int size() {
    return a[0].length;
  }

  /** B's columns reordered to A's component order. */
  static double[][] alignedColumns(ComponentTable a, ComponentTable b) {
    List<String> names = a.components();
    if (!new HashSet<>(names).equals(new HashSet<>(b.components()))) {
      throw new IllegalArgumentException("runs A and B must have the same components; A has " + names + ", B has "
          + b.components());
    }
    double[][] columns = new double[names.size()][];
    for (int j = 0; j < names.size(); j++) {
      columns[j] = b.columnView(b.components().indexOf(names.get(j)));
    }
    return columns;
  }

  static double[][] columns(ComponentTable t) {
    double[][] columns = new double[t.components().size()][];
    for (int j = 0; j < columns.length; j++) {
      columns[j] = t.columnView(j);
    }
    return columns;
  }

  /** Pairs rows by key, in run A's row order. */
  static CoupledRuns paired(ComponentTable tableA, ComponentTable tableB, boolean dropUnmatched) {
    List<String> keysA = tableA.keys().orElseThrow(() -> new IllegalArgumentException("paired coupling needs"
        + " keys, and run A's table has none; build it with keys or couple BY_RANK"));
    List<String> keysB = tableB.keys().orElseThrow(() -> new IllegalArgumentException("paired coupling needs"
        + " keys, and run B's table has none; build it with keys or couple BY_RANK"));
    Map<String, Integer> rowOfB = new HashMap<>();
    for (int r = 0; r < keysB.size(); r++) {
      rowOfB.put(keysB.get(r), r);
    }
    List<int[]> pairs = new ArrayList<>();
    List<String> onlyA = new ArrayList<>();
    boolean[] matchedB = new boolean[keysB.size()];
    for (int r = 0; r < keysA.size(); r++) {
      Integer partner = rowOfB.get(keysA.get(r));
      if (partner == null) {
        onlyA.add(keysA.get(r));
      } else {
        pairs.add(new int[] {r, partner});
        matchedB[partner] = true;
      }
    }
    List<String> onlyB = new ArrayList<>();
    for (int r = 0; r < keysB.size(); r++) {
      if (!matchedB[r]) {
        onlyB.add(keysB.get(r));
      }
    }
    if (!dropUnmatched && (!onlyA.isEmpty() || !onlyB.isEmpty())) {
      throw new IllegalArgumentException(onlyA.size() + " requests of run A and " + onlyB.size() + " of run B have"
          + " no partner with the same key (A only: " + head(onlyA) + "; B only: " + head(onlyB) + "); pair runs of"
          + " the same trace, drop the unmatched requests (dropUnmatched), or couple BY_RANK");
    }
    if (pairs.isEmpty()) {
      throw new IllegalArgumentException("no key of run A matches a key of run B; nothing to pair");
    }
    double[][] a = columns(tableA);
    double[][] b = alignedColumns(tableA, tableB);
    double[][] ca = new double[a.length][pairs.size()];
    double[][] cb = new double[a.length][pairs.size()];
    for (int i = 0; i < pairs.size(); i++) {
      int[] p = pairs.get(i);
      for (int j = 0; j < a.length; j++) {
        ca[j][i] = a[j][p[0]];
        cb[j][i] = b[j][p[1]];
      }
    }
    return new CoupledRuns(ca, cb, Coupling.PAIRED, onlyA.size(), onlyB.size());
  }

  /** Matches rows by the rank of their outcome at {@code max(n_A, n_B)} common quantile levels. */
  static CoupledRuns byRank(ComponentTable tableA, ComponentTable tableB, Optional<RowModel> model) {
    double[][] a = columns(tableA);
    double[][] b = alignedColumns(tableA, tableB);
    int m = Math.max(tableA.size(), tableB.size());
    return new CoupledRuns(atLevels(a, model, m), atLevels(b, model, m), Coupling.BY_RANK, 0, 0);
  }

  /** The rows ordered by outcome (ties by row), resampled at {@code m} levels by nearest rank. */
  private static double[][] atLevels(double[][] columns, Optional<RowModel> model, int m) {
    int n = columns[0].length;
    double[] outcome = outcomes(columns, model);
    Integer[] order = new Integer[n];
    for (int r = 0; r < n; r++) {
      order[r] = r;
    }
    Arrays.sort(order, (x, y) -> {
      int c = Double.compare(outcome[x], outcome[y]);
      return c != 0 ? c : Integer.compare(x, y);
    });
    double[][] out = new double[columns.length][m];
    for (int i = 0; i < m; i++) {
      // round(i (n−1) / (m−1)), half up, in integers; m = n maps every rank to itself.
      int rank = m == 1 ? 0 : (int) ((2L * i * (n - 1) + (m - 1)) / (2L * (m - 1)));
      int row = order[rank];
      for (int j = 0; j < columns.length; j++) {
        out[j][i] = columns[j][row];
      }
    }
    return out;
  }

  static double[] outcomes(double[][] columns, Optional<RowModel> model) {
    int n = columns[0].length;
    double[] y = new double[n];
    double[] row = new double[columns.length];
    for (int r = 0; r < n; r++) {
      if (model.isPresent()) {
        for (int j = 0; j < columns.length; j++) {
          row[j] = columns[j][r];
        }
        y[r] = checkedPrediction(model.get(), row, r);
      } else {
        double sum = 0;
        for (double[] column : columns) {
          sum += column[r];
        }
        y[r] = sum;
      }
    }
    return y;
  }

  static double checkedPrediction(RowModel model, double[] row, int r) {
    double y = model.predict(row);
    if (!Double.isFinite(y)) {
      throw new IllegalArgumentException("the row model returned " + y + " for request " + r + " with components "
          + Arrays.toString(row) + "; it must return finite milliseconds");
    }
    return y;
  }

  private static String head(List<String> keys) {
    if (keys.isEmpty()) {
      return "none";
    }
    return keys.size() <= 3 ? String.join(", ", keys) : String.join(", ", keys.subList(0, 3)) + ", …";
  }
}
