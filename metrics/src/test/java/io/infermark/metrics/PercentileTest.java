package io.infermark.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PercentileTest {

  @Test
  void percentTextHasAtMostFourDecimalsAndNoTrailingZeros() {
    assertThat(Percentile.percentText(0.99)).isEqualTo("99");
    assertThat(Percentile.percentText(0.999)).isEqualTo("99.9");
    assertThat(Percentile.percentText(0.5)).isEqualTo("50");
    assertThat(Percentile.percentText(1.0 / 3)).isEqualTo("33.3333");
    assertThat(Percentile.percentText(0)).isEqualTo("0");
    assertThat(Percentile.percentText(1)).isEqualTo("100");
  }

  @Test
  void labelsMatchTheirPercentText() {
    for (Percentile p : Percentile.values()) {
      assertThat(p.label()).isEqualTo("p" + Percentile.percentText(p.p()));
    }
  }
}
