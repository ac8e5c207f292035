package io.infermark.perturbation.design;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import java.util.List;
import org.junit.jupiter.api.Test;

class DesignsTest {

  @Test
  void sobolFirstPointsMatchJoeKuo() {
    // scipy.stats.qmc.Sobol(d=5, scramble=False), which uses the same Joe-Kuo direction numbers, after the origin.
    double[][] expected = {
        {0.5, 0.5, 0.5, 0.5, 0.5},
        {0.75, 0.25, 0.25, 0.25, 0.75},
        {0.25, 0.75, 0.75, 0.75, 0.25},
        {0.375, 0.375, 0.625, 0.875, 0.375},
        {0.875, 0.875, 0.125, 0.375, 0.875},
        {0.625, 0.125, 0.875, 0.625, 0.625},
        {0.125, 0.625, 0.375, 0.125, 0.125},
        {0.1875, 0.3125, 0.9375, 0.4375, 0.5625}};
    assertThat(Designs.sobolPoints(8, 5)).isEqualTo(expected);
    Design d = Designs.sobol(3, 4, 2);
    assertThat(d.rows()).isEqualTo(new int[][] {{2, 1}, {3, 0}, {1, 1}});
  }

  @Test
  void latinHypercubeUsesEveryStratumOncePerFactor() {
    double[][] p = Designs.latinHypercubePoints(50, 3, 9);
    for (int j = 0; j < 3; j++) {
      boolean[] seen = new boolean[50];
      for (double[] row : p) {
        int stratum = (int) Math.floor(row[j] * 50);
        assertThat(seen[stratum]).isFalse();
        seen[stratum] = true;
      }
    }
    assertThat(Designs.latinHypercubePoints(50, 3, 9)).isEqualTo(p);
    assertThat(Designs.latinHypercubePoints(50, 3, 10)).isNotEqualTo(p);
    // 9 runs on 3 levels: each level exactly 3 times per factor.
    Design d = Designs.latinHypercube(9, 1, 3, 3);
    for (int j = 0; j < 2; j++) {
      int[] counts = new int[3];
      for (int[] r : d.rows()) {
        counts[r[j]]++;
      }
      assertThat(counts).containsExactly(3, 3, 3);
    }
  }

  @Test
  void fullFactorialEnumeratesInOrder() {
    Design d = Designs.fullFactorial(2, 3);
    assertThat(d.rows()).isEqualTo(new int[][] {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}});
    assertThat(d.isOrthogonal()).isTrue();
    assertThatThrownBy(() -> Designs.fullFactorial(100, 100, 101)).hasMessageContaining("sampled design");
  }

  @Test
  void randomDesignsAreSeeded() {
    assertThat(Designs.random(20, 3, 3, 4, 5)).isEqualTo(Designs.random(20, 3, 3, 4, 5));
    assertThat(Designs.random(20, 3, 3, 4, 5)).isNotEqualTo(Designs.random(20, 4, 3, 4, 5));
  }

  @Test
  void qualityOfTheTwoByTwoFactorialIsKnown() {
    DesignQuality q = DesignQuality.of(Designs.fullFactorial(2, 2));
    assertThat(q.pairwiseCoverage()).isEqualTo(1.0);
    assertThat(q.minDistance()).isEqualTo(1.0);
    // four distances of 1 and two of sqrt(2)
    assertThat(q.meanDistance()).isCloseTo((4 + 2 * Math.sqrt(2)) / 6, offset(1e-12));
    assertThat(q.diversity()).isEmpty();
  }

  @Test
  void coverageCountsDistinctLevelPairs() {
    // Two runs over 3x3 levels and a third factor: pairs (0,0),(1,1) of 9 for each of the 3 factor pairs.
    Design d = Design.of("two runs", new int[] {3, 3, 2}, new int[][] {{0, 0, 0}, {1, 1, 1}});
    DesignQuality q = DesignQuality.of(d);
    assertThat(q.pairwiseCoverage()).isCloseTo(6.0 / (9 + 6 + 6), offset(1e-12));
    assertThat(q.worstPairCoverage()).isCloseTo(2.0 / 9, offset(1e-12));
    // distance: (0.5, 0.5, 1) -> sqrt(1.5)
    assertThat(q.minDistance()).isCloseTo(Math.sqrt(1.5), offset(1e-12));
  }

  @Test
  void distinctBigramRatioCountsRepeats() {
    // "a b c" + "a b d": bigrams ab, bc, ab, bd -> 3 distinct of 4
    assertThat(DesignQuality.distinctNgramRatio(List.of("a b c", "a b d"), 2).getAsDouble()).isEqualTo(0.75);
    assertThat(DesignQuality.distinctNgramRatio(List.of("a", ""), 2)).isEmpty();
  }

  @Test
  void comparisonTableListsEveryDesign() {
    int[] levels = {3, 3, 3, 3};
    DesignComparison c = new DesignComparison(List.of(DesignQuality.of(Designs.orthogonalArray(levels)),
        DesignQuality.of(Designs.random(9, 1, levels).named("random")),
        DesignQuality.of(Designs.latinHypercube(9, 1, levels)), DesignQuality.of(Designs.sobol(9, levels))));
    String table = c.table();
    assertThat(table.split("\n")).hasSize(5);
    assertThat(table).contains("L9 orthogonal array").contains("random").contains("Latin hypercube")
        .contains("Sobol");
    assertThat(table.split("\n")[1]).contains("1.000");
    assertThat(c.best().name()).isEqualTo("L9 orthogonal array");
    assertThat(c.toString()).doesNotContain("\n");
  }

  @Test
  void badDesignsAreRejected() {
    assertThatThrownBy(() -> Design.of("x", new int[] {2}, new int[][] {{2}})).hasMessageContaining("was 2");
    assertThatThrownBy(() -> Designs.random(0, 1, 2)).hasMessageContaining("runs must be >= 1, was 0");
    assertThatThrownBy(() -> Designs.sobol(5)).hasMessageContaining("at least one factor");
  }
}
