package io.infermark.attribution.intervention;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An intervention experiment: runs a configuration under every combination of two settings of each
 * named {@link Factor} (a 2^k full factorial), in interleaved blocks, measures a statistic per block,
 * and estimates what switching every factor from A to B changes, with a confidence interval and a
 * signed-rank test, attributed across the factors by Shapley values.
 *
 * <pre>{@code
 * InterventionResult r = InterventionExperiment.of(Benchmark.target(target).prompts(prompts))
 *     .factor(Factor.of("concurrency", b -> b.load(LoadProfile.concurrency(4).requests(200)),
 *                                      b -> b.load(LoadProfile.concurrency(16).requests(200))))
 *     .repetitions(6)
 *     .statistic(BlockStatistic.percentile(LatencyMetric.E2E, 0.99))
 *     .build()
 *     .run();
 * r.change();   // ChangeEstimate[+41.3, 95% CI [35.0, 47.9] (bca, 10000 resamples), signed-rank ...]
 * }</pre>
 *
 * <h2>Run order</h2>
 *
 * <p>Each repetition runs the {@code 2^k} cells in standard order (cell mask 0, 1, …, 2^k − 1; factor
 * 0 changes fastest) and then in reverse: A B B A for one factor; AA BA AB BB BB AB BA AA for two.
 * Every cell's two positions in a repetition average to the same time, so any drift of the system
 * that is linear over a repetition (warming caches, a creeping background load) cancels exactly from
 * every cell mean and every contrast, and each repetition yields one drift-free difference.
 *
 * <h2>Estimates</h2>
 *
 * <p>A cell's value in a repetition is the mean of its two blocks; its overall value is the mean over
 * repetitions. {@link InterventionResult#change()} estimates all-B − all-A from one difference per
 * repetition (a bootstrap over repetitions and the Wilcoxon signed-rank test, see
 * {@link ChangeEstimate}). {@link InterventionResult#shapley()} splits that change across the factors
 * exactly ({@link io.infermark.attribution.shapley.Shapley#exact} over the game whose value for a set
 * of factors is the cell with those factors at B), and {@link InterventionResult#attributions()} gives
 * each factor's Shapley value a bootstrap interval of its own; {@link InterventionResult#effects()}
 * lists the classical main effects and interactions.
 *
 * @param <C> the configuration each block runs with; {@link Benchmark} for real experiments
 */
public final class InterventionExperiment<C> {

  /** The most factors an experiment takes (2^10 cells, 2048 blocks per repetition). */
  public static final int MAX_FACTORS = 10;
  /** How results name the statistic of a {@link Builder#runner(BlockRunner) runner} that was not given a name. */
  public static final String DEFAULT_RUNNER_STATISTIC = "block statistic";

  private static final Logger LOG = LoggerFactory.getLogger(InterventionExperiment.class);

  private final C base;
  private final List<Factor<C>> factors;
  private final List<String> names;
  private final BlockRunner<C> runner;
  private final String statistic;
  private final int repetitions;
  private final double confidence;
  private final int resamples;
  private final long seed;
  private final IntervalMethod interval;

  private InterventionExperiment(Builder<C> b, BlockRunner<C> runner, String statistic) {
    this.base = b.base;
    this.factors = List.copyOf(b.factors);
    this.names = factors.stream().map(Factor::name).toList();
    this.runner = runner;
    this.statistic = statistic;
    this.repetitions = b.repetitions;
    this.confidence = b.confidence;
    this.resamples = b.resamples;
    this.seed = b.seed;
    this.interval = b.interval;
  }

  /**
   * An experiment over a benchmark: each block is {@code Benchmark.run()} of the benchmark with the
   * block's settings applied, measured by the {@link Builder#statistic statistic} (P99 of E2E unless
   * set).
   */
  public static Builder<Benchmark> of(Benchmark base) {
    return new Builder<>(Objects.requireNonNull(base, "base")).runs(Benchmark::run);
  }

  /**
   * An experiment over any configuration; give it a {@link Builder#runner runner} (or
   * {@link Builder#runs runs} and a statistic) before building.
   */
  public static <C> Builder<C> builder(C base) {
    return new Builder<>(Objects.requireNonNull(base, "base"));
  }

  /** The factor names, in order (bit order of {@link Cell#mask()}). */
  public List<String> factors() {
    return names;
  }

  /** The number of repetitions. */
  public int repetitions() {
    return repetitions;
  }

  /** The cells in the order their blocks run: per repetition, standard order then its mirror. */
  public List<Cell> order() {
    int cells = 1 << factors.size();
    List<Cell> order = new ArrayList<>(2 * cells * repetitions);
    for (int r = 0; r < repetitions; r++) {
      for (int j = 0; j < 2 * cells; j++) {
        order.add(Cell.of(names, j < cells ? j : 2 * cells - 1 - j));
      }
    }
    return List.copyOf(order);
  }

  /**
   * Runs every block in {@link #order()} and analyses them.
   *
   * @throws IllegalStateException if a block's statistic is not finite, or applying a factor or running
   *     the block threw (any unchecked exception, then the cause), the message naming the block's position,
   *     cell and repetition
   */
  public InterventionResult run() {
    List<Cell> order = order();
    int perRepetition = order.size() / repetitions;
    List<BlockResult> results = new ArrayList<>(order.size());
    for (int position = 0; position < order.size(); position++) {
      Cell cell = order.get(position);
      int repetition = position / perRepetition;
      double value;
      try {
        C configuration = base;
        for (int i = 0; i < factors.size(); i++) {
          configuration = factors.get(i).apply(configuration, cell.level(i));
        }
        value = runner.run(new Block<>(position, repetition, cell, configuration));
      } catch (RuntimeException e) {
        throw new IllegalStateException("block " + position + " (" + cell + ", repetition " + repetition
            + ") failed: " + describe(e), e);
      }
      if (!Double.isFinite(value)) {
        throw new IllegalStateException("block " + position + " (" + cell + ", repetition " + repetition
            + ") measured " + value + "; a block statistic must be finite");
      }
      LOG.debug("block {}/{} {} repetition {}: {} = {}", position + 1, order.size(), cell.levels(), repetition,
          statistic, value);
      results.add(new BlockResult(position, repetition, cell, value));
    }
    return new InterventionResult(names, statistic, repetitions, results, confidence, resamples, seed, interval);
  }

  /** An exception's message, prefixed by its type unless it is the usual IllegalStateException of a block. */
  private static String describe(RuntimeException e) {
    if (e instanceof IllegalStateException && e.getMessage() != null) {
      return e.getMessage();
    }
    return e.getClass().getSimpleName() + (e.getMessage() != null ? ": " + e.getMessage() : "");
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "InterventionExperiment[%s, %s, %d repetitions x %d blocks, %s]", names,
        statistic, repetitions, 2 << factors.size(), interval.name().toLowerCase(Locale.ROOT));
  }

  /**
   * Configures an {@link InterventionExperiment}.
   *
   * @param <C> the configuration type
   */
  public static final class Builder<C> {
    private final C base;
    private final List<Factor<C>> factors = new ArrayList<>();
    private BlockRunner<C> runner;
    private Function<? super C, RunResult> runs;
    private BlockStatistic statistic = BlockStatistic.p99E2e();
    private boolean statisticSet;
    private String runnerStatistic = DEFAULT_RUNNER_STATISTIC;
    private int repetitions = 6;
    private double confidence = 0.95;
    private int resamples = 10_000;
    private long seed;
    private IntervalMethod interval = IntervalMethod.BCA;

    private Builder(C base) {
      this.base = base;
    }

    /**
     * Adds a factor; its index is its bit in {@link Cell#mask()}.
     *
     * @throws IllegalArgumentException if a factor of that name was already added or there are already
     *     {@link #MAX_FACTORS}
     */
    public Builder<C> factor(Factor<C> factor) {
      Objects.requireNonNull(factor, "factor");
      if (factors.stream().anyMatch(f -> f.name().equals(factor.name()))) {
        throw new IllegalArgumentException("a factor named '" + factor.name() + "' was already added");
      }
      if (factors.size() == MAX_FACTORS) {
        throw new IllegalArgumentException("an experiment takes at most " + MAX_FACTORS + " factors (2^"
            + MAX_FACTORS + " cells)");
      }
      factors.add(factor);
      return this;
    }

    /**
     * Runs each block with {@code runs} (e.g. {@code Benchmark::run}) and measures the
     * {@link #statistic statistic} on the result; replaces a {@link #runner runner}.
     */
    public Builder<C> runs(Function<? super C, RunResult> runs) {
      this.runs = Objects.requireNonNull(runs, "runs");
      this.runner = null;
      return this;
    }

    /**
     * What each block's run is measured by (default P99 of E2E in ms); used with {@link #runs}. A
     * {@link #runner runner} computes its own value, so {@link #build()} rejects a statistic set together
     * with one; name a runner's statistic with {@link #runner(String, BlockRunner)}.
     */
    public Builder<C> statistic(BlockStatistic statistic) {
      this.statistic = Objects.requireNonNull(statistic, "statistic");
      this.statisticSet = true;
      return this;
    }

    /**
     * Computes each block's statistic directly (a synthetic system, a model, virtual time); replaces
     * {@link #runs runs}. Results label the statistic {@value #DEFAULT_RUNNER_STATISTIC}.
     */
    public Builder<C> runner(BlockRunner<C> runner) {
      return runner(DEFAULT_RUNNER_STATISTIC, runner);
    }

    /**
     * As {@link #runner(BlockRunner)}, with the name results give the runner's statistic (e.g.
     * {@code "p99 e2e_ms"}).
     *
     * @throws IllegalArgumentException if the name is blank
     */
    public Builder<C> runner(String statisticName, BlockRunner<C> runner) {
      Objects.requireNonNull(statisticName, "statisticName");
      if (statisticName.isBlank()) {
        throw new IllegalArgumentException("a runner's statistic name must not be blank");
      }
      this.runner = Objects.requireNonNull(runner, "runner");
      this.runnerStatistic = statisticName;
      this.runs = null;
      return this;
    }

    /**
     * How many times the mirrored sequence of cells is run (default 6: the fewest with which the
     * two-sided signed-rank test can reach p &lt; 0.05).
     *
     * @throws IllegalArgumentException if fewer than 2
     */
    public Builder<C> repetitions(int repetitions) {
      if (repetitions < 2) {
        throw new IllegalArgumentException("repetitions must be at least 2 (the bootstrap resamples them), was "
            + repetitions);
      }
      this.repetitions = repetitions;
      return this;
    }

    /**
     * The confidence intervals' coverage (default 0.95).
     *
     * @throws IllegalArgumentException if not in (0, 1)
     */
    public Builder<C> confidence(double confidence) {
      if (!(confidence > 0 && confidence < 1)) {
        throw new IllegalArgumentException("confidence must be in (0, 1), was " + confidence);
      }
      this.confidence = confidence;
      return this;
    }

    /**
     * Bootstrap resamples (default 10,000).
     *
     * @throws IllegalArgumentException if fewer than 100
     */
    public Builder<C> resamples(int resamples) {
      if (resamples < 100) {
        throw new IllegalArgumentException("resamples must be at least 100, was " + resamples);
      }
      this.resamples = resamples;
      return this;
    }

    /** The bootstrap's seed (default 0). */
    public Builder<C> seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** How intervals are read off the bootstrap (default {@link IntervalMethod#BCA}). */
    public Builder<C> interval(IntervalMethod interval) {
      this.interval = Objects.requireNonNull(interval, "interval");
      return this;
    }

    /**
     * The experiment.
     *
     * @throws IllegalStateException if no factor or no way to run a block was given, or a
     *     {@link #statistic statistic} was set together with a {@link #runner runner}, which would ignore it
     */
    public InterventionExperiment<C> build() {
      if (factors.isEmpty()) {
        throw new IllegalStateException("an intervention experiment needs at least one factor: call factor(...)");
      }
      if (runner != null) {
        if (statisticSet) {
          throw new IllegalStateException("statistic(" + statistic.name() + ") measures the RunResult of runs(...),"
              + " but runner(...) computes each block's value itself and would ignore it; use runs(...) with the"
              + " statistic, or name the runner's statistic with runner(name, runner)");
        }
        return new InterventionExperiment<>(this, runner, runnerStatistic);
      }
      if (runs == null) {
        throw new IllegalStateException("no way to run a block: call runs(...) with a statistic, or runner(...)");
      }
      return new InterventionExperiment<>(this, BlockRunner.of(runs, statistic), statistic.name());
    }
  }
}
