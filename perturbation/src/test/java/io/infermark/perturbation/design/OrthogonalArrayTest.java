package io.infermark.perturbation.design;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Orthogonal arrays against the published Taguchi tables (levels written 1-based, as published). */
class OrthogonalArrayTest {

  static final String L4 = """
      1 1 1
      1 2 2
      2 1 2
      2 2 1""";

  static final String L8 = """
      1 1 1 1 1 1 1
      1 1 1 2 2 2 2
      1 2 2 1 1 2 2
      1 2 2 2 2 1 1
      2 1 2 1 2 1 2
      2 1 2 2 1 2 1
      2 2 1 1 2 2 1
      2 2 1 2 1 1 2""";

  static final String L9 = """
      1 1 1 1
      1 2 2 2
      1 3 3 3
      2 1 2 3
      2 2 3 1
      2 3 1 2
      3 1 3 2
      3 2 1 3
      3 3 2 1""";

  static final String L16 = """
      1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
      1 1 1 1 1 1 1 2 2 2 2 2 2 2 2
      1 1 1 2 2 2 2 1 1 1 1 2 2 2 2
      1 1 1 2 2 2 2 2 2 2 2 1 1 1 1
      1 2 2 1 1 2 2 1 1 2 2 1 1 2 2
      1 2 2 1 1 2 2 2 2 1 1 2 2 1 1
      1 2 2 2 2 1 1 1 1 2 2 2 2 1 1
      1 2 2 2 2 1 1 2 2 1 1 1 1 2 2
      2 1 2 1 2 1 2 1 2 1 2 1 2 1 2
      2 1 2 1 2 1 2 2 1 2 1 2 1 2 1
      2 1 2 2 1 2 1 1 2 1 2 2 1 2 1
      2 1 2 2 1 2 1 2 1 2 1 1 2 1 2
      2 2 1 1 2 2 1 1 2 2 1 1 2 2 1
      2 2 1 1 2 2 1 2 1 1 2 2 1 1 2
      2 2 1 2 1 1 2 1 2 2 1 2 1 1 2
      2 2 1 2 1 1 2 2 1 1 2 1 2 2 1""";

  /** Taguchi's L16(4^5), the four-level sixteen-run array. */
  static final String L16_4 = """
      1 1 1 1 1
      1 2 2 2 2
      1 3 3 3 3
      1 4 4 4 4
      2 1 2 3 4
      2 2 1 4 3
      2 3 4 1 2
      2 4 3 2 1
      3 1 3 4 2
      3 2 4 3 1
      3 3 1 2 4
      3 4 2 1 3
      4 1 4 2 3
      4 2 3 1 4
      4 3 2 4 1
      4 4 1 3 2""";

  static int[][] parse(String table) {
    String[] lines = table.strip().split("\n");
    int[][] rows = new int[lines.length][];
    for (int i = 0; i < lines.length; i++) {
      String[] cells = lines[i].strip().split("\\s+");
      rows[i] = new int[cells.length];
      for (int j = 0; j < cells.length; j++) {
        rows[i][j] = Integer.parseInt(cells[j]) - 1;
      }
    }
    return rows;
  }

  private static int[] levels(int value, int count) {
    int[] l = new int[count];
    java.util.Arrays.fill(l, value);
    return l;
  }

  @Test
  void raoHammingTwoLevelArraysEqualTaguchiL4L8AndL16() {
    assertThat(Designs.orthogonalArray(levels(2, 3)).rows()).isEqualTo(parse(L4));
    assertThat(Designs.orthogonalArray(levels(2, 7)).rows()).isEqualTo(parse(L8));
    assertThat(Designs.orthogonalArray(levels(2, 15)).rows()).isEqualTo(parse(L16));
    assertThat(Designs.orthogonalArray(levels(2, 3)).name()).isEqualTo("L4 orthogonal array");
    assertThat(Designs.orthogonalArray(levels(2, 7)).name()).isEqualTo("L8 orthogonal array");
  }

