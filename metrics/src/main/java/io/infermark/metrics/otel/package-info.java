/**
 * OpenTelemetry export in the GenAI semantic conventions: {@link io.infermark.metrics.otel.GenAiTelemetry}
 * (a run listener for metrics, spans and trace propagation), the convention names in
 * {@link io.infermark.metrics.otel.GenAiConventions} and user-named histograms in
 * {@link io.infermark.metrics.otel.HistogramMapping}. Depends on the OpenTelemetry API only.
 */
package io.infermark.metrics.otel;
