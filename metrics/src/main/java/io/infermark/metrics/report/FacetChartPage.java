package io.infermark.metrics.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A self-contained HTML page of charts laid out as a grid (rows of panels), each panel a line chart of curves
 * sharing one x and one y variable, with an optional table of the points drawn: what {@code infermark bench sweep
 * plot} and {@code plot_pareto} write where vLLM's scripts write a seaborn PNG. The charts are drawn in the
 * browser by the report's uPlot script; every label reaches the page escaped.
 *
 * <pre>{@code
 * FacetChartPage.builder("p99_e2el_ms vs request_throughput").axes("request_throughput", "p99_e2el_ms", false, false)
 *     .row(List.of(FacetChartPage.panel("(All)", List.of(FacetChartPage.Curve.line("max_num_seqs=8", x, y)))))
 *     .build().write(Path.of("FIGURE.html"));
 * }</pre>
 */
public final class FacetChartPage extends HtmlDocument {

  private static final JsonFactory JSON = JsonFactory.builder().build();

  private FacetChartPage(String html) {
    super(html, "the chart page");
  }

  /** A builder for a page of this title. */
  public static Builder builder(String title) {
    return new Builder(Objects.requireNonNull(title, "title"));
  }

  /** A panel: its title and its curves. */
  public static Panel panel(String title, List<Curve> curves) {
    return new Panel(title, curves);
  }

  /**
   * One panel of the grid: its title ("" for none) and its curves.
   *
   * @param title the panel's title
   * @param curves its curves, drawn over the same axes
   */
  public record Panel(String title, List<Curve> curves) {
    /** Copies the curves. */
    public Panel {
      Objects.requireNonNull(title, "title");
      curves = List.copyOf(curves);
    }

    @Override
    public String toString() {
      return "Panel[" + title + ", " + curves.size() + " curves]";
    }
  }

  /**
   * A curve: its name, its points ({@code x[i]}, {@code y[i]}; a non-finite value leaves the point out) and whether
   * it is drawn as points only (a scatter) or as a line with its points marked.
   *
   * @param name the curve's name in the legend
   * @param x the x values
   * @param y the y values, as many as {@code x}
   * @param scatter true to draw points only
   */
  public record Curve(String name, double[] x, double[] y, boolean scatter) {
    /**
     * Copies the arrays.
     *
     * @throws IllegalArgumentException if {@code x} and {@code y} differ in length
     */
    public Curve {
      Objects.requireNonNull(name, "name");
      if (x.length != y.length) {
        throw new IllegalArgumentException("x and y differ in length: " + x.length + " and " + y.length);
      }
      x = x.clone();
      y = y.clone();
    }

    /** A line through the points, each point marked. */
    public static Curve line(String name, double[] x, double[] y) {
      return new Curve(name, x, y, false);
    }

    /** Points only. */
    public static Curve scatter(String name, double[] x, double[] y) {
      return new Curve(name, x, y, true);
    }

    /** The x values (a copy). */
    @Override
    public double[] x() {
      return x.clone();
    }

    /** The y values (a copy). */
    @Override
    public double[] y() {
      return y.clone();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Curve c && c.name.equals(name) && c.scatter == scatter && java.util.Arrays.equals(c.x, x)
          && java.util.Arrays.equals(c.y, y);
    }

    @Override
    public int hashCode() {
      return Objects.hash(name, scatter, java.util.Arrays.hashCode(x), java.util.Arrays.hashCode(y));
    }

    @Override
    public String toString() {
      return "Curve[" + name + ", " + x.length + " points" + (scatter ? ", scatter" : "") + "]";
    }
  }

  /** Builds a {@link FacetChartPage}. */
  public static final class Builder {
    private final String title;
    private String xLabel = "x";
    private String yLabel = "y";
    private boolean logX;
    private boolean logY;
    private final List<List<Panel>> rows = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private List<String> columns = List.of();
    private final List<List<String>> tableRows = new ArrayList<>();

    private Builder(String title) {
      this.title = title;
    }

