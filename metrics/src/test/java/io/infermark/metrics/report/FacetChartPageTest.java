package io.infermark.metrics.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The chart grid page of {@code bench sweep plot}/{@code plot_pareto}: escaped labels, and it draws in Chromium. */
class FacetChartPageTest {

  private static FacetChartPage page(boolean logY) {
    double[] x = {1, 2, 4, 8};
    return FacetChartPage.builder("p99 </script><b>x</b>").axes("max_concurrency", "p99_e2el_ms", true, logY)
        .note("note <i>")
        .row(List.of(
            FacetChartPage.panel("tp=1", List.of(FacetChartPage.Curve.line("a=<b>", x, new double[] {10, 12, 20, 80}),
                FacetChartPage.Curve.scatter("runs", x, new double[] {9, 13, 21, Double.NaN}))),
            FacetChartPage.panel("tp=2", List.of(FacetChartPage.Curve.line("b", x, new double[] {5, 6, 9, 30})))))
        .table(List.of("panel", "x"), List.of(List.of("<td>", "1")))
        .build();
  }

  @Test
  void everyLabelIsEscapedAndNonFiniteValuesAreLeftOut() {
    String html = page(false).html();

    assertThat(html).doesNotContain("<b>x</b>").doesNotContain("<i>").doesNotContain("a=<b>")
        .contains("p99 &lt;/script&gt;").contains("<td>&lt;td&gt;</td>")
        .contains("\"name\":\"a=\\u003cb\\u003e\"").contains("\"scatter\":true")
        .contains("\"y\":[9.0,13.0,21.0,null]").contains("\"logX\":true,\"logY\":false");
    assertThat(page(false).toString()).startsWith("FacetChartPage[");
  }

  @Test
  void aPageNeedsAPanelAndATableRowItsColumns() {
    assertThatThrownBy(() -> FacetChartPage.builder("t").build()).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FacetChartPage.builder("t").table(List.of("a", "b"), List.of(List.of("1"))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FacetChartPage.Curve.line("c", new double[1], new double[2]))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void linesScattersAndLogAxesDrawInTheBrowser() throws Exception {
    Chromium.Findings f = Chromium.open(page(true).html(), Path.of("target", "report"), "facets");

    assertThat(f.errors()).as(f.raw()).isEmpty();
    assertThat(f.charts()).isEqualTo(2);
    assertThat(f.rendered()).as(f.raw()).isEqualTo(2);
  }
}
