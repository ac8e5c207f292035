package io.infermark.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class TailDiagnosticsTest {

  /** 1..90, then ten values e^γ above the threshold 90: the Hill estimate over the top 10 is 1/γ. */
  private static double[] tailIndex(double alpha) {
    double[] v = new double[100];
    for (int i = 0; i < 90; i++) {
      v[i] = i + 1;
    }
    for (int i = 90; i < 100; i++) {
      v[i] = 90 * Math.exp(1 / alpha);
    }
    return v;
  }

  @Test
  void aTailIndexJustBelowTwoIsPrintedBelowTwo() {
    TailDiagnostics d = Distribution.of(tailIndex(1.997)).tailDiagnostics();

    assertThat(d.hill().orElseThrow().alpha()).isCloseTo(1.997, within(1e-9));
    assertThat(d.reasons()).contains("heavy tail: Hill tail index 1.997 < 2.000");
    assertThat(d.toString()).endsWith(", alpha 1.997]");
  }

  @Test
  void theTailIndexKeepsTwoDecimalsWhenTheyAreEnough() {
    TailDiagnostics d = Distribution.of(tailIndex(1.5)).tailDiagnostics();

    assertThat(d.reasons()).contains("heavy tail: Hill tail index 1.50 < 2.00");
    assertThat(d.toString()).endsWith(", alpha 1.50]");
    assertThat(TailDiagnostics.heavyTailReason(1.99999999)).isEqualTo("heavy tail: Hill tail index 1.99999999 < "
        + "2.00000000");
    assertThat(Distribution.of(tailIndex(2.004)).tailDiagnostics().toString()).endsWith(", alpha 2.00]");
  }

  @Test
  void aWideIntervalIsPrintedWiderThanHalfThePrintedP99() {
    // 5.0000004 > 0.5 × 10.0000001, but at three decimals both print as 5.000 and 10.000.
    assertThat(TailDiagnostics.wideIntervalReason(5.0000004, 10.0000001)).isEqualTo("wide interval: 95% interval "
        + "of P99 spans 5.0000004 ms, more than 50% of P99 10.0000001 ms");
    assertThat(TailDiagnostics.wideIntervalReason(6, 10)).isEqualTo("wide interval: 95% interval of P99 spans "
        + "6.000 ms, more than 50% of P99 10.000 ms");
  }
}