    /** The axes' variables and whether each is drawn on a log scale (values at or below 0 are then left out). */
    public Builder axes(String xLabel, String yLabel, boolean logX, boolean logY) {
      this.xLabel = Objects.requireNonNull(xLabel, "xLabel");
      this.yLabel = Objects.requireNonNull(yLabel, "yLabel");
      this.logX = logX;
      this.logY = logY;
      return this;
    }

    /** Adds a row of panels, drawn left to right; repeatable, rows top to bottom. */
    public Builder row(List<Panel> panels) {
      rows.add(List.copyOf(panels));
      return this;
    }

    /** A line of text above the charts; repeatable. */
    public Builder note(String text) {
      notes.add(Objects.requireNonNull(text, "text"));
      return this;
    }

    /** A table below the charts: its column names and its rows of cells (each as many as the columns). */
    public Builder table(List<String> columns, List<List<String>> rows) {
      this.columns = List.copyOf(columns);
      tableRows.clear();
      for (List<String> r : rows) {
        if (r.size() != columns.size()) {
          throw new IllegalArgumentException("a table row has " + r.size() + " cells for " + columns.size()
              + " columns");
        }
        tableRows.add(List.copyOf(r));
      }
      return this;
    }

    /**
     * Renders the page.
     *
     * @throws IllegalArgumentException if there is no panel
     */
    public FacetChartPage build() {
      if (rows.stream().allMatch(List::isEmpty)) {
        throw new IllegalArgumentException("a chart page needs at least one panel");
      }
      StringBuilder b = new StringBuilder(32 * 1024);
      HtmlPage.open(b, title);
      b.append("<p class='meta'>y: ").append(Html.escape(yLabel)).append(logY ? " (log)" : "").append(" &middot; x: ")
          .append(Html.escape(xLabel)).append(logX ? " (log)" : "").append("</p>");
      for (String n : notes) {
        b.append("<p class='knee'>").append(Html.escape(n)).append("</p>");
      }
      for (List<Panel> row : rows) {
        b.append("<div class='facets' style='display:flex;flex-wrap:wrap;gap:8px'>");
        for (Panel p : row) {
          b.append(figure(p));
        }
        b.append("</div>");
      }
      if (!columns.isEmpty()) {
        b.append("<h2>Points</h2><table><tr>");
        columns.forEach(c -> b.append("<th>").append(Html.escape(c)).append("</th>"));
        b.append("</tr>");
        for (List<String> r : tableRows) {
          b.append("<tr>");
          r.forEach(c -> b.append("<td>").append(Html.escape(c)).append("</td>"));
          b.append("</tr>");
        }
        b.append("</table>");
      }
      b.append("<p class='foot'>Generated by infermark.</p>");
      HtmlPage.close(b);
      return new FacetChartPage(b.toString());
    }

    private String figure(Panel p) {
      StringWriter json = new StringWriter();
      try (JsonGenerator g = JSON.createGenerator(json)) {
        g.writeStartObject();
        g.writeStringField("type", "line");
        g.writeStringField("title", p.title());
        g.writeStringField("x", xLabel);
        g.writeStringField("y", yLabel);
        g.writeBooleanField("logX", logX);
        g.writeBooleanField("logY", logY);
        g.writeNullField("yMax");
        g.writeArrayFieldStart("series");
        for (Curve c : p.curves()) {
          g.writeStartObject();
          g.writeStringField("name", c.name());
          g.writeBooleanField("points", true);
          g.writeBooleanField("scatter", c.scatter());
          Charts.numbers(g, "x", c.x);
          Charts.numbers(g, "y", c.y);
          g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("marks");
        g.writeEndArray();
        g.writeEndObject();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return "<figure class='chart line'><figcaption>" + Html.escape(p.title()) + "</figcaption><div class='plot'>"
          + "</div><script type='application/json' class='chart-data'>" + Charts.scriptSafe(json.toString())
          + "</script></figure>";
    }

    @Override
    public String toString() {
      return "FacetChartPage.Builder[" + title + ", " + rows.size() + " rows]";
    }
  }
}
