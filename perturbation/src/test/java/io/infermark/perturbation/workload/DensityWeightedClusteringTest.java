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
  void clustersAreWeightedByTheSeedsClampOfRelativeDensity() {
    DensityWeightedClustering.Weighting w = DensityWeightedClustering.defaults().k(3).weigh(POINTS);

    assertThat(w.sizes()).containsExactly(4, 2, 3);
    // A: every point sqrt(2) from (1, 1); B: 1 from (10, 11); C: 1, 0, 1 from (21, 0)
    assertThat(w.meanDistances()[0]).isCloseTo(Math.sqrt(2), offset(1e-12));
    assertThat(w.meanDistances()[1]).isCloseTo(1, offset(1e-12));
    assertThat(w.meanDistances()[2]).isCloseTo(2 / 3.0, offset(1e-12));
    // densities 4 / sqrt 2 = 2.828427, 2 / 1 = 2, 3 / (2/3) = 4.5; mean 9.328427 / 3 = 3.109476
    assertThat(w.densities()[0]).isCloseTo(2.8284271247, offset(1e-9));
    assertThat(w.densities()[1]).isCloseTo(2, offset(1e-12));
    assertThat(w.densities()[2]).isCloseTo(4.5, offset(1e-12));
    // seed 003 §2.2: max(0.3, min(2.0, 1.5 x density / mean)) = 1.364423, 0.964793, min(2.0, 2.170784) = 2.0
    double mean = (2 * Math.sqrt(2) + 6.5) / 3;
    assertThat(w.qpsWeights()[0]).isCloseTo(1.5 * 2 * Math.sqrt(2) / mean, offset(1e-12)).isCloseTo(1.364423, offset(1e-6));
    assertThat(w.qpsWeights()[1]).isCloseTo(1.5 * 2 / mean, offset(1e-12)).isCloseTo(0.964793, offset(1e-6));
    assertThat(w.qpsWeights()[2]).isEqualTo(2.0);
    // shares: q / (1.364423 + 0.964793 + 2.0 = 4.329216) = 0.315166, 0.222856, 0.461977
    assertThat(w.baseWeights()[0]).isCloseTo(0.315166, offset(1e-6));
    assertThat(w.baseWeights()[1]).isCloseTo(0.222856, offset(1e-6));
    assertThat(w.baseWeights()[2]).isCloseTo(0.461977, offset(1e-6));
    // no weight jitter by default: the shares are the weights
    assertThat(w.weights()).containsExactly(w.baseWeights());
  }

  @Test
  void oneDenseClusterCannotTakeMostOfTheRate() {
    // A shrunk to a 0.01 square: mean distance 0.007071, density 565.685; B 2, C 4.5. Shares proportional to
    // density would give A 0.9886. The clamp: 1.5 x 565.685 / 190.728 = 4.45 -> 2.0; 1.5 x 2 / 190.728 = 0.016
    // -> 0.3; 1.5 x 4.5 / 190.728 = 0.035 -> 0.3. Shares 2 / 2.6 = 0.769231, 0.3 / 2.6 = 0.115385 twice.
    double[][] points = {{0, 0}, {10, 10}, {20, 0}, {0.01, 0}, {10, 12}, {21, 0}, {0, 0.01}, {22, 0}, {0.01, 0.01}};
    DensityWeightedClustering.Weighting w = DensityWeightedClustering.defaults().k(3).weigh(points);

    assertThat(w.densities()[0]).isCloseTo(565.685425, offset(1e-6));
    assertThat(w.qpsWeights()).containsExactly(2.0, 0.3, 0.3);
    assertThat(w.weights()).containsExactly(new double[] {2 / 2.6, 0.3 / 2.6, 0.3 / 2.6}, offset(1e-12));
  }

  @Test
  void weightJitterScalesEachShareByOnePlusSigmaZThenRenormalises() {
    long seed = 42;
    DensityWeightedClustering.Weighting w = DensityWeightedClustering.defaults().k(3).seed(seed).weightJitter(0.15)
        .weigh(POINTS);

    Random z = new Random(seed + 1);
    double[] base = w.baseWeights();
    double[] noisy = new double[3];
    double sum = 0;
    for (int c = 0; c < 3; c++) {
      noisy[c] = base[c] * (1 + 0.15 * z.nextGaussian());
      sum += noisy[c];
    }
    for (int c = 0; c < 3; c++) {
      assertThat(w.weights()[c]).as("cluster %d", c).isCloseTo(noisy[c] / sum, offset(1e-12));
    }
    assertThat(w.weights()[0] + w.weights()[1] + w.weights()[2]).isCloseTo(1, offset(1e-12));
    assertThat(w.weights()).isNotEqualTo(w.baseWeights());
  }

  /** The texts of POINTS: "p0" ... "p8". */
  private static final List<String> TEXTS = List.of("p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8");

  @Test
  void eachSyntheticQueryIsTheClusterMemberNearestItsNoisyCentroid() {
    // The seed's code: centroid + N(0, 0.15) per coordinate. A's centroid (1, 1) is equally far from its four
    // corners, so the noise's signs pick the corner: x > 1 -> 2, y > 1 -> 2. C's centroid (21, 0): the middle
    // point 21 unless the noise moves x by more than 0.5 (3.3 sigma).
    long seed = 5;
    CentroidSynthesis s = DensityWeightedClustering.defaults().k(3).seed(seed).centroidNoise(0.15)
        .synthesis(TEXTS, POINTS);
    assertThat(s.sigma(0)).isEqualTo(0.15);
    Random r = new Random((seed + 2) ^ 0x9E3779B97F4A7C15L);
    List<CentroidSynthesis.Draw> a = s.draws(0, 40);
    for (CentroidSynthesis.Draw d : a) {
      double x = 1 + 0.15 * r.nextGaussian();
      double y = 1 + 0.15 * r.nextGaussian();
      int corner = x > 1 ? (y > 1 ? 8 : 3) : (y > 1 ? 6 : 0); // (2,2) p8, (2,0) p3, (0,2) p6, (0,0) p0
      assertThat(d.queryIndex()).isEqualTo(corner);
      assertThat(d.query()).isEqualTo("p" + corner);
      assertThat(d.distance()).isCloseTo(Math.hypot(x - (corner == 3 || corner == 8 ? 2 : 0),
          y - (corner == 6 || corner == 8 ? 2 : 0)), offset(1e-12));
    }
    assertThat(a).extracting(CentroidSynthesis.Draw::queryIndex).contains(0, 3, 6, 8); // every corner, 40 draws
    assertThat(s.draws(2, 40)).extracting(CentroidSynthesis.Draw::query).containsOnly("p5");
    assertThat(s.draws(0, 40)).isEqualTo(a); // reproducible

    // Relative noise (the default, the seed's "±15%"): sigma = 0.15 |c| / sqrt(d) = 0.15 x 21 / sqrt 2 for C.
    CentroidSynthesis rel = DensityWeightedClustering.defaults().k(3).seed(seed).synthesis(TEXTS, POINTS);
    assertThat(rel.sigma(2)).isCloseTo(0.15 * 21 / Math.sqrt(2), offset(1e-12));
    assertThat(rel.sigma(0)).isCloseTo(0.15, offset(1e-12));
  }

  @Test
  void synthesizedPromptsKeepEveryClustersQuotaAndComeFromItsMembers() {
    List<String> log = LogWorkloadTest.LOG;
    LogWorkload w = LogWorkload.of(log, DensityWeightedClustering.defaults().k(3).seed(1));
    List<Prompt> synthetic = w.synthesized(300);
    int[] quota = w.quotas(300);

    for (QueryCluster c : w.clusters()) {
      List<Prompt> mine = synthetic.stream().filter(p -> p.tags().get(LogWorkload.CLUSTER_TAG)
          .equals(Integer.toString(c.id()))).toList();
      assertThat(mine).hasSize(quota[c.id()]);
      for (Prompt p : mine) {
        int from = Integer.parseInt(p.tags().get(LogWorkload.SYNTHESIZED_FROM_TAG));
        assertThat(c.members()).contains(from);
        assertThat(p.text()).isEqualTo(log.get(from));
      }
    }
    // the same clusters at the same positions as interleaved(), and reproducible
    assertThat(synthetic).extracting(p -> p.tags().get(LogWorkload.CLUSTER_TAG))
        .containsExactlyElementsOf(w.interleaved(300).stream().map(p -> p.tags().get(LogWorkload.CLUSTER_TAG)).toList());
    assertThat(w.synthesized(300)).isEqualTo(synthetic);
    assertThat(LogWorkload.of(log, QueryClustering.defaults())).satisfies(q ->
        assertThatThrownBy(() -> q.synthesized(3)).isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("DensityWeightedClustering"));
  }

  @Test
  void theSameSeedGivesTheSameClustersAndWeights() {
    DensityWeightedClustering c = DensityWeightedClustering.defaults().seed(3);

    assertThat(c.cluster(LogWorkloadTest.LOG)).isEqualTo(c.cluster(LogWorkloadTest.LOG));
  }

  @Test
  void fewerDistinctPointsThanKGiveFewerClustersWithTheSpreadFloor() {
    double[][] points = {{0, 0}, {1, 1}, {0, 0}, {1, 1}, {0, 0}};
    DensityWeightedClustering.Weighting w = DensityWeightedClustering.defaults().weigh(points);

    assertThat(w.fit().clusters()).isEqualTo(2);
    assertThat(w.fit().assignment()).containsExactly(0, 1, 0, 1, 0);
    // both spreads are 0, floored at 1e-6: densities 3e6 and 2e6, mean 2.5e6: QPS weights 1.8 and 1.2
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
    assertThatThrownBy(() -> DensityWeightedClustering.defaults().weightJitter(1.5))
        .hasMessage("weight jitter sigma must be in [0, 1], was 1.5");
    assertThatThrownBy(() -> DensityWeightedClustering.defaults().centroidNoise(-1))
        .hasMessageContaining("centroid noise sigma must be finite and >= 0");
    assertThatThrownBy(() -> TrigramEmbedding.of(8).embed("?!")).hasMessageContaining("no letter or digit");
  }
}
