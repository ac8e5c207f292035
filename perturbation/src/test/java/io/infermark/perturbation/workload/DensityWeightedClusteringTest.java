package io.infermark.perturbation.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import io.infermark.core.request.Prompt;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DensityWeightedClusteringTest {

  /**
   * Three clusters, interleaved: A = the square (0,0) (2,0) (0,2) (2,2), B = (10,10) (10,12),
   * C = (20,0) (21,0) (22,0).
   */
  static final double[][] POINTS = {{0, 0}, {10, 10}, {20, 0}, {2, 0}, {10, 12}, {21, 0}, {0, 2}, {22, 0}, {2, 2}};

  @Test
  void kMeansFindsTheHandComputedCentroidsAndAssignment() {
    KMeans.Fit fit = KMeans.withK(3).seed(0).fit(POINTS);

    assertThat(fit.clusters()).isEqualTo(3);
    // numbered by first member: point 0 is in A, point 1 in B, point 2 in C
    assertThat(fit.assignment()).containsExactly(0, 1, 2, 0, 1, 2, 0, 2, 0);
    assertThat(fit.centroid(0)).containsExactly(1, 1);
    assertThat(fit.centroid(1)).containsExactly(10, 11);
    assertThat(fit.centroid(2)).containsExactly(21, 0);
    // A: 4 points at squared distance 2; B: 2 at 1; C: 1 + 0 + 1
    assertThat(fit.inertia()).isCloseTo(12, offset(1e-12));
  }

  @Test
  void clustersAreWeightedByMembersOverMeanDistanceToTheCentroid() {
    DensityWeightedClustering.Weighting w = DensityWeightedClustering.defaults().k(3).noise(0).weigh(POINTS);

    assertThat(w.sizes()).containsExactly(4, 2, 3);
    // A: every point sqrt(2) from (1, 1); B: 1 from (10, 11); C: 1, 0, 1 from (21, 0)
    assertThat(w.meanDistances()[0]).isCloseTo(Math.sqrt(2), offset(1e-12));
    assertThat(w.meanDistances()[1]).isCloseTo(1, offset(1e-12));
    assertThat(w.meanDistances()[2]).isCloseTo(2 / 3.0, offset(1e-12));
    // densities 4 / sqrt 2 = 2.828427, 2 / 1 = 2, 3 / (2/3) = 4.5; sum 9.328427
    assertThat(w.densities()[0]).isCloseTo(2.8284271247, offset(1e-9));
    assertThat(w.densities()[1]).isCloseTo(2, offset(1e-12));
    assertThat(w.densities()[2]).isCloseTo(4.5, offset(1e-12));
    // weights 2.828427 / 9.328427 = 0.303205, 2 / 9.328427 = 0.214398, 4.5 / 9.328427 = 0.482396
    double sum = 2 * Math.sqrt(2) + 6.5;
    assertThat(w.baseWeights()[0]).isCloseTo(2 * Math.sqrt(2) / sum, offset(1e-12)).isCloseTo(0.303205, offset(1e-6));
    assertThat(w.baseWeights()[1]).isCloseTo(2 / sum, offset(1e-12)).isCloseTo(0.214398, offset(1e-6));
    assertThat(w.baseWeights()[2]).isCloseTo(4.5 / sum, offset(1e-12)).isCloseTo(0.482396, offset(1e-6));
    // without noise the weights are the base weights; size shares would be 4/9, 2/9, 3/9
    assertThat(w.weights()).containsExactly(w.baseWeights());
  }

  @Test
  void noiseScalesEachWeightByOnePlusSigmaZThenRenormalises() {
    long seed = 42;
    DensityWeightedClustering.Weighting w = DensityWeightedClustering.defaults().k(3).seed(seed).weigh(POINTS);

    Random z = new Random(seed + 1);
    double densities = 2 * Math.sqrt(2) + 6.5;
    double[] base = {2 * Math.sqrt(2) / densities, 2 / densities, 4.5 / densities};
    double[] noisy = new double[3];
    double sum = 0;
    for (int c = 0; c < 3; c++) {
      noisy[c] = base[c] * (1 + 0.15 * z.nextGaussian());
      sum += noisy[c];
    }
    assertThat(w.sizes()).containsExactly(4, 2, 3);
    for (int c = 0; c < 3; c++) {
      assertThat(w.weights()[c]).as("cluster %d", c).isCloseTo(noisy[c] / sum, offset(1e-12));
    }
    assertThat(w.weights()[0] + w.weights()[1] + w.weights()[2]).isCloseTo(1, offset(1e-12));
    assertThat(w.weights()).isNotEqualTo(w.baseWeights());
  }

  @Test
  void theSameSeedGivesTheSameClustersAndWeights() {
    DensityWeightedClustering c = DensityWeightedClustering.defaults().seed(3);

    assertThat(c.cluster(LogWorkloadTest.LOG)).isEqualTo(c.cluster(LogWorkloadTest.LOG));
  }

  @Test
  void fewerDistinctPointsThanKGiveFewerClustersWithTheSpreadFloor() {
    double[][] points = {{0, 0}, {1, 1}, {0, 0}, {1, 1}, {0, 0}};
    DensityWeightedClustering.Weighting w = DensityWeightedClustering.defaults().noise(0).weigh(points);

    assertThat(w.fit().clusters()).isEqualTo(2);
    assertThat(w.fit().assignment()).containsExactly(0, 1, 0, 1, 0);
    // both spreads are 0, floored at 1e-6: densities 3e6 and 2e6
    assertThat(w.weights()[0]).isCloseTo(0.6, offset(1e-12));
    assertThat(w.weights()[1]).isCloseTo(0.4, offset(1e-12));
  }

  @Test
  void queryLogClustersByWordingAndSamplesFollowTheDensityWeights() {
    List<String> log = LogWorkloadTest.LOG;
    DensityWeightedClustering clustering = DensityWeightedClustering.defaults().k(3).seed(1);
    List<QueryCluster> clusters = clustering.cluster(log);

    assertThat(clusters).extracting(QueryCluster::members).containsExactly(List.of(0, 1, 2), List.of(3, 4),
        List.of(5, 6));
    assertThat(clusters.stream().mapToDouble(QueryCluster::weight).sum()).isCloseTo(1, offset(1e-12));
    // the representative is the member nearest the centroid
    TrigramEmbedding e = TrigramEmbedding.of(256);
    for (QueryCluster c : clusters) {
      double[] centre = new double[256];
      for (int i : c.members()) {
        double[] v = e.embed(log.get(i));
        for (int d = 0; d < 256; d++) {
          centre[d] += v[d] / c.size();
        }
      }
      double rep = KMeans.squaredDistance(e.embed(c.representative()), centre);
      for (int i : c.members()) {
        assertThat(rep).isLessThanOrEqualTo(KMeans.squaredDistance(e.embed(log.get(i)), centre));
      }
    }
    LogWorkload w = LogWorkload.of(log, clustering);
    List<Prompt> prompts = w.sample(1000);
    for (QueryCluster c : clusters) {
      long n = prompts.stream().filter(p -> p.tags().get(LogWorkload.CLUSTER_TAG).equals(Integer.toString(c.id())))
          .count();
      assertThat((double) n).as("cluster %d", c.id()).isCloseTo(1000 * c.weight(), offset(1.0));
    }
  }

  @Test
  void trigramEmbeddingsAreUnitLengthAndShareCoordinatesForSharedTrigrams() {
    TrigramEmbedding e = TrigramEmbedding.of(64);
    double[] a = e.embed("abcd");
    double norm = 0;
    for (double x : a) {
      norm += x * x;
    }
    assertThat(norm).isCloseTo(1, offset(1e-12));
    // "abcd" = {abc, bcd}, "ABC-D" normalises to "abc d" = {abc, bc , c d}: one shared trigram
    assertThat(e.embed("abcd")).containsExactly(e.embed("ABCD!"));
    double dot = 0;
    double[] b = e.embed("abcx");
    for (int i = 0; i < 64; i++) {
      dot += a[i] * b[i];
    }
    assertThat(dot).isGreaterThanOrEqualTo(0.5 - 1e-12); // abc shared: cos >= 1/2, more if bcd and bcx collide
  }

  @Test
  void badInputIsRejectedWithTheReason() {
    assertThatThrownBy(() -> KMeans.withK(0)).hasMessage("k must be >= 1, was 0");
    assertThatThrownBy(() -> KMeans.withK(3).fit(new double[][] {{0}, {1}}))
        .hasMessage("k = 3 clusters need at least 3 points, got 2");
    assertThatThrownBy(() -> KMeans.withK(1).fit(new double[][] {{0, 1}, {1}}))
        .hasMessage("point 1 has 1 coordinates, point 0 has 2");
    assertThatThrownBy(() -> KMeans.withK(1).fit(new double[][] {{Double.NaN}}))
        .hasMessageContaining("point 0 has a coordinate that is not finite");
    assertThatThrownBy(() -> DensityWeightedClustering.defaults().cluster(List.of("a", "b")))
        .hasMessage("k = 5 clusters need at least 5 queries, got 2");
    assertThatThrownBy(() -> DensityWeightedClustering.defaults().k(2).cluster(List.of("a", " ")))
        .hasMessage("query 1 is blank");
    assertThatThrownBy(() -> DensityWeightedClustering.defaults().noise(1.5))
        .hasMessage("noise sigma must be in [0, 1], was 1.5");
    assertThatThrownBy(() -> TrigramEmbedding.of(8).embed("?!")).hasMessageContaining("no letter or digit");
  }
}
