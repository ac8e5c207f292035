package io.infermark.attribution.intervention;

import io.infermark.core.RunResult;
import java.util.Objects;
import java.util.function.Function;

/**
 * Runs one block of an intervention experiment and returns the statistic it measured (by default
 * the P99 of E2E in ms). Real experiments run a benchmark per block ({@link #of(Function,
 * BlockStatistic)}); tests and what-if studies can compute the statistic directly, in virtual time.
 *
 * @param <C> the configuration type
 */
@FunctionalInterface
public interface BlockRunner<C> {

  /** Runs the block and returns its statistic; must be finite. */
  double run(Block<C> block);

  /**
   * A runner that runs each block's configuration with {@code run} (for a
   * {@link io.infermark.core.Benchmark}, {@code Benchmark::run}) and measures {@code statistic} on the result.
   */
  static <C> BlockRunner<C> of(Function<? super C, RunResult> run, BlockStatistic statistic) {
    Objects.requireNonNull(run, "run");
    Objects.requireNonNull(statistic, "statistic");
    return block -> {
      RunResult result = Objects.requireNonNull(run.apply(block.configuration()), "run returned null");
      return statistic.of(result);
    };
  }
}
