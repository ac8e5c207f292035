package io.infermark.perturbation.workload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;

/**
 * Semantic clusters of a query log weighted by density, as seed 003 writes it: KMeans (k = 5) over
 * query embeddings (chapter 1, §2.2), a QPS weight per cluster of
 * {@code max(0.3, min(2.0, 1.5 * (density / avg_density)))} (§2.2's {@code get_qps_weight}), and new
 * queries synthesised from the centroids plus Gaussian noise (chapter 1's
 * {@code centroid + np.random.normal(0, 0.15, centroid.shape)}, see {@link CentroidSynthesis}).
 *
 * <pre>{@code
 * LogWorkload w = LogWorkload.of(queries, DensityWeightedClustering.defaults().seed(7));
 * List<Prompt> prompts = w.synthesized(500);   // cluster c appears about 500 × share(c) times
 * }</pre>
 *
 * <ol>
 *   <li>Embed each query as a {@link TrigramEmbedding} (hashed bag of character trigrams,
 *       L2-normalised) [256 dimensions]: a deterministic, dependency-free stand-in for a sentence
 *       embedding (the seed's spaCy {@code doc.vector}) that places queries sharing wording close together.
 *   <li>Cluster with {@link KMeans} [k = 5, k-means++, 10 restarts, the given seed].
 *   <li>Density of cluster c: {@code ρ_c = n_c / max(d̄_c, 1e-6)}, with {@code n_c} its members and
 *       {@code d̄_c} their mean Euclidean distance to its centroid (a cluster of identical queries
 *       counts as if spread by 1e-6). The seed reads a precomputed "簇内样本密度" (in-cluster sample
 *       density) without defining it; this is infermark's definition.
 *   <li>QPS weight {@code q_c = clamp(1.5 ρ_c / ρ̄, 0.3, 2.0)}, {@code ρ̄} the mean density over the
 *       clusters: at a base rate {@code r} per cluster, cluster c is sent {@code r × q_c}. One dense
 *       cluster can therefore take at most 2.0 / (2.0 + 0.3 (k − 1)) of the requests (0.625 with k = 5),
 *       where shares proportional to density would let it take nearly all.
 *   <li>Share of the requests {@code w_c = q_c / Σ q}.
 *   <li>Optional weight jitter (not in the seed, off by default): {@code w'_c = w_c × max(0, 1 + σ z_c)},
 *       {@code z_c} standard normal from {@code java.util.Random(seed + 1).nextGaussian()} in cluster
 *       order, renormalised (if every jittered weight were 0, the shares are kept).
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
  /** The seed's scale of relative density in the QPS weight: 1.5. */
  public static final double QPS_WEIGHT_SCALE = 1.5;
  /** The seed's lowest QPS weight: 0.3. */
  public static final double MIN_QPS_WEIGHT = 0.3;
  /** The seed's highest QPS weight: 2.0. */
  public static final double MAX_QPS_WEIGHT = 2.0;
  /** The seed's centroid noise: σ = 0.15 ("±15%"). */
  public static final double SEED_CENTROID_NOISE = 0.15;

  private final int k;
  private final double weightJitter;
  private final double centroidNoise;
  private final boolean relativeNoise;
  private final long seed;
  private final TrigramEmbedding embedding;

  private DensityWeightedClustering(int k, double weightJitter, double centroidNoise, boolean relativeNoise, long seed,
      TrigramEmbedding embedding) {
    this.k = k;
    this.weightJitter = weightJitter;
    this.centroidNoise = centroidNoise;
    this.relativeNoise = relativeNoise;
    this.seed = seed;
    this.embedding = embedding;
  }

  /**
   * The seed's: k = 5, the density clamp, centroid noise 15 % relative to each centroid's length
   * ({@link CentroidSynthesis}), no weight jitter, seed 0, 256-dimension trigram embeddings.
   */
  public static DensityWeightedClustering defaults() {
    return new DensityWeightedClustering(5, 0, SEED_CENTROID_NOISE, true, 0, TrigramEmbedding.of(256));
  }

  /** The same with {@code k} clusters (k &ge; 1). */
  public DensityWeightedClustering k(int k) {
    if (k < 1) {
      throw new IllegalArgumentException("k must be >= 1, was " + k);
    }
    return new DensityWeightedClustering(k, weightJitter, centroidNoise, relativeNoise, seed, embedding);
  }

  /**
   * The same with relative jitter σ in [0, 1] on the cluster shares (0, the default: the seed's
   * weights exactly). Not the seed's noise, which moves centroids ({@link #centroidNoise}).
   */
  public DensityWeightedClustering weightJitter(double sigma) {
    if (!(sigma >= 0 && sigma <= 1)) {
      throw new IllegalArgumentException("weight jitter sigma must be in [0, 1], was " + sigma);
    }
    return new DensityWeightedClustering(k, sigma, centroidNoise, relativeNoise, seed, embedding);
  }

  /**
   * The same with absolute centroid noise: {@code N(0, σ)} added to every coordinate, as the seed's
   * code writes it ({@code np.random.normal(0, 0.15, centroid.shape)}). Suited to embeddings whose
   * coordinates are on the scale the σ was chosen for; on unit-length 256-dimension trigram
   * embeddings σ = 0.15 gives a noise about 2.4 long, longer than any centroid.
   */
  public DensityWeightedClustering centroidNoise(double sigma) {
    if (!(sigma >= 0) || Double.isInfinite(sigma)) {
      throw new IllegalArgumentException("centroid noise sigma must be finite and >= 0, was " + sigma);
    }
    return new DensityWeightedClustering(k, weightJitter, sigma, false, seed, embedding);
  }

  /**
   * The same with centroid noise relative to each centroid (the default, 0.15: the seed's comment,
   * "添加±15%的高斯扰动", ±15 % Gaussian noise): every coordinate gets {@code N(0, f ‖c‖ / √d)}, so the
   * noise's expected squared length is {@code f²‖c‖²}: a perturbation about {@code f} of the centroid.
   */
  public DensityWeightedClustering relativeCentroidNoise(double fraction) {
    if (!(fraction >= 0) || Double.isInfinite(fraction)) {
      throw new IllegalArgumentException("relative centroid noise must be finite and >= 0, was " + fraction);
    }
    return new DensityWeightedClustering(k, weightJitter, fraction, true, seed, embedding);
  }

  /** The same with another seed (k-means++, jitter and centroid noise). */
  public DensityWeightedClustering seed(long seed) {
    return new DensityWeightedClustering(k, weightJitter, centroidNoise, relativeNoise, seed, embedding);
  }

  /** The same with another embedding. */
  public DensityWeightedClustering embedding(TrigramEmbedding embedding) {
    return new DensityWeightedClustering(k, weightJitter, centroidNoise, relativeNoise, seed,
        Objects.requireNonNull(embedding, "embedding"));
  }

  /**
   * Clusters the queries (at least k; none blank).
   *
   * @throws IllegalArgumentException on fewer than k queries or a blank one
   */
  public List<QueryCluster> cluster(List<String> queries) {
    double[][] points = embedAll(queries);
    return clusters(queries, points, weigh(points));
  }

  /**
   * Clusters the queries and returns the seed's synthesis over them: noisy centroids mapped to the
   * queries they select ({@link CentroidSynthesis}).
   *
   * @throws IllegalArgumentException on fewer than k queries or a blank one
   */
  public CentroidSynthesis synthesis(List<String> queries) {
    return synthesis(queries, embedAll(queries));
  }

  /**
   * The synthesis over queries already embedded ({@code embeddings[i]} is query i's vector).
   *
   * @throws IllegalArgumentException if the counts differ or there are fewer than k queries
   */
  public CentroidSynthesis synthesis(List<String> queries, double[][] embeddings) {
    if (queries.size() != embeddings.length) {
      throw new IllegalArgumentException(queries.size() + " queries but " + embeddings.length + " embeddings");
    }
    Weighting w = weigh(embeddings);
    return new CentroidSynthesis(clusters(queries, embeddings, w), queries, embeddings, w.fit(), centroidNoise,
        relativeNoise, seed + 2);
  }

  /** Clusters points that are already embedded, and weighs the clusters (steps 2 to 6). */
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
    double mean = total / m;
    double[] qps = new double[m];
    double qpsTotal = 0;
    for (int c = 0; c < m; c++) {
      qps[c] = Math.max(MIN_QPS_WEIGHT, Math.min(MAX_QPS_WEIGHT, QPS_WEIGHT_SCALE * (density[c] / mean)));
      qpsTotal += qps[c];
    }
    double[] base = new double[m];
    for (int c = 0; c < m; c++) {
      base[c] = qps[c] / qpsTotal;
    }
    double[] jittered = new double[m];
    double jitteredTotal = 0;
    Random random = new Random(seed + 1);
    for (int c = 0; c < m; c++) {
      double z = weightJitter == 0 ? 0 : random.nextGaussian();
      jittered[c] = base[c] * Math.max(0, 1 + weightJitter * z);
      jitteredTotal += jittered[c];
    }
    if (jitteredTotal == 0) {
      jittered = base.clone();
      jitteredTotal = 1;
    }
    for (int c = 0; c < m; c++) {
      jittered[c] /= jitteredTotal;
    }
    return new Weighting(fit, sizes, spread, density, qps, base, jittered);
  }

  private double[][] embedAll(List<String> queries) {
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
    return points;
  }

  private static List<QueryCluster> clusters(List<String> queries, double[][] points, Weighting w) {
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

  @Override
  public String toString() {
    return "DensityWeightedClustering[KMeans k=" + k + ", QPS weight clamp(1.5 density / mean, 0.3, 2.0), centroid "
        + "noise " + (relativeNoise ? centroidNoise * 100 + " % relative" : "sigma " + centroidNoise)
        + ", weight jitter " + weightJitter + ", seed " + seed + ", " + embedding + "]";
  }

  /**
   * The clusters and how they were weighed; arrays are indexed by cluster (accessors copy).
   *
   * @param fit the k-means clustering
   * @param sizes members per cluster
   * @param meanDistances each cluster's mean Euclidean distance from its members to its centroid
   * @param densities {@code size / max(meanDistance, MIN_SPREAD)}
   * @param qpsWeights the seed's QPS weight {@code clamp(1.5 density / mean density, 0.3, 2.0)}
   * @param baseWeights the QPS weights normalised to sum to 1: each cluster's share of the requests
   * @param weights the shares after weight jitter (the base weights when there is none), summing to 1
   */
  public record Weighting(KMeans.Fit fit, int[] sizes, double[] meanDistances, double[] densities,
      double[] qpsWeights, double[] baseWeights, double[] weights) {

    /** Copies. */
    public Weighting {
      sizes = sizes.clone();
      meanDistances = meanDistances.clone();
      densities = densities.clone();
      qpsWeights = qpsWeights.clone();
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
    public double[] qpsWeights() {
      return qpsWeights.clone();
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
      return "Weighting[sizes " + Arrays.toString(sizes) + ", QPS weights " + Arrays.toString(qpsWeights) + ", shares "
          + Arrays.toString(weights) + "]";
    }
  }
}
