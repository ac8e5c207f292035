package io.infermark.core.sweep;

import java.util.Objects;

/**
 * One cell of a two-variable grid sweep.
 *
 * @param x the first variable's level
 * @param y the second variable's level
 */
public record GridPoint<X, Y>(X x, Y y) {

  /** Validates. */
  public GridPoint {
    Objects.requireNonNull(x, "x");
    Objects.requireNonNull(y, "y");
  }

  @Override
  public String toString() {
    return "(" + x + ", " + y + ")";
  }
}
