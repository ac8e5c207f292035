package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.cli.InfermarkCliTest.Outcome;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code infermark bench sweep plot} and {@code plot_pareto} on results written by hand (vLLM's summary.json layout),
 * so every number on the page is known.
 */
class VllmSweepPlotTest {

  @TempDir
  Path dir;

  private void summary(String comb, String runs) throws IOException {
    Path d = Files.createDirectories(dir.resolve("exp").resolve(comb));
    Files.writeString(d.resolve("summary.json"), runs);
  }

  private void results() throws IOException {
    summary("SERVE--tp=1-BENCH--max_concurrency=1", "[{\"tp\": 1, \"max_concurrency\": 1, \"output_throughput\": 100.0,"
        + " \"p99_e2el_ms\": 10.0, \"run_number\": 0}, {\"tp\": 1, \"max_concurrency\": 1, \"output_throughput\": 100.0,"
        + " \"p99_e2el_ms\": 14.0, \"run_number\": 1}]");
    summary("SERVE--tp=1-BENCH--max_concurrency=4", "[{\"tp\": 1, \"max_concurrency\": 4, \"output_throughput\": 300.0,"
        + " \"p99_e2el_ms\": 40.0, \"run_number\": 0}]");
    summary("SERVE--tp=2-BENCH--max_concurrency=8", "[{\"tp\": 2, \"max_concurrency\": 8, \"output_throughput\": 560.0,"
        + " \"p99_e2el_ms\": 90.0, \"run_number\": 0}]");
  }

  @Test
  void plotDrawsOneCurvePerGroupWithRunsAtTheSameXAveraged() throws IOException {
    results();
    Outcome o = InfermarkCliTest.run("bench", "sweep", "plot", dir.resolve("exp").toString(), "--var-x",
        "max_concurrency", "--curve-by", "tp", "--filter-by", "max_concurrency<=4", "--scale-x", "log");

    assertThat(o.code()).as(o.err()).isZero();
    Path page = dir.resolve("exp").resolve("FIGURE.html");
    assertThat(o.out()).contains("Grid: 1 rows x 1 cols").contains("Output file: " + page);
    String html = Files.readString(page);
    assertThat(html).contains("\"name\":\"tp=1\"").contains("\"logX\":true")
        .as("the two runs at max_concurrency 1 averaged: (10 + 14) / 2").contains("\"x\":[1.0,4.0],\"y\":[12.0,40.0]")
        .as("filtered out: max_concurrency 8").doesNotContain("tp=2");
  }

  @Test
  void plotWritesOneFigurePerFigByGroupAndNothingOnADryRun() throws IOException {
    results();
    Outcome dry = InfermarkCliTest.run("bench", "sweep", "plot", dir.resolve("exp").toString(), "--var-x",
        "max_concurrency", "--fig-by", "tp", "--fig-dir", "figs", "--dry-run");
    assertThat(dry.code()).as(dry.err()).isZero();
    assertThat(dry.out()).contains("FIGURE-tp=1.html").contains("FIGURE-tp=2.html");
    assertThat(dir.resolve("exp").resolve("figs").resolve("FIGURE-tp=1.html")).doesNotExist();

    Outcome o = InfermarkCliTest.run("bench", "sweep", "plot", dir.resolve("exp").toString(), "--var-x",
        "max_concurrency", "--fig-by", "tp", "--fig-dir", "figs");
    assertThat(o.code()).as(o.err()).isZero();
    assertThat(dir.resolve("exp").resolve("figs").resolve("FIGURE-tp=1.html")).exists();
    assertThat(dir.resolve("exp").resolve("figs").resolve("FIGURE-tp=2.html")).exists();
  }

  @Test
  void plotRefusesAVariableTheResultsDoNotHaveAndAScaleItCannotDraw() throws IOException {
    results();
    Outcome missing = InfermarkCliTest.run("bench", "sweep", "plot", dir.resolve("exp").toString(), "--var-x",
        "max_num_seqs");
    assertThat(missing.code()).isEqualTo(2);
    assertThat(missing.err()).contains("cannot find max_num_seqs in the parameter sweep results");

    Outcome scale = InfermarkCliTest.run("bench", "sweep", "plot", dir.resolve("exp").toString(), "--scale-y", "sqrt");
    assertThat(scale.code()).isEqualTo(2);
    assertThat(scale.err()).contains("linear or log axes only");

    Outcome none = InfermarkCliTest.run("bench", "sweep", "plot", dir.resolve("nothing").toString());
    assertThat(none.code()).isEqualTo(2);
    assertThat(none.err()).contains("no parameter sweep results under");
  }

  @Test
  void plotParetoDrawsTheFrontierOfTokensPerUserAgainstTokensPerGpu() throws IOException {
    results();
    Outcome o = InfermarkCliTest.run("bench", "sweep", "plot_pareto", dir.resolve("exp").toString(), "--label-by",
        "max_concurrency,tp");

    assertThat(o.code()).as(o.err()).isZero();
    // per user = output / max_concurrency, per GPU = output / tp: (100, 100) x2, (75, 300), (70, 280)
    // (70, 280) is beaten by (75, 300) on both; the frontier is (75, 300) and (100, 100), the tied pair both kept
    assertThat(o.out()).contains("Plotted 4 points; Pareto frontier size: 3.");
    String html = Files.readString(dir.resolve("exp").resolve("pareto").resolve("PARETO.html"));
    assertThat(html).contains("\"name\":\"Pareto frontier\"").contains("\"scatter\":true")
        .contains("\"x\":[75.0,100.0,100.0],\"y\":[300.0,100.0,100.0]")
        .contains("<td>max_concurrency=4, tp=1</td>").doesNotContain("<td>max_concurrency=8, tp=2</td>");
  }
}
