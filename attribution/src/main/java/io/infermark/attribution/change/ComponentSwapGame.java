package io.infermark.attribution.change;

import io.infermark.attribution.shapley.CoalitionGame;
import java.util.List;
import java.util.Optional;

/**
 * The game whose Shapley values split the change of a statistic: {@code v(S)} is the statistic of the
 * coupled requests' outcomes when the components in {@code S} take run B's values and the others run
 * A's.
 *
 * <p>The game keeps the outcomes of the coalition it evaluated last and moves to the next one by the
 * components that differ: for additive outcomes, one pass adding or subtracting a component's per-request
 * delta {@code b − a}; for a row model, new predictions for the requests whose row changed. Walking
 * coalitions in Gray-code order ({@link #valueTable()}) or along a permutation therefore costs one
 * component update per coalition. Percentiles are taken by {@link TailSelector}, fused with the update in
 * the additive case. Values are a function of the coalition up to floating-point rounding of the running
 * sums (a few ulps of the outcomes). Not thread-safe.
 */
final class ComponentSwapGame implements CoalitionGame {

  private final List<String> names;
  private final int k;
  private final int n;
  private final double[][] a;
  private final double[][] b;
  private final Optional<RowModel> model;
  private final ChangeStatistic statistic;
  private final TailSelector selector;
  /** Additive: b − a per component and request. */
  private final double[][] delta;
  /** Additive: Σ_j a_j per request, the outcomes of the empty coalition. */
  private final double[] base;
  /** Model: the current coalition's component rows. */
  private final double[][] rows;
  private final double[] y;
  private long current;
  private double currentValue;

  ComponentSwapGame(List<String> names, CoupledRuns runs, Optional<RowModel> model, ChangeStatistic statistic) {
    this.names = List.copyOf(names);
    this.k = names.size();
    this.a = runs.a;
    this.b = runs.b;
    this.n = runs.size();
    this.model = model;
    this.statistic = statistic;
    this.selector = statistic.quantile().isPresent() ? new TailSelector(n, statistic.quantile().getAsDouble()) : null;
    this.y = CoupledRuns.outcomes(a, model);
    if (model.isPresent()) {
      this.delta = null;
      this.base = null;
      this.rows = new double[n][k];
      for (int r = 0; r < n; r++) {
        for (int j = 0; j < k; j++) {
          rows[r][j] = a[j][r];
        }
      }
    } else {
      this.rows = null;
      this.base = y.clone();
      this.delta = new double[k][n];
      for (int j = 0; j < k; j++) {
        for (int r = 0; r < n; r++) {
          delta[j][r] = b[j][r] - a[j][r];
        }
      }
    }
    this.current = 0;
    this.currentValue = statistic(y);
  }

  @Override
  public List<String> players() {
    return names;
  }

  /** Every coalition's value, indexed by coalition, computed in Gray-code order (one component change a step). */
  double[] valueTable() {
    int size = 1 << k;
    double[] table = new double[size];
    for (int i = 0; i < size; i++) {
      int g = i ^ (i >>> 1);
      table[g] = value(g);
    }
    return table;
  }

  /** How many percentile evaluations fell back to a selection over all requests. */
  long fullSelections() {
    return selector == null ? 0 : selector.fullSelections();
  }

  @Override
  public double value(long coalition) {
    if ((coalition & ~fullCoalition()) != 0) {
      throw new IllegalArgumentException("coalition " + Long.toBinaryString(coalition) + " names players beyond the "
          + k + " components");
    }
    if (coalition == current) {
      return currentValue;
    }
    currentValue = model.isPresent() ? modelValue(coalition) : additiveValue(coalition);
    current = coalition;
    return currentValue;
  }

  private double additiveValue(long coalition) {
    long changes = coalition ^ current;
    if (Long.bitCount(changes) > Long.bitCount(coalition) + 1) {
      // Cheaper to rebuild from the empty coalition than to undo and redo most components.
      System.arraycopy(base, 0, y, 0, n);
      changes = coalition;
      if (changes == 0) {
        return statistic(y);
      }
    }
    int last = 63 - Long.numberOfLeadingZeros(changes);
    for (long rest = changes & ~(1L << last); rest != 0; rest &= rest - 1) {
      int j = Long.numberOfTrailingZeros(rest);
      boolean add = (coalition & (1L << j)) != 0;
      double[] d = delta[j];
      if (add) {
        for (int r = 0; r < n; r++) {
          y[r] += d[r];
        }
      } else {
        for (int r = 0; r < n; r++) {
          y[r] -= d[r];
        }
      }
    }
    boolean add = (coalition & (1L << last)) != 0;
    if (selector != null) {
      return selector.updateAndQuantile(y, delta[last], add);
    }
    double[] d = delta[last];
    for (int r = 0; r < n; r++) {
      y[r] = add ? y[r] + d[r] : y[r] - d[r];
    }
    return statistic(y);
  }

  private double modelValue(long coalition) {
    long changes = coalition ^ current;
    RowModel m = model.get();
    for (int r = 0; r < n; r++) {
      double[] row = rows[r];
      boolean changed = false;
      for (long rest = changes; rest != 0; rest &= rest - 1) {
        int j = Long.numberOfTrailingZeros(rest);
        double v = (coalition & (1L << j)) != 0 ? b[j][r] : a[j][r];
        if (row[j] != v) {
          row[j] = v;
          changed = true;
        }
      }
      if (changed) {
        y[r] = CoupledRuns.checkedPrediction(m, row, r);
      }
    }
    return statistic(y);
  }

  private double statistic(double[] outcomes) {
    return selector != null ? selector.quantile(outcomes) : statistic.of(outcomes);
  }

  @Override
  public String toString() {
    return "ComponentSwapGame[" + statistic.name() + " over " + names + ", " + n + " requests]";
  }
}