  @Test
  void boseL9EqualsTaguchiL9() {
    Design l9 = Designs.orthogonalArray(3, 3, 3, 3);
    assertThat(l9.rows()).isEqualTo(parse(L9));
    assertThat(l9.name()).isEqualTo("L9 orthogonal array");
    assertThat(Designs.bose(GaloisField.of(3))).isEqualTo(parse(L9));
  }

  @Test
  void boseOverGf4EqualsTaguchiL16OfFourLevels() {
    assertThat(Designs.orthogonalArray(4, 4, 4, 4, 4).rows()).isEqualTo(parse(L16_4));
  }

  @Test
  void fewerFactorsTakeTheFirstColumns() {
    int[][] l8 = parse(L8);
    int[][] rows = Designs.orthogonalArray(2, 2, 2, 2).rows();
    for (int i = 0; i < 8; i++) {
      assertThat(rows[i]).containsExactly(l8[i][0], l8[i][1], l8[i][2], l8[i][3]);
    }
  }

  @Test
  void everyStrengthTwoArrayCoversEveryLevelPairEquallyOften() {
    int[][] shapes = {levels(2, 3), levels(2, 7), levels(2, 15), levels(2, 31), levels(3, 4), levels(3, 13),
        levels(4, 5), levels(4, 21), levels(5, 6), levels(7, 8), levels(8, 9), levels(9, 10), levels(16, 17)};
    for (int[] shape : shapes) {
      Design d = Designs.orthogonalArray(shape);
      assertThat(d.isOrthogonal()).as(d.toString()).isTrue();
      assertThat(DesignQuality.of(d).pairwiseCoverage()).as(d.toString()).isEqualTo(1.0);
      int q = shape[0];
      assertThat(d.runs()).as(d.toString()).isEqualTo(shape.length <= q + 1 && q > 2 ? q * q : d.runs());
    }
    assertThat(Designs.orthogonalArray(levels(3, 13)).runs()).isEqualTo(27);
    assertThat(Designs.orthogonalArray(levels(8, 9)).runs()).isEqualTo(64);
    assertThat(Designs.orthogonalArray(levels(9, 10)).runs()).isEqualTo(81);
  }

  @Test
  void mixedLevelsCollapseButStillCoverEveryPair() {
    Design d = Designs.orthogonalArray(3, 2, 3, 5);
    assertThat(d.runs()).isEqualTo(25);
    assertThat(d.name()).contains("collapsed from 5 levels");
    assertThat(DesignQuality.of(d).pairwiseCoverage()).isEqualTo(1.0);
    assertThat(d.isOrthogonal()).isFalse();
    Design six = Designs.orthogonalArray(6, 6, 6);
    assertThat(six.runs()).isEqualTo(49);
    assertThat(DesignQuality.of(six).pairwiseCoverage()).isEqualTo(1.0);
  }

  @Test
  void neverMoreRunsThanTheFullFactorialForTwoToFourFactorsOfTwoToSevenLevels() {
    int sets = 0;
    int fallbacks = 0;
    for (int k = 2; k <= 4; k++) {
      int[] levels = new int[k];
      java.util.Arrays.fill(levels, 2);
      do {
        Design d = Designs.orthogonalArray(levels);
        int full = java.util.Arrays.stream(levels).reduce(1, (a, b) -> a * b);
        assertThat(d.runs()).as(d.toString()).isLessThanOrEqualTo(full);
        assertThat(DesignQuality.of(d).pairwiseCoverage()).as(d.toString()).isEqualTo(1.0);
        assertThat(d.levelCounts()).isEqualTo(levels);
        if (d.note().isPresent()) {
          fallbacks++;
          assertThat(d.rows()).isEqualTo(Designs.fullFactorial(levels).rows());
          assertThat(d.isOrthogonal()).isTrue();
          assertThat(d.toString()).contains(d.note().get());
        }
        sets++;
      } while (next(levels, 2, 7));
    }
    assertThat(sets).isEqualTo(1548);
    // The 62 level sets on which the array had more runs than the full factorial (Python, same rules).
    assertThat(fallbacks).isEqualTo(62);
  }

