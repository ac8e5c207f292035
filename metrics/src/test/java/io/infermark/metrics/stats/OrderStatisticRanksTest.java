package io.infermark.metrics.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class OrderStatisticRanksTest {

  @Test
  void medianOfHundredMatchesConoversTable() {
    // Conover's table and a direct binomial sum (python math.comb) give ranks 40 and 61, coverage 0.9648.
    OrderStatisticRanks r = OrderStatisticRanks.of(100, 0.5, 0.95).orElseThrow();
    assertThat(r.lower()).isEqualTo(40);
    assertThat(r.upper()).isEqualTo(61);
    assertThat(r.coverage()).isCloseTo(0.9647997997822952, within(1e-9));
  }

  @Test
  void p99OfThousandUsesRanks983And997() {
    OrderStatisticRanks r = OrderStatisticRanks.of(1000, 0.99, 0.95).orElseThrow();
    assertThat(r.lower()).isEqualTo(983);
    assertThat(r.upper()).isEqualTo(997);
    assertThat(r.coverage()).isCloseTo(0.9760947634979772, within(1e-9));
  }

  @Test
  void otherCasesAgreeWithDirectBinomialSums() {
    assertThat(OrderStatisticRanks.of(20, 0.5, 0.9).orElseThrow())
        .extracting(OrderStatisticRanks::lower, OrderStatisticRanks::upper).containsExactly(6L, 15L);
    assertThat(OrderStatisticRanks.of(500, 0.95, 0.99).orElseThrow())
        .extracting(OrderStatisticRanks::lower, OrderStatisticRanks::upper).containsExactly(462L, 488L);
  }

  @Test
  void coverageIsAtLeastTheRequestedConfidence() {
    for (int n = 6; n < 2000; n += 37) {
      for (double p : new double[] {0.5, 0.9, 0.95}) {
        OrderStatisticRanks.of(n, p, 0.95).ifPresent(r -> assertThat(r.coverage()).isGreaterThanOrEqualTo(0.95));
      }
    }
  }

  @Test
  void p99IntervalNeeds368ValuesAt95Percent() {
    assertThat(OrderStatisticRanks.of(367, 0.99, 0.95)).isEmpty();
    OrderStatisticRanks r = OrderStatisticRanks.of(368, 0.99, 0.95).orElseThrow();
    assertThat(r.lower()).isEqualTo(360);
    assertThat(r.upper()).isEqualTo(368);
    assertThat(OrderStatisticRanks.samplesNeeded(0.99, 0.95)).isEqualTo(368);
  }

  @Test
  void samplesNeededMatchesTheClosedForm() {
    // smallest n with max(p, 1-p)^n <= (1 - confidence) / 2, by direct search in python
    assertThat(OrderStatisticRanks.samplesNeeded(0.5, 0.95)).isEqualTo(6);
    assertThat(OrderStatisticRanks.samplesNeeded(0.999, 0.95)).isEqualTo(3688);
    assertThat(OrderStatisticRanks.samplesNeeded(0.9, 0.99)).isEqualTo(51);
  }

  @Test
  void rejectsPAndConfidenceOutsideTheOpenUnitInterval() {
    assertThatThrownBy(() -> OrderStatisticRanks.of(10, 1.0, 0.95))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("p must be in (0, 1)");
    assertThatThrownBy(() -> OrderStatisticRanks.of(10, 0.5, 95))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("confidence must be in (0, 1)");
    assertThatThrownBy(() -> OrderStatisticRanks.of(0, 0.5, 0.95))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("n must be >= 1, was 0");
  }
}
