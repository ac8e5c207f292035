package io.infermark.perturbation.workload;

import io.infermark.core.request.Prompt;
import io.infermark.perturbation.PerturbationSpace;
import io.infermark.perturbation.design.Design;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * A workload built from a real query log: cluster the queries ({@link QueryClustering}, each
 * cluster weighted by its size, or {@link DensityWeightedClustering}, weighted by density), sample
 * representatives in proportion to the weights, and optionally perturb them.
 *
 * <pre>{@code
 * LogWorkload w = LogWorkload.of(queries, QueryClustering.defaults());
 * List<Prompt> prompts = w.perturbed(200, p -> PerturbationSpace.builder(p)
 *     .dimension("typos", Typos.budgets(0, 1, 3)).build(), Designs.fullFactorial(3), 7);
 * }</pre>
 */
public final class LogWorkload {

  /** The tag holding a prompt's cluster id. */
  public static final String CLUSTER_TAG = "cluster";
  /** The tag of a {@link #synthesized} prompt holding the log index of the query its noisy centroid selected. */
  public static final String SYNTHESIZED_FROM_TAG = "synthesized_from";

  private final List<QueryCluster> clusters;
  private final CentroidSynthesis synthesis;

  private LogWorkload(List<QueryCluster> clusters, CentroidSynthesis synthesis) {
    this.clusters = clusters;
    this.synthesis = synthesis;
  }

  /** Clusters the log. */
  public static LogWorkload of(List<String> queries, QueryClustering clustering) {
    Objects.requireNonNull(clustering, "clustering");
    return new LogWorkload(clustering.cluster(queries), null);
  }

  /**
   * Clusters the log into semantic clusters weighted by density ({@link DensityWeightedClustering}):
   * {@link #sample} then gives each cluster its density-weighted share of the requests, and
   * {@link #synthesized} the seed's synthetic queries from noisy centroids.
   */
  public static LogWorkload of(List<String> queries, DensityWeightedClustering clustering) {
    Objects.requireNonNull(clustering, "clustering");
    CentroidSynthesis synthesis = clustering.synthesis(queries);
    return new LogWorkload(synthesis.clusters(), synthesis);
  }

  /** The clusters, in order of first appearance. */
  public List<QueryCluster> clusters() {
    return clusters;
  }

  /**
   * {@code count} prompts of cluster representatives, cluster {@code c} appearing
   * {@code count × weight(c)} times rounded by largest remainder (ties to the earlier cluster), in
   * cluster order. Each prompt is tagged {@code cluster} and {@code class = cluster-<id>}.
   */
  public List<Prompt> sample(int count) {
    if (count < 1) {
      throw new IllegalArgumentException("sample count must be >= 1, was " + count);
    }
    int[] quota = quotas(count);
    List<Prompt> out = new ArrayList<>(count);
    for (QueryCluster c : clusters) {
      Prompt p = Prompt.user(c.representative()).withTag(CLUSTER_TAG, Integer.toString(c.id()))
          .withTag("class", "cluster-" + c.id());
      for (int i = 0; i < quota[c.id()]; i++) {
        out.add(p);
      }
    }
    return List.copyOf(out);
  }

  /**
   * The prompts of {@link #sample(int)} (the same count per cluster) in an order that spreads every
   * cluster evenly over the run, so that at any request rate each cluster's share of the rate is its
   * weight throughout, not only on average: smooth weighted round robin over the quotas (each step
   * adds every cluster's quota to its credit, sends the cluster with the most credit, ties to the
   * lower id, and takes {@code count} from its credit). Quotas 3, 2, 2 give clusters 0 1 2 0 1 2 0.
   * Run it with {@code Benchmark.prompts(list)}, which sends the list in order.
   */
  public List<Prompt> interleaved(int count) {
    List<Prompt> bySample = sample(count);
    int[] quota = quotas(count);
    int[] first = new int[clusters.size()];
    for (int c = 1; c < first.length; c++) {
      first[c] = first[c - 1] + quota[c - 1];
    }
    int[] taken = new int[clusters.size()];
    long[] credit = new long[clusters.size()];
    List<Prompt> out = new ArrayList<>(count);
    for (int step = 0; step < count; step++) {
      int best = -1;
      for (int c = 0; c < credit.length; c++) {
        credit[c] += quota[c];
        if (quota[c] > 0 && (best < 0 || credit[c] > credit[best])) {
          best = c;
        }
      }
      credit[best] -= count;
      out.add(bySample.get(first[best] + taken[best]++));
    }
    return List.copyOf(out);
  }

