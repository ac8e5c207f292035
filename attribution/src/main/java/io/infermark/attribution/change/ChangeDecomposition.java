package io.infermark.attribution.change;

import io.infermark.attribution.shapley.CoalitionGame;
import io.infermark.attribution.shapley.Shapley;
import io.infermark.attribution.shapley.ShapleyValues;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.LongToDoubleFunction;

/**
 * Decomposes the change of a statistic (P99 by default) between run A and run B over named per-request
 * components, by Shapley values of the game "components in S take run B's values, the rest run A's".
 *
 * <pre>{@code
 * ComponentTable a = ComponentTable.fromRecords(runA.records(), phases, split, r -> r.tags().get("trace_line"));
 * ComponentTable b = ComponentTable.fromRecords(runB.records(), phases, split, r -> r.tags().get("trace_line"));
 * PercentileChange why = ChangeDecomposition.builder().percentile(0.99).build().decompose(a, b);
 * why.contribution("decode");   // ms of the P99 change due to decode
 * }</pre>
 *
 * <p>Outcomes are the sum of the components (additive phases, the default) or a caller's
 * {@link RowModel} of them. Requests are coupled {@link Coupling#PAIRED by key} or
 * {@link Coupling#BY_RANK by rank}; left unset, the coupling is paired when both tables have keys and by
 * rank otherwise, and the result says which was used. Up to {@link #exactUpTo} components (16 by default)
 * every coalition is evaluated and the values are exact; beyond, they are estimated by antithetic
 * permutation sampling with standard errors. Either way they add up to the change and do not depend on
 * the components' order. Instances are immutable and reusable.
 */
public final class ChangeDecomposition {

  /** Components up to which Shapley values are exact by default ({@code 2^16} coalitions). */
  public static final int DEFAULT_EXACT_UP_TO = 16;
  /** Permutations walked by default when sampling (128 antithetic pairs). */
  public static final int DEFAULT_PERMUTATIONS = 256;

  private final ChangeStatistic statistic;
  private final Optional<RowModel> model;
  private final Optional<Coupling> coupling;
  private final boolean dropUnmatched;
  private final int exactUpTo;
  private final int permutations;
  private final long seed;

  private ChangeDecomposition(Builder b) {
    this.statistic = b.statistic;
    this.model = b.model;
    this.coupling = b.coupling;
    this.dropUnmatched = b.dropUnmatched;
    this.exactUpTo = b.exactUpTo;
    this.permutations = b.permutations;
    this.seed = b.seed;
  }

  /** A builder: P99, additive outcomes, coupling chosen from the tables, exact up to 16 components. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Why the statistic moved from run A to run B.
   *
   * @throws IllegalArgumentException if the tables do not have the same components, or cannot be coupled
   *     as asked (no keys, or unmatched keys without {@link Builder#dropUnmatched(boolean)}), or hold
   *     NaN values without a row model, or a model or statistic returns a non-finite value
   */
  public PercentileChange decompose(ComponentTable a, ComponentTable b) {
    CoupledRuns runs = couple(a, b);
    List<String> names = a.components();
    int k = names.size();
    ComponentSwapGame game = new ComponentSwapGame(names, runs, model, statistic);
    ShapleyValues values;
    double[] forward = new double[k];
    double[] reverse = new double[k];
    if (k <= exactUpTo) {
      double[] table = game.valueTable();
      values = Shapley.exact(CoalitionGame.of(names, s -> table[(int) s]));
      substitutions(s -> table[(int) s], k, forward, reverse);
    } else {
      values = Shapley.permutation(game, permutations, seed);
      substitutions(game::value, k, forward, reverse);
    }
    return new PercentileChange(statistic.name(), values, runs.coupling, runs.size(), runs.droppedA, runs.droppedB,
        a.skippedRecords(), b.skippedRecords(), forward, reverse);
  }

  /**
   * The coalition game this decomposition solves, for use with another estimator (for example
   * {@link Shapley#kernel(CoalitionGame, int, long)}): {@code value(S)} is the statistic with the
   * components in {@code S} taken from run B, the players being run A's components. It keeps the last
   * coalition's outcomes to move to the next one cheaply, so it is not thread-safe.
   *
   * @throws IllegalArgumentException as {@link #decompose(ComponentTable, ComponentTable)}
   */
  public CoalitionGame game(ComponentTable a, ComponentTable b) {
    return new ComponentSwapGame(a.components(), couple(a, b), model, statistic);
  }

  private CoupledRuns couple(ComponentTable a, ComponentTable b) {
    Objects.requireNonNull(a, "a");
    Objects.requireNonNull(b, "b");
    CoupledRuns.alignedColumns(a, b);
    if (model.isEmpty() && (a.hasMissingValues() || b.hasMissingValues())) {
      throw new IllegalArgumentException("run " + (a.hasMissingValues() ? "A" : "B") + " has unknown (NaN) component "
          + "values, which an additive decomposition cannot sum; give a row model that reads them, or fill them");
    }
    Coupling used = coupling.orElse(a.keys().isPresent() && b.keys().isPresent() ? Coupling.PAIRED
        : Coupling.BY_RANK);
    return used == Coupling.PAIRED ? CoupledRuns.paired(a, b, dropUnmatched) : CoupledRuns.byRank(a, b, model);
  }

