package io.infermark.perturbation.workload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Semantic clusters of a query log weighted by density (seed 003 §2.2: KMeans k = 5 plus
 * σ = 0.15 noise): a cluster's share of the request rate grows with how many queries it holds and
 * how tightly they sit, instead of {@link QueryClustering}'s unweighted size shares.
 *
 * <pre>{@code
 * LogWorkload w = LogWorkload.of(queries, DensityWeightedClustering.defaults().seed(7));
 * List<Prompt> prompts = w.sample(500);   // cluster c appears about 500 × weight(c) times
 * }</pre>
 *
 * <ol>
 *   <li>Embed each query as a {@link TrigramEmbedding} (hashed bag of character trigrams,
 *       L2-normalised) [256 dimensions]: a deterministic, dependency-free stand-in for a sentence
 *       embedding that places queries sharing wording close together.
 *   <li>Cluster with {@link KMeans} [k = 5, k-means++, 10 restarts, the given seed].
 *   <li>Density of cluster c: {@code ρ_c = n_c / max(d̄_c, 1e-6)}, with {@code n_c} its members and
 *       {@code d̄_c} their mean Euclidean distance to its centroid (a cluster of identical queries
 *       counts as if spread by 1e-6).
 *   <li>Base weight {@code w_c = ρ_c / Σ ρ}.
 *   <li>Noise: {@code w'_c = w_c × max(0, 1 + σ z_c)}, {@code z_c} standard normal from
 *       {@code java.util.Random(seed + 1).nextGaussian()}, drawn in cluster order [σ = 0.15; 0 for
 *       none]; renormalised to sum to 1 (if every noisy weight were 0, the base weights are kept).
 * </ol>
 *
 * <p>Clusters are numbered by their first query in the log; each {@link QueryCluster}'s
 * representative is the member nearest its centroid (ties to the earliest) and its
 * {@link QueryCluster#weight() weight} is {@code w'_c}. Deterministic for a given log, order and
 * seed. Immutable and thread-safe.
 */
public final class DensityWeightedClustering {

  /** Mean distances below this count as this, so that a cluster of identical queries has a finite density. */
  public static final double MIN_SPREAD = 1e-6;

  private final int k;
  private final double sigma;
  private final long seed;
  private final TrigramEmbedding embedding;

  private DensityWeightedClustering(int k, double sigma, long seed, TrigramEmbedding embedding) {
    this.k = k;
    this.sigma = sigma;
    this.seed = seed;
    this.embedding = embedding;
  }

  /** The seed's: k = 5, σ = 0.15, seed 0, 256-dimension trigram embeddings. */
  public static DensityWeightedClustering defaults() {
    return new DensityWeightedClustering(5, 0.15, 0, TrigramEmbedding.of(256));
  }

  /** The same with {@code k} clusters (k &ge; 1). */
  public DensityWeightedClustering k(int k) {
    if (k < 1) {
      throw new IllegalArgumentException("k must be >= 1, was " + k);
    }
    return new DensityWeightedClustering(k, sigma, seed, embedding);
  }

  /** The same with relative noise σ in [0, 1] on the weights (0: exact density weights). */
  public DensityWeightedClustering noise(double sigma) {
    if (!(sigma >= 0 && sigma <= 1)) {
      throw new IllegalArgumentException("noise sigma must be in [0, 1], was " + sigma);
    }
    return new DensityWeightedClustering(k, sigma, seed, embedding);
  }

  /** The same with another seed (k-means++ and noise). */
  public DensityWeightedClustering seed(long seed) {
    return new DensityWeightedClustering(k, sigma, seed, embedding);
  }

  /** The same with another embedding. */
  public DensityWeightedClustering embedding(TrigramEmbedding embedding) {
    return new DensityWeightedClustering(k, sigma, seed, java.util.Objects.requireNonNull(embedding, "embedding"));
  }

  /**
   * Clusters the queries (at least k; none blank).
   *
   * @throws IllegalArgumentException on fewer than k queries or a blank one
   */
  public List<QueryCluster> cluster(List<String> queries) {
    if (queries.isEmpty()) {
      throw new IllegalArgumentException("no queries to cluster");
    }
    if (queries.size() < k) {
      throw new IllegalArgumentException("k = " + k + " clusters need at least " + k + " queries, got "
          + queries.size());
    }
    double[][] points = new double[queries.size()][];
    for (int i = 0; i < points.length; i++) {
      if (queries.get(i).isBlank()) {
        throw new IllegalArgumentException("query " + i + " is blank");
      }
      points[i] = embedding.embed(queries.get(i));
    }
    Weighting w = weigh(points);
    List<QueryCluster> out = new ArrayList<>();
    for (int c = 0; c < w.fit().clusters(); c++) {
      List<Integer> members = new ArrayList<>();
      int representative = -1;
      double best = Double.POSITIVE_INFINITY;
      double[] centre = w.fit().centroid(c);
      for (int i = 0; i < points.length; i++) {
        if (w.fit().clusterOf(i) == c) {
          members.add(i);
          double d = KMeans.squaredDistance(points[i], centre);
          if (d < best) {
            best = d;
            representative = i;
          }
        }
      }
      out.add(new QueryCluster(c, queries.get(representative), members, w.weights()[c]));
    }
    return List.copyOf(out);
  }

  /** Clusters points that are already embedded, and weighs the clusters (steps 2 to 5). */
  public Weighting weigh(double[][] points) {
    KMeans.Fit fit = KMeans.withK(k).seed(seed).fit(points);
    int m = fit.clusters();
    int[] sizes = new int[m];
    double[] spread = new double[m];
    for (int i = 0; i < points.length; i++) {
      int c = fit.clusterOf(i);
      sizes[c]++;
      spread[c] += Math.sqrt(KMeans.squaredDistance(points[i], fit.centroid(c)));
    }
    double[] density = new double[m];
    double total = 0;
    for (int c = 0; c < m; c++) {
      spread[c] /= sizes[c];
      density[c] = sizes[c] / Math.max(spread[c], MIN_SPREAD);
      total += density[c];
    }
    double[] base = new double[m];
    for (int c = 0; c < m; c++) {
      base[c] = density[c] / total;
    }
    double[] noisy = new double[m];
    double noisyTotal = 0;
    Random random = new Random(seed + 1);
    for (int c = 0; c < m; c++) {
      double z = sigma == 0 ? 0 : random.nextGaussian();
      noisy[c] = base[c] * Math.max(0, 1 + sigma * z);
      noisyTotal += noisy[c];
    }
    if (noisyTotal == 0) {
      noisy = base.clone();
      noisyTotal = 1;
    }
    for (int c = 0; c < m; c++) {
      noisy[c] /= noisyTotal;
    }
    return new Weighting(fit, sizes, spread, density, base, noisy);
  }

  @Override
  public String toString() {
    return "DensityWeightedClustering[KMeans k=" + k + ", density = members / mean distance, noise sigma " + sigma
        + ", seed " + seed + ", " + embedding + "]";
  }

  /**
   * The clusters and how they were weighed; arrays are indexed by cluster (accessors copy).
   *
   * @param fit the k-means clustering
   * @param sizes members per cluster
   * @param meanDistances each cluster's mean Euclidean distance from its members to its centroid
   * @param densities {@code size / max(meanDistance, MIN_SPREAD)}
   * @param baseWeights densities normalised to sum to 1
   * @param weights the base weights with noise, normalised to sum to 1
   */
  public record Weighting(KMeans.Fit fit, int[] sizes, double[] meanDistances, double[] densities,
      double[] baseWeights, double[] weights) {

    /** Copies. */
    public Weighting {
      sizes = sizes.clone();
      meanDistances = meanDistances.clone();
      densities = densities.clone();
      baseWeights = baseWeights.clone();
      weights = weights.clone();
    }

    @Override
    public int[] sizes() {
      return sizes.clone();
    }

    @Override
    public double[] meanDistances() {
      return meanDistances.clone();
    }

    @Override
    public double[] densities() {
      return densities.clone();
    }

    @Override
    public double[] baseWeights() {
      return baseWeights.clone();
    }

    @Override
    public double[] weights() {
      return weights.clone();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Weighting w && w.fit == fit && Arrays.equals(w.sizes, sizes)
          && Arrays.equals(w.weights, weights) && Arrays.equals(w.baseWeights, baseWeights);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(weights);
    }

    @Override
    public String toString() {
      return "Weighting[sizes " + Arrays.toString(sizes) + ", weights " + Arrays.toString(weights) + "]";
    }
  }
}
