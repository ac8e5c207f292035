package io.infermark.metrics.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.RunResult;
import io.infermark.core.sweep.Sweep;
import io.infermark.core.sweep.SweepPoint;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.TestRuns;
import io.infermark.core.load.LoadProfile;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoadCurvePointTest {

  @Test
  void openLoopSweepBecomesACurveOfRatesWithEachLevelsSummary() {
    List<SweepPoint<Double>> points = Sweep.rates(5, 10).run(rate -> ReportFixtures.run(200, rate, 3));

    List<LoadCurvePoint> curve = LoadCurvePoint.of(points);

    assertThat(curve).extracting(LoadCurvePoint::offeredLoad).containsExactly(5.0, 10.0);
    assertThat(curve).extracting(LoadCurvePoint::label).containsExactly("5.000 req/s", "10.00 req/s");
    assertThat(curve.get(1).summary().distribution(LatencyMetric.TTFT).count())
        .isEqualTo(io.infermark.metrics.RunSummary.of(points.get(1).result())
            .distribution(LatencyMetric.TTFT).count());
  }

  @Test
  void closedLoopLevelsAreLabelledAsConcurrency() {
    RunResult closed = TestRuns.run(ReportFixtures.run(50, 5, 1).records(), LoadProfile.concurrency(4).requests(50));

    List<LoadCurvePoint> curve = LoadCurvePoint.of(List.of(new SweepPoint<>(4, closed)));

    assertThat(curve.get(0).label()).isEqualTo("concurrency 4");
    assertThat(curve.get(0).offeredLoad()).isEqualTo(4.0);
  }
}
