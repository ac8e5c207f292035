package io.infermark.metrics.report;

/**
 * The frame every HTML page of infermark shares (run report, comparison, sweep): one self-contained document
 * that opens offline. Its style, uPlot (the WebJar {@code org.webjars.npm:uplot}, MIT licence, its notice kept
 * in the script) and the chart script ({@code charts.js}) are inlined.
 */
final class HtmlPage {

  private HtmlPage() {}

  /** uPlot's version, read from its WebJar's Maven properties. */
  static final String UPLOT_VERSION = Resources.webJarVersion("org.webjars.npm", "uplot");
  private static final String UPLOT_CSS = Resources.text("/META-INF/resources/webjars/uplot/" + UPLOT_VERSION
      + "/dist/uPlot.min.css");
  private static final String UPLOT_JS = Resources.text("/META-INF/resources/webjars/uplot/" + UPLOT_VERSION
      + "/dist/uPlot.iife.min.js");
  private static final String CHARTS_JS = Resources.text("/io/infermark/metrics/report/charts.js");

  static final String CSS = "body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;"
      + "margin:24px;color:#111;max-width:1340px}h1{margin:0 0 4px}h2{margin:28px 0 8px;font-size:18px}"
      + ".meta{color:#555;font-size:13px}.cards{display:flex;flex-wrap:wrap;gap:10px;margin:14px 0}"
      + ".card{border:1px solid #ddd;border-radius:6px;padding:8px 12px;min-width:130px}"
      + ".card .label{font-size:12px;color:#666}.card .value{font-size:18px;font-weight:600}"
      + "table{border-collapse:collapse;font-size:13px;margin:6px 0}th,td{border:1px solid #ddd;padding:4px 8px;"
      + "text-align:right}th:first-child,td:first-child{text-align:left}thead th{background:#f5f5f5}"
      + "td.t{text-align:left}"
      + ".warn{color:#b45309;font-weight:600}.badge{padding:1px 8px;border-radius:10px;font-weight:600;"
      + "font-size:12px}.pass{background:#dcfce7;color:#166534}.fail{background:#fee2e2;color:#991b1b}"
      + ".nodata{background:#eee;color:#555}.charts{display:flex;flex-wrap:wrap;gap:12px}"
      + ".chart{border:1px solid #eee;margin:0;padding:6px 6px 4px;background:#fff}"
      + ".chart figcaption{font-weight:600;font-size:13px;margin:0 0 4px 4px}.readout{font-size:12px;color:#333;"
      + "min-height:16px;margin:2px 4px}.scale{display:flex;align-items:center;gap:6px;font-size:12px;margin:2px 4px}"
      + ".scale .grad{display:inline-block;width:160px;height:10px;border:1px solid #ccc}.scale .unit{color:#555}"
      + ".knee{margin:2px 0;font-size:13px}.muted{color:#777}.sample{border:1px solid #eee;margin:6px 0;padding:6px}"
      + ".banner{border:2px solid #b45309;background:#fff7ed;padding:10px 14px;border-radius:6px;margin:12px 0}"
      + ".banner.bound{border-color:#991b1b;background:#fee2e2}.banner ul{margin:6px 0 0 18px;padding:0}"
      + "tr.worse td{background:#fef2f2}tr.better td{background:#f0fdf4}.verdict{font-size:16px}"
      + "pre{white-space:pre-wrap;margin:4px 0;font-size:12px}.foot{color:#666;font-size:12px;margin-top:24px}";

  /** The document's head and the page's heading. */
  static void open(StringBuilder b, String title) {
    b.append("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>");
    b.append("<meta name='viewport' content='width=device-width, initial-scale=1'>");
    b.append("<title>").append(Html.escape(title)).append("</title><style>").append(UPLOT_CSS).append(CSS)
        .append("</style></head><body>");
    b.append("<h1>").append(Html.escape(title)).append("</h1>");
  }

  /** The end of the document: the scripts that draw its charts. */
  static void close(StringBuilder b) {
    b.append("<script>").append(UPLOT_JS).append("</script><script>").append(CHARTS_JS).append("</script>");
    b.append("</body></html>\n");
  }

  /** A headline figure. */
  static void card(StringBuilder b, String label, String value) {
    b.append("<div class='card'><div class='label'>").append(Html.escape(label)).append("</div><div class='value'>")
        .append(Html.escape(value)).append("</div></div>");
  }
}
