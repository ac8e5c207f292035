package io.infermark.attribution.surrogate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class FitQualityTest {

  @Test
  void rSquaredAndRmseOnAHandExample() {
    // y = 1, 2, 3, 4 (mean 2.5, SST 5); ŷ = 1, 2, 3, 5: SSE 1, R² = 1 − 1/5 = 0.8, RMSE = √(1/4) = 0.5.
    FitQuality q = FitQuality.regression(10, new double[] {1, 2, 3, 4}, new double[] {1, 2, 3, 5});
    assertThat(q.rSquared().getAsDouble()).isCloseTo(0.8, within(1e-12));
    assertThat(q.rmseMillis().getAsDouble()).isCloseTo(0.5, within(1e-12));
    assertThat(q.trainRows()).isEqualTo(10);
    assertThat(q.testRows()).isEqualTo(4);
    assertThat(q.auc()).isEmpty();
    assertThat(q.toString()).isEqualTo("FitQuality[R² 0.800, RMSE 0.500 ms on 4 held-out rows (10 trained)]");
    // Constant held-out values: R² undefined.
    assertThat(FitQuality.regression(1, new double[] {3, 3}, new double[] {2, 4}).rSquared()).isEmpty();
  }

  @Test
  void aucCountsOrderedPairsWithHalfForTiesAndLogLossIsTheMeanNegativeLogLikelihood() {
    double[] labels = {1, 0, 1, 0, 0};
    double[] p = {0.9, 0.9, 0.6, 0.2, 0.7};
    // Pairs (positive, negative): 0.9 vs 0.9 tie ½, vs 0.2 win, vs 0.7 win; 0.6 vs 0.9 loss, vs 0.2 win,
    // vs 0.7 loss: (0.5 + 1 + 1 + 0 + 1 + 0) / 6 = 3.5 / 6.
    FitQuality q = FitQuality.classification(20, labels, p);
    assertThat(q.auc().getAsDouble()).isCloseTo(3.5 / 6, within(1e-12));
    double expected = -(Math.log(0.9) + Math.log(0.1) + Math.log(0.6) + Math.log(0.8) + Math.log(0.3)) / 5;
    assertThat(q.logLoss().getAsDouble()).isCloseTo(expected, within(1e-12));
    assertThat(q.isTail()).isTrue();
    // One class only: no AUC.
    assertThat(FitQuality.auc(new double[] {0, 0}, new double[] {0.1, 0.2})).isEmpty();
  }

  @Test
  void nothingHeldOutMeansNothingMeasured() {
    FitQuality q = FitQuality.regression(50, new double[0], new double[0]);
    assertThat(q.rSquared()).isEmpty();
    assertThat(q.rmseMillis()).isEmpty();
    assertThat(q.toString()).contains("not measured");
  }
}
