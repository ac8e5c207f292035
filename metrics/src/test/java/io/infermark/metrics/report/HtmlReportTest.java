package io.infermark.metrics.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.RunResult;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.slo.Slo;
import io.infermark.metrics.slo.SloPresets;
import io.infermark.metrics.slo.SloSet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class HtmlReportTest {

  /** The report the render test and scripts/render-report.sh look at. */
  static final Path OUT = Path.of("target", "report");

  private static HtmlReport sample() {
    RunResult run = ReportFixtures.run(1200, 20, 7);
    List<LoadCurvePoint> sweep = List.of(
        new LoadCurvePoint("5 req/s", 5, RunSummary.of(ReportFixtures.run(300, 5, 1))),
        new LoadCurvePoint("10 req/s", 10, RunSummary.of(ReportFixtures.run(300, 10, 2))),
        new LoadCurvePoint(ReportFixtures.SCRIPT, 20, RunSummary.of(run)),
        new LoadCurvePoint("40 req/s", 40, RunSummary.of(ReportFixtures.run(300, 40, 3))));
    SloSet slos = SloPresets.chat().and(SloSet.of(ReportFixtures.SCRIPT, Slo.validity(ReportFixtures.SCRIPT,
        r -> r.text().filter(t -> !t.contains("<script>")).isPresent())));
    return HtmlReport.builder(run).title("nightly " + ReportFixtures.SCRIPT).slo(slos)
        .serverSeries(List.of(ReportFixtures.server("vllm:num_requests_running", run.durationNanos()),
            ReportFixtures.server("evil" + ReportFixtures.SCRIPT, run.durationNanos())))
        .sweep(sweep).build();
  }

  @Test
  void everyUserAndModelStringIsEscaped() {
    String html = sample().html();
    // The only scripts are the page's own: one JSON block per chart, uPlot and the chart script.
    int charts = html.split("<figure class='chart ", -1).length - 1;
    assertThat(html.split("<script", -1).length - 1).isEqualTo(charts + 2);
    assertThat(html).doesNotContain("<script>alert").doesNotContain("<img").doesNotContainIgnoringCase("javascript:");
    assertThat(html).contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"); // title, tags, text, sweep, SLO
    // in chart data (server series names, sweep labels): JSON escapes, which the chart script sets as text
    assertThat(html).contains("\\u003cscript\\u003ealert('x')\\u003c/script\\u003e");
    assertThat(html).contains("&lt;img src=x onerror=alert(1)&gt; overloaded"); // failure message
    assertThat(html).contains("Sure! &lt;script&gt;");
  }

  @Test
  void isSelfContainedWithEverySection() {
    String html = sample().html();
    assertThat(html).startsWith("<!DOCTYPE html>");
    // No reference leaves the file: no link, script source, image, import or url(); the only URLs are the
    // target's name and uPlot's home in its licence comment.
    for (String ref : List.of("<link", "<script src", "<img", "<iframe", "href=", "@import", "url(")) {
      assertThat(html.contains(ref)).as(ref).isFalse();
    }
    assertThat(html).doesNotContainPattern("<[a-zA-Z]+[^>]*\\ssrc=");
    assertThat(html.replace("http://localhost:8000/v1", "").replace("/*! https://github.com/leeoniya/uPlot (v", ""))
        .doesNotContainPattern("https?://");
    assertThat(html).contains("<h2>Latency</h2>", "<h2>SLOs: chat + ", "<h2>Latency CDFs</h2>",
        "<h2>Time series</h2>", "server: vllm:num_requests_running", "<h2>Latency over time</h2>", "TTFT heatmap",
        "<h2>Latency–load curve</h2>", "<h2>Request timeline</h2>", "<h2>Sample responses</h2>",
        "<h2>Sample failures</h2>");
    // CDF, time series, server series, heatmaps, timeline, sweep
    assertThat(html.split("<figure class='chart ", -1).length - 1).isEqualTo(1 + 6 + 2 + 2 + 1 + 2);
  }

  @Test
  void summaryOnlyReportHasNoPerRecordSections() {
    String html = HtmlReport.builder(RunSummary.of(ReportFixtures.run(100, 5, 3))).build().html();
    assertThat(html).contains("<h2>Latency</h2>").doesNotContain("<h2>Time series</h2>");
    assertThatThrownBy(() -> HtmlReport.builder(RunSummary.of(ReportFixtures.run(10, 5, 3))).slo(SloPresets.rag()))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("needs the run's records");
  }

  /** The report in real headless Chromium: every chart draws, hovering shows values, no console error. */
  @Test
  void rendersInHeadlessChromiumWithHoverValuesAndNoErrors() throws Exception {
    Chromium.Findings f = Chromium.open(sample().html(), OUT, "report");

    assertThat(f.errors()).as(f.raw()).isEmpty();
    assertThat(f.charts()).isEqualTo(1 + 6 + 2 + 2 + 1 + 2);
    assertThat(f.rendered()).as(f.raw()).isEqualTo(f.charts());
    // a line chart's legend shows the hovered x and each series' value there; a heatmap and the timeline say
    // what is under the pointer
    assertThat(f.hovers().get(0)).as("CDF legend").matches("[0-9.]+\\|.*[0-9].*");
    assertThat(f.hovers()).as(f.raw()).anySatisfy(h -> assertThat(h).contains("requests per 1 s interval: "));
    assertThat(f.hovers()).as(f.raw()).anySatisfy(h -> assertThat(h).contains("#request #"));
  }


}
