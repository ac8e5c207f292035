package io.infermark.attribution.intervention;

import java.util.Objects;

/**
 * What one block of an intervention experiment measured.
 *
 * @param position zero-based position in the run order
 * @param repetition zero-based repetition the block belongs to
 * @param cell the levels of the factors
 * @param value the block's statistic (by default the P99 of E2E in ms)
 */
public record BlockResult(int position, int repetition, Cell cell, double value) {

  /** Validates. */
  public BlockResult {
    Objects.requireNonNull(cell, "cell");
    if (!Double.isFinite(value)) {
      throw new IllegalArgumentException("block " + position + " (" + cell.levels() + ") measured " + value
          + "; a block statistic must be finite");
    }
  }
}
