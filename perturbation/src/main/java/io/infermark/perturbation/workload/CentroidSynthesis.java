package io.infermark.perturbation.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Random;

/**
 * Seed 003's query synthesis: "对每个中心向量添加±15%的高斯扰动生成合成Query" (add ±15 % Gaussian noise to
 * every centroid vector to generate synthetic queries), {@code centroid + np.random.normal(0, 0.15,
 * centroid.shape)}, with the vector turned back into text. Built by
 * {@link DensityWeightedClustering#synthesis}.
 *
 * <p><b>From vector to text.</b> The seed stops at the noisy vectors; an embedding cannot be inverted
 * into a sentence, so a draw <em>selects</em>: the synthetic query of a noisy centroid is the member of
 * that centroid's cluster nearest to it (squared Euclidean distance, ties to the earliest in the log).
 * Near the centroid the noise picks the cluster's central queries most often and its outlying ones
 * sometimes, so repeated draws spread a cluster's requests over its members in proportion to how
 * close each lies to the centroid, instead of repeating one representative. Staying within the
 * cluster keeps each cluster's share of the requests what its weight says.
 *
 * <p><b>Noise.</b> Each draw adds {@code N(0, σ)} to every coordinate of the centroid {@code c}: with
 * absolute noise {@code σ} is the configured value (the seed's code: 0.15); with relative noise (the
 * default, the seed's comment: "±15%") {@code σ = f ‖c‖ / √d}, {@code d} the dimensions, so the noise's
 * expected squared length is {@code f² ‖c‖²}. Draws for cluster {@code c} come from
 * {@code java.util.Random(seed ^ (0x9E3779B97F4A7C15L × (c + 1)))}, {@code nextGaussian()} per
 * coordinate in order, {@code seed} being the clustering's seed + 2. Immutable; each call makes its
 * own generator, so it is thread-safe and reproducible.
 */
public final class CentroidSynthesis {

  private final List<QueryCluster> clusters;
  private final List<String> queries;
  private final double[][] points;
  private final KMeans.Fit fit;
  private final double noise;
  private final boolean relative;
  private final long seed;

  CentroidSynthesis(List<QueryCluster> clusters, List<String> queries, double[][] points, KMeans.Fit fit,
      double noise, boolean relative, long seed) {
    this.clusters = List.copyOf(clusters);
    this.queries = List.copyOf(queries);
    this.points = new double[points.length][];
    for (int i = 0; i < points.length; i++) {
      this.points[i] = points[i].clone();
    }
    this.fit = fit;
    this.noise = noise;
    this.relative = relative;
    this.seed = seed;
  }

  /** The clusters, with their weights, in order of first appearance in the log. */
  public List<QueryCluster> clusters() {
    return clusters;
  }

  /** Cluster {@code c}'s centroid (a copy). */
  public double[] centroid(int c) {
    return fit.centroid(checkCluster(c)).clone();
  }

  /** The standard deviation added to every coordinate of cluster {@code c}'s centroid. */
  public double sigma(int c) {
    if (!relative) {
      checkCluster(c);
      return noise;
    }
    double[] centre = fit.centroid(checkCluster(c));
    double norm = 0;
    for (double x : centre) {
      norm += x * x;
    }
    return noise * Math.sqrt(norm) / Math.sqrt(centre.length);
  }

  /** The generator of cluster {@code c}'s draws, as documented. */
  Random random(int c) {
    return new Random(seed ^ (0x9E3779B97F4A7C15L * (c + 1)));
  }

  /**
   * The first {@code count} draws of cluster {@code c}: each a noisy centroid and the member it selects.
   *
   * @throws IllegalArgumentException if the cluster does not exist or the count is negative
   */
  public List<Draw> draws(int c, int count) {
    checkCluster(c);
    if (count < 0) {
      throw new IllegalArgumentException("count must be >= 0, was " + count);
    }
    Random random = random(c);
    double sigma = sigma(c);
    double[] centre = fit.centroid(c);
    List<Integer> members = clusters.get(c).members();
    List<Draw> out = new ArrayList<>(count);
    double[] v = new double[centre.length];
    for (int n = 0; n < count; n++) {
      for (int d = 0; d < v.length; d++) {
        v[d] = centre[d] + sigma * random.nextGaussian();
      }
      int best = -1;
      double bestDistance = Double.POSITIVE_INFINITY;
      for (int i : members) {
        double dist = KMeans.squaredDistance(points[i], v);
        if (dist < bestDistance) {
          bestDistance = dist;
          best = i;
        }
      }
      out.add(new Draw(c, best, queries.get(best), Math.sqrt(bestDistance)));
    }
    return List.copyOf(out);
  }

  private int checkCluster(int c) {
    if (c < 0 || c >= clusters.size()) {
      throw new IllegalArgumentException("cluster " + c + " does not exist; there are " + clusters.size());
    }
    return c;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "CentroidSynthesis[%d clusters over %d queries, noise %s]", clusters.size(),
        queries.size(), relative ? noise * 100 + " % of each centroid" : "sigma " + noise);
  }

  /**
   * One synthetic query.
   *
   * @param cluster the cluster whose centroid was perturbed
   * @param queryIndex the index in the log of the member the noisy centroid selected
   * @param query that member's text
   * @param distance the Euclidean distance from the noisy centroid to it
   */
  public record Draw(int cluster, int queryIndex, String query, double distance) {

    /** Validates. */
    public Draw {
      Objects.requireNonNull(query, "query");
    }
  }
}
