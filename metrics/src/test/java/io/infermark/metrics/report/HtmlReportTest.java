package io.infermark.metrics.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.infermark.core.RunResult;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.slo.Slo;
import io.infermark.metrics.slo.SloPresets;
import io.infermark.metrics.slo.SloSet;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
    assertThat(html).doesNotContain("<script").doesNotContain("<img").doesNotContainIgnoringCase("javascript:");
    assertThat(html).contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"); // title, tags, text, sweep, SLO
    assertThat(html).contains("&lt;img src=x onerror=alert(1)&gt; overloaded"); // failure message
    assertThat(html).contains("Sure! &lt;script&gt;");
  }

  @Test
  void isSelfContainedWithEverySection() {
    String html = sample().html();
    assertThat(html).startsWith("<!DOCTYPE html>");
    // No reference leaves the file: no link, script, image, import or url(); the only URL is the target's name.
    for (String ref : List.of("<link", "<script", "<img", "<iframe", "href=", "@import", "url(")) {
      assertThat(html.contains(ref)).as(ref).isFalse();
    }
    assertThat(html).doesNotContainPattern("<[a-zA-Z]+[^>]*\\ssrc=");
    assertThat(html.replace("http://localhost:8000/v1", "")).doesNotContainPattern("https?://");
    assertThat(html).contains("<h2>Latency</h2>", "<h2>SLOs: chat + ", "<h2>Latency CDFs</h2>",
        "<h2>Time series</h2>", "server: vllm:num_requests_running", "<h2>Latency over time</h2>", "TTFT heatmap",
        "<h2>Latency–load curve</h2>", "<h2>Sample responses</h2>", "<h2>Sample failures</h2>");
    assertThat(html.split("<svg ", -1).length - 1).isEqualTo(1 + 6 + 2 + 2 + 2); // CDF, series, server, heatmaps, sweep
  }

  @Test
  void summaryOnlyReportHasNoPerRecordSections() {
    String html = HtmlReport.builder(RunSummary.of(ReportFixtures.run(100, 5, 3))).build().html();
    assertThat(html).contains("<h2>Latency</h2>").doesNotContain("<h2>Time series</h2>");
    assertThatThrownBy(() -> HtmlReport.builder(RunSummary.of(ReportFixtures.run(10, 5, 3))).slo(SloPresets.rag()))
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("needs the run's records");
  }

  /** Renders the report in headless Chromium when it is installed; skipped otherwise (CI may lack it). */
  @Test
  void rendersInHeadlessChromium() throws Exception {
    String chromium = findChromium();
    assumeTrue(chromium != null, "chromium is not installed");
    Files.createDirectories(OUT);
    Path html = OUT.resolve("report.html").toAbsolutePath();
    Path png = OUT.resolve("report.png").toAbsolutePath();
    sample().write(html);
    Files.deleteIfExists(png);
    Process p = new ProcessBuilder(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
        "--screenshot=" + png, "--window-size=1400,4200", html.toUri().toString())
        .redirectErrorStream(true).redirectOutput(OUT.resolve("chromium.log").toFile()).start();
    assertThat(p.waitFor(90, TimeUnit.SECONDS)).as("chromium finished").isTrue();
    assertThat(png).exists();
    assertThat(Files.size(png)).isGreaterThan(50_000); // a blank page is a few KiB
  }

  private static String findChromium() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      for (String name : new String[] {"chromium", "chromium-browser", "google-chrome"}) {
        File f = new File(dir, name);
        if (f.canExecute()) {
          return f.getPath();
        }
      }
    }
    return null;
  }
}
