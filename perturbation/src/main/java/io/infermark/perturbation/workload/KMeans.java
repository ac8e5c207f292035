package io.infermark.perturbation.workload;

import java.util.Arrays;
import java.util.Random;

/**
 * Deterministic k-means (Lloyd's algorithm, Euclidean distance) with k-means++ initialisation and
 * restarts, in the manner of scikit-learn's {@code KMeans(init="k-means++", n_init=restarts)} but with
 * plain k-means++ (one candidate per centre, not scikit-learn's greedy trials), so the clusters match
 * scikit-learn's on well-separated data, not draw for draw.
 *
 * <ol>
 *   <li>Seeding (k-means++): one {@code java.util.Random(seed)} serves every restart. The first
 *       centre is the point at {@code nextInt(n)}; each next one is drawn with probability
 *       proportional to its squared distance to the nearest centre chosen so far
 *       ({@code nextDouble() × Σ D²}, the first point whose running sum of D² exceeds it). When every
 *       point already coincides with a centre (fewer than k distinct points), seeding stops with
 *       fewer centres.
 *   <li>Lloyd: assign each point to its nearest centre (ties to the lower centre index), move each
 *       centre to its members' mean (a centre left without members stays where it is), until no
 *       assignment changes or {@code maxIterations} [300] passes.
 *   <li>Restarts [10]: the fit with the lowest inertia (sum of squared distances to the assigned
 *       centre) wins; ties to the earlier restart.
 * </ol>
 *
 * <p>The returned clusters are renumbered in order of their first member in the input (cluster 0
 * holds point 0), and clusters that ended empty are dropped, so the result does not depend on the
 * order the centres were drawn in. Cost {@code O(restarts × iterations × n × k × dimensions)}.
 * Immutable and thread-safe.
 */
public final class KMeans {

  private final int k;
  private final long seed;
  private final int restarts;
  private final int maxIterations;

  private KMeans(int k, long seed, int restarts, int maxIterations) {
    this.k = k;
    this.seed = seed;
    this.restarts = restarts;
    this.maxIterations = maxIterations;
  }

  /** k clusters (k &ge; 1), seed 0, 10 restarts, at most 300 iterations each. */
  public static KMeans withK(int k) {
    if (k < 1) {
      throw new IllegalArgumentException("k must be >= 1, was " + k);
    }
    return new KMeans(k, 0, 10, 300);
  }

  /** The same, seeded with {@code seed}. */
  public KMeans seed(long seed) {
    return new KMeans(k, seed, restarts, maxIterations);
  }

