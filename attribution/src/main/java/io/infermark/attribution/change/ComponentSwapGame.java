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
 * the additive case, where requests that cannot reach the percentile's ranks in any coalition are
 * dropped first ({@link Pruned}). Values are a function of the coalition up to floating-point rounding of the running
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
  /** Model: the row handed to the model, a copy, so that a model writing into it cannot corrupt {@link #rows}. */
  private final double[] scratch;
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
    double[] outcomes = CoupledRuns.outcomes(a, model);
    if (model.isPresent()) {
      this.selector = statistic.quantile().isPresent()
          ? new TailSelector(n, statistic.quantile().getAsDouble(), statistic.quantileMethod().orElseThrow()) : null;
      this.y = outcomes;
      this.delta = null;
      this.base = null;
      this.rows = new double[n][k];
      this.scratch = new double[k];
      for (int r = 0; r < n; r++) {
        for (int j = 0; j < k; j++) {
          rows[r][j] = a[j][r];
        }
      }
    } else {
      this.rows = null;
      this.scratch = null;
      double[][] d = new double[k][n];
      for (int j = 0; j < k; j++) {
        for (int r = 0; r < n; r++) {
          d[j][r] = b[j][r] - a[j][r];
        }
      }
      if (statistic.quantile().isPresent()) {
        Pruned pruned = Pruned.of(outcomes, d, TailSelector.position(n, statistic.quantile().getAsDouble(),
            statistic.quantileMethod().orElseThrow()));
        this.selector = new TailSelector(pruned.base.length, pruned.lo, pruned.frac);
        this.base = pruned.base;
        this.delta = pruned.delta;
      } else {
        this.selector = null;
        this.base = outcomes;
        this.delta = d;
      }
      this.y = base.clone();
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
    int count = y.length;
    if (Long.bitCount(changes) > Long.bitCount(coalition) + 1) {
      // Cheaper to rebuild from the empty coalition than to undo and redo most components.
      System.arraycopy(base, 0, y, 0, count);
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
        for (int r = 0; r < count; r++) {
          y[r] += d[r];
        }
      } else {
        for (int r = 0; r < count; r++) {
          y[r] -= d[r];
        }
      }
    }
    boolean add = (coalition & (1L << last)) != 0;
    if (selector != null) {
      return selector.updateAndQuantile(y, delta[last], add);
    }
    double[] d = delta[last];
    for (int r = 0; r < count; r++) {
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
        System.arraycopy(row, 0, scratch, 0, k);
        y[r] = CoupledRuns.checkedPrediction(m, scratch, r);
      }
    }
    return statistic(y);
  }

  private double statistic(double[] outcomes) {
    return selector != null ? selector.quantile(outcomes) : statistic.of(outcomes);
  }

  /** How many requests the additive percentile game evaluates after pruning. */
  int evaluatedRequests() {
    return y.length;
  }

  /**
   * The requests of an additive percentile game that can matter. A request's outcome lies, over all
   * coalitions, in {@code [L_r, U_r] = base_r + [Σ min(0, δ_jr), Σ max(0, δ_jr)]}. The quantile reads
   * ranks {@code lo} and {@code lo + 1} (see {@link TailSelector#position}); in every coalition the value
   * at rank {@code lo} is at least {@code tLow}, rank {@code lo} of the {@code L}s (each order statistic
   * is at least that of the lower bounds), and the value at rank {@code lo + 1} at most {@code tHigh},
   * rank {@code lo + 1} of the {@code U}s. A request with {@code U_r < tLow} is therefore below both ranks
   * in every coalition and one with {@code L_r > tHigh} above both: dropping them changes no value, only
   * shifts the lower rank by the number dropped from below. A relative margin of 1e-9 keeps the running
   * sums' rounding from crossing the thresholds. For a tail percentile whose components change moderately
   * this keeps a few per cent of the requests.
   */
  private static final class Pruned {
    final double[] base;
    final double[][] delta;
    final int lo;
    final double frac;

    private Pruned(double[] base, double[][] delta, int lo, double frac) {
      this.base = base;
      this.delta = delta;
      this.lo = lo;
      this.frac = frac;
    }

    /** The requests that can matter to the quantile read at fractional rank {@code position}. */
    static Pruned of(double[] base, double[][] delta, double position) {
      int n = base.length;
      int lo = TailSelector.lowerRank(position);
      double frac = TailSelector.weight(position);
      double[] lower = base.clone();
      double[] upper = base.clone();
      double scale = 0;
      for (double[] d : delta) {
        for (int r = 0; r < n; r++) {
          if (d[r] < 0) {
            lower[r] += d[r];
          } else {
            upper[r] += d[r];
          }
        }
      }
      for (int r = 0; r < n; r++) {
        scale = Math.max(scale, Math.max(Math.abs(lower[r]), Math.abs(upper[r])));
      }
      double margin = 1e-9 * scale;
      double[] scratch = lower.clone();
      TailSelector.select(scratch, 0, n - 1, lo);
      double tLow = scratch[lo] - margin;
      System.arraycopy(upper, 0, scratch, 0, n);
      int hi = Math.min(lo + 1, n - 1);
      TailSelector.select(scratch, 0, n - 1, hi);
      double tHigh = scratch[hi] + margin;
      int below = 0;
      int kept = 0;
      int[] keep = new int[n];
      for (int r = 0; r < n; r++) {
        if (upper[r] < tLow) {
          below++;
        } else if (!(lower[r] > tHigh)) {
          keep[kept++] = r;
        }
      }
      double[] prunedBase = new double[kept];
      double[][] prunedDelta = new double[delta.length][kept];
      for (int i = 0; i < kept; i++) {
        prunedBase[i] = base[keep[i]];
        for (int j = 0; j < delta.length; j++) {
          prunedDelta[j][i] = delta[j][keep[i]];
        }
      }
      return new Pruned(prunedBase, prunedDelta, lo - below, frac);
    }
  }

  @Override
  public String toString() {
    return "ComponentSwapGame[" + statistic.name() + " over " + names + ", " + n + " requests]";
  }
}
