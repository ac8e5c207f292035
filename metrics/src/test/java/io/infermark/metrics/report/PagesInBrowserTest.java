package io.infermark.metrics.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.RunResult;
import io.infermark.metrics.RunSummary;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The comparison page and the sweep page in real headless Chromium: they draw, hover shows values, no errors. */
class PagesInBrowserTest {

  private static final Path OUT = Path.of("target", "report");

  @Test
  void comparisonPageDrawsOverlaidDistributionsWithHoverValues() throws Exception {
    RunSummary baseline = RunSummary.of(ReportFixtures.run(600, 20, 1));
    RunSummary candidate = RunSummary.of(ReportFixtures.run(600, 20, 2));
    RunComparison c = RunComparison.of("main " + ReportFixtures.SCRIPT, baseline, "branch", candidate);
    String html = ComparisonReport.of(c, baseline, candidate).html();

    assertThat(html).contains("Verdict: ", "interval of Δ (ms)", "TTFT p99").doesNotContain("<script>alert");
    Chromium.Findings f = Chromium.open(html, OUT, "comparison");

    assertThat(f.errors()).as(f.raw()).isEmpty();
    assertThat(f.charts()).isEqualTo(8); // a CDF and a histogram for TTFT, ITL, TPOT, E2E
    assertThat(f.rendered()).as(f.raw()).isEqualTo(8);
    // each overlaid chart's legend: the hovered x, then both runs' values
    assertThat(f.hovers()).allSatisfy(h -> assertThat(h.split("\\|")).as(h).hasSize(3));
    assertThat(f.hovers().get(1)).as("TTFT histogram").matches("[0-9.]+\\|[0-9.]+\\|[0-9.]+");
  }

  @Test
  void sweepPageMarksTheKneeAndShowsValuesOnHover() throws Exception {
    RunResult level = ReportFixtures.run(300, 10, 3);
    List<LoadCurvePoint> levels = List.of(
        new LoadCurvePoint("5 req/s", 5, RunSummary.of(ReportFixtures.run(300, 5, 1))),
        new LoadCurvePoint("10 req/s", 10, RunSummary.of(level)),
        new LoadCurvePoint("20 req/s", 20, RunSummary.of(ReportFixtures.run(300, 20, 2))));
    String html = SweepReport.builder(levels).title("sweep").loadUnit("request rate (req/s)")
        .knee("Kneedle knee at 10 req/s", 10).build().html();

    assertThat(html).contains("Kneedle knee at 10 req/s", "request rate (req/s)");
    Chromium.Findings f = Chromium.open(html, OUT, "sweep");

    assertThat(f.errors()).as(f.raw()).isEmpty();
    assertThat(f.charts()).isEqualTo(2);
    assertThat(f.rendered()).isEqualTo(2);
    assertThat(f.hovers().get(0)).as(f.raw()).matches("[0-9.]+\\|[0-9.]+\\|[0-9.]+\\|[0-9.]+");
  }
}
