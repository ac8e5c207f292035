package io.infermark.perturbation.design;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.hipparchus.random.SobolSequenceGenerator;

/**
 * Constructions of {@link Design}s: full factorial, seeded random, orthogonal arrays of strength 2,
 * Latin hypercube and Sobol.
 */
public final class Designs {

  /** The largest full factorial built: beyond it, sample the space instead. */
  public static final int MAX_FULL_FACTORIAL = 1_000_000;

  private Designs() {}

  /** Every combination of levels, the last factor varying fastest. */
  public static Design fullFactorial(int... levels) {
    checkLevels(levels);
    long size = 1;
    for (int n : levels) {
      size *= n;
      if (size > MAX_FULL_FACTORIAL) {
        throw new IllegalArgumentException("full factorial of " + Arrays.toString(levels) + " exceeds "
            + MAX_FULL_FACTORIAL + " runs: use a sampled design");
      }
    }
    int[][] rows = new int[(int) size][levels.length];
    for (int i = 0; i < size; i++) {
      int r = i;
      for (int j = levels.length - 1; j >= 0; j--) {
        rows[i][j] = r % levels[j];
        r /= levels[j];
      }
    }
    return new Design("full factorial", levels.clone(), rows);
  }

  /** {@code runs} independent uniform draws of every factor's level. */
  public static Design random(int runs, long seed, int... levels) {
    checkLevels(levels);
    checkRuns(runs);
    SplittableRandom random = new SplittableRandom(seed);
    int[][] rows = new int[runs][levels.length];
    for (int[] row : rows) {
      for (int j = 0; j < levels.length; j++) {
        row[j] = random.nextInt(levels[j]);
      }
    }
    return new Design("random", levels.clone(), rows);
  }

  /**
   * An orthogonal array of strength 2 with as few runs as these constructions give: for two levels,
   * Rao–Hamming with {@code 2^m} runs ({@code L4}, {@code L8}, {@code L16}, ... matching the Taguchi
   * tables column for column); for a prime power {@code q > 2} and at most {@code q + 1} factors, Bose
   * with {@code q²} runs ({@code L9} for q = 3 and {@code L16(4^5)} for q = 4, matching Taguchi's);
   * for more factors, Rao–Hamming with {@code q^m} runs. Mixed levels, or a level count that is not
   * a prime power, use the smallest prime power {@code q} at least the largest level count and
   * collapse factor {@code j}'s levels with {@code v mod n_j}: every pair of levels is still
   * covered, though no longer equally often ({@link Design#isOrthogonal()} says which).
   *
   * <p>When the full factorial has fewer runs than that array (two levels and three: 6 runs, not the
   * 9 of L9; six and six: 36, not 49), the full factorial is returned instead: it covers every pair
   * too, equally often. Its {@link Design#note()} says so, and so does its {@code toString()}.
   */
  public static Design orthogonalArray(int... levels) {
    checkLevels(levels);
    int max = Arrays.stream(levels).max().orElseThrow();
    int q = Math.max(2, max);
    while (!GaloisField.isPrimePower(q)) {
      q++;
    }
    int k = levels.length;
    int[][] base;
    String name;
    if (q > 2 && k <= q + 1) {
      base = bose(GaloisField.of(q));
      name = q == 3 ? "L9" : q == 4 ? "L16(4^5)" : "OA(" + q * q + ", " + (q + 1) + ", " + q + ", 2)";
    } else {
      int m = 2;
      while ((pow(q, m) - 1) / (q - 1) < k) {
        m++;
      }
      base = raoHamming(GaloisField.of(q), m);
      int runs = pow(q, m);
      name = q == 2 ? "L" + runs : "OA(" + runs + ", " + base[0].length + ", " + q + ", 2)";
    }
    int[][] rows = new int[base.length][k];
    boolean collapsed = false;
    for (int i = 0; i < base.length; i++) {
      for (int j = 0; j < k; j++) {
        rows[i][j] = base[i][j] % levels[j];
      }
    }
    for (int n : levels) {
      collapsed |= n != q;
    }
    name = name + " orthogonal array" + (collapsed ? " (collapsed from " + q + " levels)" : "");
    long full = 1;
    for (int n : levels) {
      full = Math.min(full * n, Integer.MAX_VALUE); // stays far from overflow: n < 2^31
    }
    if (full < rows.length) {
      return fullFactorial(levels).withNote("the full factorial (" + full + " runs) replaces the " + name
          + ", which has " + rows.length);
    }
    return new Design(name, levels.clone(), rows);
  }

  /**
   * Bose's OA(q², q + 1, q, 2): rows {@code (a, b)} over GF(q)², {@code a} varying slowest; columns
   * {@code a}, then {@code λ·a + b} for {@code λ = 0, 1, ..., q-1} in element order.
   */
  public static int[][] bose(GaloisField field) {
    int q = field.order();
    int[][] rows = new int[q * q][q + 1];
    for (int a = 0; a < q; a++) {
      for (int b = 0; b < q; b++) {
        int[] row = rows[a * q + b];
        row[0] = a;
        for (int lambda = 0; lambda < q; lambda++) {
          row[1 + lambda] = field.add(field.multiply(lambda, a), b);
        }
      }
    }
    return rows;
  }