  /** The same with {@code n} restarts (n &ge; 1). */
  public KMeans restarts(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("restarts must be >= 1, was " + n);
    }
    return new KMeans(k, seed, n, maxIterations);
  }

  /** The same with at most {@code n} Lloyd iterations per restart (n &ge; 1). */
  public KMeans maxIterations(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("maxIterations must be >= 1, was " + n);
    }
    return new KMeans(k, seed, restarts, n);
  }

  /** The number of clusters asked for. */
  public int k() {
    return k;
  }

  /**
   * Clusters the points (at least k of them, all of one dimension, every coordinate finite).
   *
   * @throws IllegalArgumentException on fewer than k points, ragged or non-finite input
   */
  public Fit fit(double[][] points) {
    int n = points.length;
    if (n < k) {
      throw new IllegalArgumentException("k = " + k + " clusters need at least " + k + " points, got " + n);
    }
    int dim = points[0].length;
    if (dim < 1) {
      throw new IllegalArgumentException("points need at least one coordinate");
    }
    for (int i = 0; i < n; i++) {
      if (points[i].length != dim) {
        throw new IllegalArgumentException("point " + i + " has " + points[i].length + " coordinates, point 0 has "
            + dim);
      }
      for (double x : points[i]) {
        if (!Double.isFinite(x)) {
          throw new IllegalArgumentException("point " + i + " has a coordinate that is not finite: " + x);
        }
      }
    }
    Random random = new Random(seed);
    double[][] bestCentres = null;
    int[] bestAssignment = null;
    double bestInertia = Double.POSITIVE_INFINITY;
    int bestIterations = 0;
    for (int r = 0; r < restarts; r++) {
      double[][] centres = seedCentres(points, random);
      int[] assignment = new int[n];
      Arrays.fill(assignment, -1);
      int iterations = 0;
      boolean changed = true;
      while (changed && iterations < maxIterations) {
        iterations++;
        changed = false;
        for (int i = 0; i < n; i++) {
          int c = nearest(points[i], centres);
          if (c != assignment[i]) {
            assignment[i] = c;
            changed = true;
          }
        }
        if (changed) {
          moveCentres(points, assignment, centres);
        }
      }
      double inertia = 0;
      for (int i = 0; i < n; i++) {
        inertia += squaredDistance(points[i], centres[assignment[i]]);
      }
      if (inertia < bestInertia) {
        bestInertia = inertia;
        bestCentres = centres;
        bestAssignment = assignment;
        bestIterations = iterations;
      }
    }
    return renumber(bestCentres, bestAssignment, bestInertia, bestIterations);
  }

  private double[][] seedCentres(double[][] points, Random random) {
    int n = points.length;
    double[][] centres = new double[k][];
    centres[0] = points[random.nextInt(n)].clone();
    double[] d2 = new double[n];
    for (int i = 0; i < n; i++) {
      d2[i] = squaredDistance(points[i], centres[0]);
    }
    int chosen = 1;
    while (chosen < k) {
      double sum = 0;
      for (double d : d2) {
        sum += d;
      }
      if (sum == 0) {
        break;
      }
      double target = random.nextDouble() * sum;
      int pick = -1;
      double running = 0;
      for (int i = 0; i < n; i++) {
        running += d2[i];
        if (d2[i] > 0 && running > target) {
          pick = i;
          break;
        }
      }
      if (pick < 0) { // rounding left the target at the very end: the last point with weight
        for (int i = n - 1; i >= 0 && pick < 0; i--) {
          if (d2[i] > 0) {
            pick = i;
          }
        }
      }
      centres[chosen++] = points[pick].clone();
      for (int i = 0; i < n; i++) {
        d2[i] = Math.min(d2[i], squaredDistance(points[i], points[pick]));
      }
    }
    return Arrays.copyOf(centres, chosen);
  }

  private static void moveCentres(double[][] points, int[] assignment, double[][] centres) {
    int dim = points[0].length;
    double[][] sums = new double[centres.length][dim];
    int[] counts = new int[centres.length];
    for (int i = 0; i < points.length; i++) {
      counts[assignment[i]]++;
      for (int d = 0; d < dim; d++) {
        sums[assignment[i]][d] += points[i][d];
      }
    }
    for (int c = 0; c < centres.length; c++) {
      if (counts[c] > 0) {
        for (int d = 0; d < dim; d++) {
          centres[c][d] = sums[c][d] / counts[c];
        }
      }
    }
  }

  private static Fit renumber(double[][] centres, int[] assignment, double inertia, int iterations) {
    int[] newId = new int[centres.length];
    Arrays.fill(newId, -1);
    int next = 0;
    for (int a : assignment) {
      if (newId[a] < 0) {
        newId[a] = next++;
      }
    }
    double[][] out = new double[next][];
    for (int c = 0; c < centres.length; c++) {
      if (newId[c] >= 0) {
        out[newId[c]] = centres[c].clone();
      }
    }
    int[] relabelled = new int[assignment.length];
    for (int i = 0; i < assignment.length; i++) {
      relabelled[i] = newId[assignment[i]];
    }
    return new Fit(out, relabelled, inertia, iterations);
  }

  static int nearest(double[] point, double[][] centres) {
    int best = 0;
    double bestD = squaredDistance(point, centres[0]);
    for (int c = 1; c < centres.length; c++) {
      double d = squaredDistance(point, centres[c]);
      if (d < bestD) {
        best = c;
        bestD = d;
      }
    }
    return best;
  }

  static double squaredDistance(double[] a, double[] b) {
    double s = 0;
    for (int i = 0; i < a.length; i++) {
      double d = a[i] - b[i];
      s += d * d;
    }
    return s;
  }

  @Override
  public String toString() {
    return "KMeans[k=" + k + ", k-means++, seed " + seed + ", " + restarts + " restarts, <= " + maxIterations
        + " iterations]";
  }

  /** A clustering: centres, each point's cluster, and the inertia. Immutable (accessors copy). */
  public static final class Fit {
    private final double[][] centroids;
    private final int[] assignment;
    private final double inertia;
    private final int iterations;

    Fit(double[][] centroids, int[] assignment, double inertia, int iterations) {
      this.centroids = centroids;
      this.assignment = assignment;
      this.inertia = inertia;
      this.iterations = iterations;
    }

    /** The number of (non-empty) clusters: k, or fewer when the points had fewer distinct values. */
    public int clusters() {
      return centroids.length;
    }

    /** Cluster {@code c}'s centre: its members' mean. */
    public double[] centroid(int c) {
      return centroids[c].clone();
    }

    /** Each point's cluster, in input order; clusters numbered by first member. */
    public int[] assignment() {
      return assignment.clone();
    }

    /** Point {@code i}'s cluster. */
    public int clusterOf(int i) {
      return assignment[i];
    }

    /** The sum of squared distances from each point to its centre. */
    public double inertia() {
      return inertia;
    }

    /** Lloyd iterations of the winning restart. */
    public int iterations() {
      return iterations;
    }

    @Override
    public String toString() {
      return "KMeans.Fit[" + centroids.length + " clusters of " + assignment.length + " points, inertia " + inertia
          + "]";
    }
  }
}