  /**
   * Seed 003's synthetic queries, in the order of {@link #interleaved(int)} (the same clusters at the
   * same positions): the j-th request of cluster c is the query selected by c's j-th noisy centroid
   * ({@link CentroidSynthesis#draws}), tagged {@code cluster}, {@code class = cluster-<id>} and
   * {@value #SYNTHESIZED_FROM_TAG} (the selected query's index in the log).
   *
   * @throws IllegalStateException if the workload was not clustered by {@link DensityWeightedClustering}
   */
  public List<Prompt> synthesized(int count) {
    if (synthesis == null) {
      throw new IllegalStateException("synthetic queries come from noisy centroids: build the workload with "
          + "LogWorkload.of(queries, DensityWeightedClustering.defaults())");
    }
    List<Prompt> order = interleaved(count);
    int[] quota = quotas(count);
    List<List<CentroidSynthesis.Draw>> draws = new ArrayList<>();
    for (QueryCluster c : clusters) {
      draws.add(synthesis.draws(c.id(), quota[c.id()]));
    }
    int[] taken = new int[clusters.size()];
    List<Prompt> out = new ArrayList<>(count);
    for (Prompt p : order) {
      int c = Integer.parseInt(p.tags().get(CLUSTER_TAG));
      CentroidSynthesis.Draw d = draws.get(c).get(taken[c]++);
      out.add(Prompt.user(d.query()).withTag(CLUSTER_TAG, Integer.toString(c)).withTag("class", "cluster-" + c)
          .withTag(SYNTHESIZED_FROM_TAG, Integer.toString(d.queryIndex())));
    }
    return List.copyOf(out);
  }

  /**
   * {@link #sample(int)}, each sample perturbed: sample {@code i} becomes the variant at design run
   * {@code i mod runs} of the space {@code spaceFor} builds around it, made with a seed derived from
   * {@code seed} and {@code i}, and tagged {@code variant = i}.
   */
  public List<Prompt> perturbed(int count, Function<Prompt, PerturbationSpace> spaceFor, Design design, long seed) {
    List<Prompt> base = sample(count);
    List<Prompt> out = new ArrayList<>(base.size());
    for (int i = 0; i < base.size(); i++) {
      PerturbationSpace space = spaceFor.apply(base.get(i));
      long s = seed + 0x9E3779B97F4A7C15L * (i + 1);
      out.add(space.apply(design.row(i % design.runs()), s).prompt().withTag("variant", Integer.toString(i)));
    }
    return List.copyOf(out);
  }

  int[] quotas(int count) {
    int[] quota = new int[clusters.size()];
    double[] remainder = new double[clusters.size()];
    int given = 0;
    for (QueryCluster c : clusters) {
      double exact = count * c.weight();
      quota[c.id()] = (int) Math.floor(exact);
      remainder[c.id()] = exact - quota[c.id()];
      given += quota[c.id()];
    }
    while (given < count) {
      int best = 0;
      for (int i = 1; i < remainder.length; i++) {
        if (remainder[i] > remainder[best]) {
          best = i;
        }
      }
      quota[best]++;
      remainder[best] = -1;
      given++;
    }
    return quota;
  }

  @Override
  public String toString() {
    return "LogWorkload[" + clusters.size() + " clusters]";
  }
}