  /**
   * The Rao–Hamming OA(q^m, (q^m − 1)/(q − 1), q, 2): rows are the vectors {@code x} of GF(q)^m
   * ({@code x_1} the most significant digit of the row number); column {@code j} (1-based, in
   * increasing order, skipping any whose highest nonzero base-q digit is not 1) is
   * {@code Σ c_i x_i} with {@code c_i} the i-th least significant base-q digit of j. For q = 2 this
   * is the Taguchi column order: column 1 = x1, 2 = x2, 3 = x1+x2, 4 = x3, ...
   */
  public static int[][] raoHamming(GaloisField field, int m) {
    int q = field.order();
    if (m < 1) {
      throw new IllegalArgumentException("Rao-Hamming needs m >= 1, was " + m);
    }
    int runs = pow(q, m);
    int[][] columns = new int[(runs - 1) / (q - 1)][];
    int c = 0;
    for (int j = 1; j < runs; j++) {
      int[] digits = new int[m];
      int r = j;
      int top = 0;
      for (int i = 0; i < m; i++) {
        digits[i] = r % q;
        r /= q;
        if (digits[i] != 0) {
          top = digits[i];
        }
      }
      if (top == 1) {
        columns[c++] = digits;
      }
    }
    int[][] rows = new int[runs][columns.length];
    for (int row = 0; row < runs; row++) {
      int[] x = new int[m];
      int r = row;
      for (int i = m - 1; i >= 0; i--) {
        x[i] = r % q;
        r /= q;
      }
      for (int col = 0; col < columns.length; col++) {
        int v = 0;
        for (int i = 0; i < m; i++) {
          v = field.add(v, field.multiply(columns[col][i], x[i]));
        }
        rows[row][col] = v;
      }
    }
    return rows;
  }

  /**
   * A Latin hypercube: each factor's unit interval is cut into {@code runs} strata, each stratum
   * used exactly once (a seeded random permutation per factor, a uniform point inside the stratum),
   * and the point {@code u} mapped to level {@code floor(u × levels)}.
   */
  public static Design latinHypercube(int runs, long seed, int... levels) {
    checkLevels(levels);
    return fromUnit("Latin hypercube", latinHypercubePoints(runs, levels.length, seed), levels);
  }

  /** The unit-cube points of {@link #latinHypercube}: {@code runs × dimensions} values in [0, 1). */
  public static double[][] latinHypercubePoints(int runs, int dimensions, long seed) {
    checkRuns(runs);
    if (dimensions < 1) {
      throw new IllegalArgumentException("dimensions must be >= 1, was " + dimensions);
    }
    SplittableRandom random = new SplittableRandom(seed);
    double[][] points = new double[runs][dimensions];
    int[] perm = new int[runs];
    for (int j = 0; j < dimensions; j++) {
      for (int i = 0; i < runs; i++) {
        perm[i] = i;
      }
      for (int i = runs - 1; i > 0; i--) {
        int s = random.nextInt(i + 1);
        int t = perm[i];
        perm[i] = perm[s];
        perm[s] = t;
      }
      for (int i = 0; i < runs; i++) {
        points[i][j] = (perm[i] + random.nextDouble()) / runs;
      }
    }
    return points;
  }

  /**
   * The first {@code runs} points of the Sobol sequence (Hipparchus, Joe–Kuo direction numbers),
   * skipping the origin, each coordinate {@code u} mapped to level {@code floor(u × levels)}.
   * Deterministic: Sobol points have no seed.
   */
  public static Design sobol(int runs, int... levels) {
    checkLevels(levels);
    return fromUnit("Sobol", sobolPoints(runs, levels.length), levels);
  }

  /**
   * The first {@code runs} Sobol points after the origin, in [0, 1)^dimensions: 0.5, 0.5, ...;
   * then 0.75, 0.25, ...; then 0.25, 0.75, ... (Joe and Kuo, 2008). At most 1000 dimensions.
   */
  public static double[][] sobolPoints(int runs, int dimensions) {
    checkRuns(runs);
    if (dimensions < 1 || dimensions > 1000) {
      throw new IllegalArgumentException("Sobol dimensions must be in [1, 1000], was " + dimensions);
    }
    SobolSequenceGenerator generator = new SobolSequenceGenerator(dimensions);
    generator.nextVector(); // the origin
    double[][] points = new double[runs][];
    for (int i = 0; i < runs; i++) {
      points[i] = generator.nextVector();
    }
    return points;
  }

  private static Design fromUnit(String name, double[][] points, int[] levels) {
    int[][] rows = new int[points.length][levels.length];
    for (int i = 0; i < points.length; i++) {
      for (int j = 0; j < levels.length; j++) {
        rows[i][j] = Math.min(levels[j] - 1, (int) Math.floor(points[i][j] * levels[j]));
      }
    }
    return new Design(name, levels.clone(), rows);
  }

  private static int pow(int q, int m) {
    long r = 1;
    for (int i = 0; i < m; i++) {
      r *= q;
      if (r > MAX_FULL_FACTORIAL) {
        throw new IllegalArgumentException("orthogonal array of " + q + "^" + m + " runs is too large");
      }
    }
    return (int) r;
  }

  private static void checkLevels(int[] levels) {
    if (levels.length == 0) {
      throw new IllegalArgumentException("a design needs at least one factor");
    }
    for (int j = 0; j < levels.length; j++) {
      if (levels[j] < 1) {
        throw new IllegalArgumentException("factor " + j + " must have at least 1 level, had " + levels[j]);
      }
    }
  }

  private static void checkRuns(int runs) {
    if (runs < 1) {
      throw new IllegalArgumentException("runs must be >= 1, was " + runs);
    }
  }
}
