package io.infermark.attribution.intervention;

import java.util.Objects;

/**
 * One block of an intervention experiment as its runner sees it: where it falls in the run order,
 * which repetition it belongs to, its cell (the level of every factor) and the configuration with
 * those levels applied.
 *
 * @param position zero-based position in the experiment's run order
 * @param repetition zero-based repetition; each holds every cell twice, in mirrored order
 * @param cell the levels of the factors
 * @param configuration the experiment's base configuration with the cell's settings applied
 * @param <C> the configuration type
 */
public record Block<C>(int position, int repetition, Cell cell, C configuration) {

  /** Validates. */
  public Block {
    if (position < 0 || repetition < 0) {
      throw new IllegalArgumentException("position and repetition must be >= 0, were " + position + " and "
          + repetition);
    }
    Objects.requireNonNull(cell, "cell");
    Objects.requireNonNull(configuration, "configuration");
  }
}