  private static void substitutions(LongToDoubleFunction v, int k, double[] forward,
      double[] reverse) {
    long s = 0;
    double previous = v.applyAsDouble(0);
    for (int i = 0; i < k; i++) {
      s |= 1L << i;
      double next = v.applyAsDouble(s);
      forward[i] = next - previous;
      previous = next;
    }
    s = 0;
    previous = v.applyAsDouble(0);
    for (int i = k - 1; i >= 0; i--) {
      s |= 1L << i;
      double next = v.applyAsDouble(s);
      reverse[i] = next - previous;
      previous = next;
    }
  }

  @Override
  public String toString() {
    return "ChangeDecomposition[" + statistic.name() + ", " + (model.isPresent() ? "row model" : "additive") + ", "
        + coupling.map(Coupling::name).orElse("coupling by keys if present") + ", exact up to " + exactUpTo + "]";
  }

  /** Configures a {@link ChangeDecomposition}. */
  public static final class Builder {
    private ChangeStatistic statistic = ChangeStatistic.percentile(0.99);
    private Optional<RowModel> model = Optional.empty();
    private Optional<Coupling> coupling = Optional.empty();
    private boolean dropUnmatched;
    private int exactUpTo = DEFAULT_EXACT_UP_TO;
    private int permutations = DEFAULT_PERMUTATIONS;
    private long seed = 1;

    private Builder() {
    }

    /**
     * Decomposes the change of the {@code p}-quantile (linear, numpy-compatible). Default 0.99.
     *
     * @throws IllegalArgumentException if p is outside [0, 1]
     */
    public Builder percentile(double p) {
      this.statistic = ChangeStatistic.percentile(p);
      return this;
    }

    /** Decomposes the change of any statistic of the outcomes. */
    public Builder statistic(ChangeStatistic statistic) {
      this.statistic = Objects.requireNonNull(statistic, "statistic");
      return this;
    }

    /**
     * Outcomes are {@code model.predict(components)} instead of the sum of the components. Each
     * coalition then costs one prediction per request whose row it changes.
     */
    public Builder model(RowModel model) {
      this.model = Optional.of(Objects.requireNonNull(model, "model"));
      return this;
    }

    /** How requests are matched; by default paired when both tables have keys, by rank otherwise. */
    public Builder coupling(Coupling coupling) {
      this.coupling = Optional.of(Objects.requireNonNull(coupling, "coupling"));
      return this;
    }

    /**
     * With paired coupling, leave out requests whose key is missing from the other run (counted in
     * {@link PercentileChange#droppedA()} and {@link PercentileChange#droppedB()}) instead of failing.
     * Default false. Coupling by rank drops nothing, so {@link #build()} rejects this together with an
     * explicit {@link Coupling#BY_RANK}; with the coupling left unset it applies when the tables have keys
     * (and are therefore paired).
     */
    public Builder dropUnmatched(boolean drop) {
      this.dropUnmatched = drop;
      return this;
    }

    /**
     * Components up to which every coalition is evaluated and the values are exact ({@code 2^k}
     * coalitions). Default 16.
     *
     * @throws IllegalArgumentException if outside [0, {@value Shapley#MAX_EXACT_PLAYERS}]
     */
    public Builder exactUpTo(int components) {
      if (components < 0 || components > Shapley.MAX_EXACT_PLAYERS) {
        throw new IllegalArgumentException("exactUpTo must be in [0, " + Shapley.MAX_EXACT_PLAYERS + "], was "
            + components);
      }
      this.exactUpTo = components;
      return this;
    }

    /**
     * Permutations walked when there are more components than {@link #exactUpTo(int)}: an even number of
     * at least 4. Default 256.
     *
     * @throws IllegalArgumentException if odd or below 4
     */
    public Builder permutations(int permutations) {
      if (permutations < 4 || permutations % 2 != 0) {
        throw new IllegalArgumentException("permutations must be even and at least 4, was " + permutations);
      }
      this.permutations = permutations;
      return this;
    }

    /** The seed of the permutation sampling. Default 1. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /**
     * The configured decomposition.
     *
     * @throws IllegalStateException if {@code dropUnmatched(true)} was combined with {@link Coupling#BY_RANK},
     *     which would silently ignore it
     */
    public ChangeDecomposition build() {
      if (dropUnmatched && coupling.equals(Optional.of(Coupling.BY_RANK))) {
        throw new IllegalStateException("dropUnmatched(true) leaves out requests without a partner of the same key,"
            + " which only PAIRED coupling has; BY_RANK couples every request and drops none. Couple PAIRED (or leave"
            + " the coupling unset) to drop unmatched keys, or remove dropUnmatched(true)");
      }
      return new ChangeDecomposition(this);
    }
  }
}
