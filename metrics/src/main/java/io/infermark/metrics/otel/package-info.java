/**
 * OpenTelemetry export in the GenAI semantic conventions: {@link io.infermark.metrics.otel.GenAiTelemetry}
 * (a run listener for metrics, spans and trace propagation), the convention names in
 * {@link io.infermark.metrics.otel.GenAiConventions} and user-named histograms in
 * {@link io.infermark.metrics.otel.HistogramMapping}. Depends on the OpenTelemetry API only.
 *
 * <p>May import: {@code io.infermark.core}, {@code io.infermark.core.capture},
 * {@code io.infermark.core.pipeline}, {@code io.infermark.core.protocol}, {@code io.infermark.core.request}, {@code io.infermark.core.session},
 * {@code io.infermark.metrics.session}. Nothing else of infermark: the floors are in docs/architecture.md and
 * ArchitectureTest holds every package to this line.
 */
package io.infermark.metrics.otel;
