/**
 * Service-level objectives and goodput: {@link io.infermark.metrics.slo.Slo} objectives grouped in an
 * {@link io.infermark.metrics.slo.SloSet} (presets in {@link io.infermark.metrics.slo.SloPresets}),
 * evaluated against a run into an {@link io.infermark.metrics.slo.SloReport}.
 */
package io.infermark.metrics.slo;
