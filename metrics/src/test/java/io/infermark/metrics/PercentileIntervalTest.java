package io.infermark.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PercentileIntervalTest {

  private static Distribution oneToN(int n) {
    List<Double> values = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      values.add((double) i);
    }
    Collections.shuffle(values, new Random(7));
    return Distribution.of(values.stream().mapToDouble(Double::doubleValue).toArray());
  }

  @Test
  void p99IntervalOfOneToThousandIsTheValuesOfRanks983And997() {
    PercentileInterval i = oneToN(1000).percentileInterval(0.99, 0.95);
    assertThat(i.isFormed()).isTrue();
    assertThat(i.lowerMillis()).hasValue(983.0);
    assertThat(i.upperMillis()).hasValue(997.0);
    assertThat(i.estimateMillis()).hasValue(990.01); // numpy.percentile(range(1, 1001), 99)
    assertThat(i.widthMillis()).hasValue(14.0);
  }

  @Test
  void intervalIsFlaggedWhenTooFewValues() {
    PercentileInterval i = oneToN(367).percentileInterval(0.99, 0.95);
    assertThat(i.isFormed()).isFalse();
    assertThat(i.lowerMillis()).isEmpty();
    assertThat(i.estimateMillis()).isPresent();
    assertThat(i.toString()).contains("needs 368");
    assertThat(oneToN(368).percentileInterval(0.99, 0.95).isFormed()).isTrue();
  }

  @Test
  void intervalDoesNotDisturbLaterPercentiles() {
    Distribution d = oneToN(1000);
    d.percentileInterval(0.5, 0.95);
    assertThat(d.percentile(0.25)).hasValue(250.75);
    assertThat(d.p99()).hasValue(990.01);
    assertThat(d.sortedValuesMillis()[0]).isEqualTo(1.0);
  }

  @Test
  void emptyDistributionHasNoInterval() {
    PercentileInterval i = Distribution.empty().percentileInterval(0.5, 0.95);
    assertThat(i.isFormed()).isFalse();
    assertThat(i.estimateMillis()).isEmpty();
  }

  @Test
  void rejectsPOfOne() {
    assertThatThrownBy(() -> oneToN(10).percentileInterval(1.0, 0.95))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was 1.0");
  }

  @Test
  void heavyTailMakesP99Unstable() {
    SplittableRandom random = new SplittableRandom(1);
    double[] pareto = new double[10_000];
    double[] uniform = new double[10_000];
    for (int i = 0; i < pareto.length; i++) {
      pareto[i] = 100 * Math.pow(1 - random.nextDouble(), -1 / 1.2);
      uniform[i] = 100 + 100 * random.nextDouble();
    }
    TailDiagnostics heavy = Distribution.of(pareto).tailDiagnostics();
    assertThat(heavy.p99Unstable()).isTrue();
    assertThat(heavy.hill().orElseThrow().alpha()).isLessThan(2);
    assertThat(heavy.reasons()).anyMatch(r -> r.startsWith("heavy tail"));
    TailDiagnostics light = Distribution.of(uniform).tailDiagnostics();
    assertThat(light.p99Unstable()).as(light.toString()).isFalse();
    assertThat(light.reasons()).isEmpty();
  }

  @Test
  void fewValuesMakeP99Unstable() {
    TailDiagnostics d = oneToN(50).tailDiagnostics();
    assertThat(d.p99Unstable()).isTrue();
    assertThat(d.hill()).isEmpty();
    assertThat(d.reasons()).containsExactly("no 95% interval for P99 from 50 values (needs 368)");
  }

  @Test
  void batchIntervalsEqualOneAtATime() {
    Distribution batch = oneToN(5000);
    Distribution single = oneToN(5000);
    double[] ps = {0.5, 0.9, 0.99, 0.999};
    var all = batch.percentileIntervals(ps, 0.95);
    for (int i = 0; i < ps.length; i++) {
      assertThat(all.get(i)).isEqualTo(single.percentileInterval(ps[i], 0.95));
    }
    assertThat(all.get(3).isFormed()).isTrue(); // 5000 >= 3688
  }
}
