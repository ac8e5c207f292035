package io.infermark.attribution.intervention;

import java.util.List;
import java.util.Objects;
import java.util.StringJoiner;

/**
 * One cell of a 2^k factorial design: the level of every factor. Factor {@code i} is at
 * {@link Level#B} when bit {@code i} of {@link #mask()} is set, so cell 0 is all-A and cell
 * {@code 2^k − 1} all-B, and the mask is the coalition of factors at B in the Shapley game over cells.
 */
public final class Cell {

  private final List<String> factors;
  private final int mask;

  private Cell(List<String> factors, int mask) {
    this.factors = factors;
    this.mask = mask;
  }

  /**
   * The cell of the given factors whose set bits are at B.
   *
   * @throws IllegalArgumentException if the mask has bits beyond the factors
   */
  public static Cell of(List<String> factors, int mask) {
    List<String> names = List.copyOf(factors);
    if (names.size() > 30 || mask < 0 || (mask >>> names.size()) != 0) {
      throw new IllegalArgumentException("mask " + Integer.toBinaryString(mask) + " does not fit " + names.size()
          + " factors");
    }
    return new Cell(names, mask);
  }

  /** The factor names, in order. */
  public List<String> factors() {
    return factors;
  }

  /** Bit {@code i} set when factor {@code i} is at B. */
  public int mask() {
    return mask;
  }

  /** The level of factor {@code i}. */
  public Level level(int factor) {
    Objects.checkIndex(factor, factors.size());
    return (mask & (1 << factor)) == 0 ? Level.A : Level.B;
  }

  /**
   * The level of the named factor.
   *
   * @throws IllegalArgumentException if there is no such factor
   */
  public Level level(String factor) {
    int i = factors.indexOf(factor);
    if (i < 0) {
      throw new IllegalArgumentException("no factor named '" + factor + "'; factors are " + factors);
    }
    return level(i);
  }

  /** The levels in factor order, e.g. {@code "AB"} (first factor at A, second at B). */
  public String levels() {
    StringBuilder s = new StringBuilder(factors.size());
    for (int i = 0; i < factors.size(); i++) {
      s.append(level(i).name());
    }
    return s.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Cell c && c.mask == mask && c.factors.equals(factors);
  }

  @Override
  public int hashCode() {
    return 31 * factors.hashCode() + mask;
  }

  @Override
  public String toString() {
    StringJoiner j = new StringJoiner(", ", "Cell[", "]");
    for (int i = 0; i < factors.size(); i++) {
      j.add(factors.get(i) + "=" + level(i));
    }
    return j.toString();
  }
}