  @Test
  void theFullFactorialReplacesALargerArrayAndSaysSo() {
    Design twoThree = Designs.orthogonalArray(2, 3);
    assertThat(twoThree.runs()).isEqualTo(6);
    assertThat(twoThree.name()).isEqualTo("full factorial");
    assertThat(twoThree.note()).hasValue("the full factorial (6 runs) replaces the L9 orthogonal array (collapsed "
        + "from 3 levels), which has 9");
    assertThat(twoThree.toString()).isEqualTo("Design[full factorial: 6 runs x 2 factors, levels [2, 3]; the full "
        + "factorial (6 runs) replaces the L9 orthogonal array (collapsed from 3 levels), which has 9]");
    assertThat(Designs.orthogonalArray(2, 4).runs()).isEqualTo(8);
    assertThat(Designs.orthogonalArray(6, 6).runs()).isEqualTo(36);
    assertThat(Designs.orthogonalArray(3, 3).name()).isEqualTo("L9 orthogonal array"); // as many runs, orthogonal
    assertThat(Designs.orthogonalArray(3, 3).note()).isEmpty();
  }

  /** The next level vector in lexicographic order within [min, max]; false after the last. */
  private static boolean next(int[] levels, int min, int max) {
    for (int j = levels.length - 1; j >= 0; j--) {
      if (levels[j] < max) {
        levels[j]++;
        return true;
      }
      levels[j] = min;
    }
    return false;
  }

  @Test
  void fieldsObeyTheFieldAxioms() {
    for (int q : new int[] {2, 3, 4, 5, 7, 8, 9, 16, 25, 27}) {
      GaloisField f = GaloisField.of(q);
      for (int a = 0; a < q; a++) {
        assertThat(f.add(a, 0)).isEqualTo(a);
        assertThat(f.multiply(a, 1)).isEqualTo(a);
        assertThat(f.multiply(a, 0)).isEqualTo(0);
        int inverses = 0;
        int negatives = 0;
        for (int b = 0; b < q; b++) {
          assertThat(f.add(a, b)).isEqualTo(f.add(b, a));
          assertThat(f.multiply(a, b)).isEqualTo(f.multiply(b, a));
          if (f.multiply(a, b) == 1) {
            inverses++;
          }
          if (f.add(a, b) == 0) {
            negatives++;
          }
          for (int c = 0; c < q; c++) {
            assertThat(f.multiply(a, f.add(b, c))).isEqualTo(f.add(f.multiply(a, b), f.multiply(a, c)));
            assertThat(f.multiply(a, f.multiply(b, c))).isEqualTo(f.multiply(f.multiply(a, b), c));
          }
        }
        assertThat(inverses).as("GF(%d) inverses of %d", q, a).isEqualTo(a == 0 ? 0 : 1);
        assertThat(negatives).isEqualTo(1);
      }
    }
  }

  @Test
  void smallFieldsUseTheExpectedModuli() {
    assertThat(GaloisField.of(4).modulus()).containsExactly(1, 1, 1); // x^2 + x + 1
    assertThat(GaloisField.of(8).modulus()).containsExactly(1, 1, 0, 1); // x^3 + x + 1
    assertThat(GaloisField.of(9).modulus()).containsExactly(1, 0, 1); // x^2 + 1
    // In GF(8), x * x^2 = x^3 = x + 1: 2 * 4 = 3; in GF(4), x * x = x + 1: 2 * 2 = 3.
    assertThat(GaloisField.of(8).multiply(2, 4)).isEqualTo(3);
    assertThat(GaloisField.of(4).multiply(2, 2)).isEqualTo(3);
    // In GF(9) with x^2 = -1 = 2: x * x = 2 (element 3 is x).
    assertThat(GaloisField.of(9).multiply(3, 3)).isEqualTo(2);
    assertThatThrownBy(() -> GaloisField.of(6)).hasMessageContaining("prime power, was 6");
    assertThatThrownBy(() -> GaloisField.of(1)).hasMessageContaining("was 1");
  }
}
