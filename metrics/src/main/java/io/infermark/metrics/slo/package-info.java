/**
 * Service-level objectives and goodput: {@link io.infermark.metrics.slo.Slo} objectives grouped in an
 * {@link io.infermark.metrics.slo.SloSet} (presets in {@link io.infermark.metrics.slo.SloPresets}),
 * evaluated against a run into an {@link io.infermark.metrics.slo.SloReport}.
 *
 * <p>May import: {@code io.infermark.core}, {@code io.infermark.core.capture}, {@code io.infermark.metrics}.
 * Nothing else of infermark: the floors are in docs/architecture.md and ArchitectureTest holds every package
 * to this line.
 */
package io.infermark.metrics.slo;
