package io.infermark.perturbation.design;

import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * An experimental design: {@code runs()} level vectors over {@code factors()} factors, factor
 * {@code j} having {@code levelCounts()[j]} levels numbered from 0. Immutable; see {@link Designs}
 * for the constructions.
 */
public final class Design {

  private final String name;
  private final int[] levelCounts;
  private final int[][] rows;
  private final String note;

  /**
   * A design from explicit rows.
   *
   * @param name what made it, e.g. {@code "L9 orthogonal array"}
   * @param levelCounts levels per factor (each >= 1)
   * @param rows the runs; every entry in {@code [0, levelCounts[j])}
   */
  public static Design of(String name, int[] levelCounts, int[][] rows) {
    Objects.requireNonNull(name, "name");
    int[] counts = levelCounts.clone();
    for (int j = 0; j < counts.length; j++) {
      if (counts[j] < 1) {
        throw new IllegalArgumentException("factor " + j + " must have at least 1 level, had " + counts[j]);
      }
    }
    int[][] copy = new int[rows.length][];
    for (int i = 0; i < rows.length; i++) {
      if (rows[i].length != counts.length) {
        throw new IllegalArgumentException("run " + i + " has " + rows[i].length + " levels, the design has "
            + counts.length + " factors");
      }
      for (int j = 0; j < counts.length; j++) {
        if (rows[i][j] < 0 || rows[i][j] >= counts[j]) {
          throw new IllegalArgumentException("run " + i + " factor " + j + " level must be in [0, " + (counts[j] - 1)
              + "], was " + rows[i][j]);
        }
      }
      copy[i] = rows[i].clone();
    }
    return new Design(name, counts, copy);
  }

  Design(String name, int[] levelCounts, int[][] rows) {
    this(name, levelCounts, rows, null);
  }

  private Design(String name, int[] levelCounts, int[][] rows, String note) {
    this.name = name;
    this.levelCounts = levelCounts;
    this.rows = rows;
    this.note = note;
  }

  /** The same runs with a note on how they were chosen. */
  Design withNote(String note) {
    return new Design(name, levelCounts, rows, Objects.requireNonNull(note, "note"));
  }

  /**
   * How the design was chosen when a construction gave something other than what was asked for,
   * e.g. the full factorial in place of a larger orthogonal array; empty otherwise.
   */
  public Optional<String> note() {
    return Optional.ofNullable(note);
  }

  /** What made the design. */
  public String name() {
    return name;
  }

  /** The number of runs. */
  public int runs() {
    return rows.length;
  }

  /** The number of factors. */
  public int factors() {
    return levelCounts.length;
  }

  /** Levels per factor (a copy). */
  public int[] levelCounts() {
    return levelCounts.clone();
  }

  /** Run {@code i}'s level vector (a copy). */
  public int[] row(int i) {
    checkRun(i);
    return rows[i].clone();
  }

  /** The level of factor {@code j} in run {@code i}. */
  public int level(int i, int j) {
    checkRun(i);
    if (j < 0 || j >= levelCounts.length) {
      throw new IllegalArgumentException("factor must be in [0, " + (levelCounts.length - 1) + "], was " + j);
    }
    return rows[i][j];
  }

  /** All runs (a copy). */
  public int[][] rows() {
    int[][] copy = new int[rows.length][];
    for (int i = 0; i < rows.length; i++) {
      copy[i] = rows[i].clone();
    }
    return copy;
  }

  /** The same runs under another name (the note, if any, is kept). */
  public Design named(String name) {
    return new Design(Objects.requireNonNull(name, "name"), levelCounts, rows, note);
  }

  /**
   * True when every pair of factors shows every pair of their levels equally often: an orthogonal
   * array of strength 2.
   */
  public boolean isOrthogonal() {
    for (int a = 0; a < levelCounts.length; a++) {
      for (int b = a + 1; b < levelCounts.length; b++) {
        int cells = levelCounts[a] * levelCounts[b];
        if (rows.length % cells != 0) {
          return false;
        }
        int[] seen = new int[cells];
        for (int[] r : rows) {
          seen[r[a] * levelCounts[b] + r[b]]++;
        }
        for (int c : seen) {
          if (c != rows.length / cells) {
            return false;
          }
        }
      }
    }
    return true;
  }

  private void checkRun(int i) {
    if (i < 0 || i >= rows.length) {
      throw new IllegalArgumentException("run must be in [0, " + (rows.length - 1) + "], was " + i);
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Design d && Arrays.equals(d.levelCounts, levelCounts) && Arrays.deepEquals(d.rows, rows);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(levelCounts) + Arrays.deepHashCode(rows);
  }

  @Override
  public String toString() {
    return "Design[" + name + ": " + rows.length + " runs x " + levelCounts.length + " factors, levels "
        + Arrays.toString(levelCounts) + (note == null ? "" : "; " + note) + "]";
  }
}
