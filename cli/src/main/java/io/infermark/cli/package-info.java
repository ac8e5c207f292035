/**
 * The {@code infermark} command (picocli): bench, sweep, capacity, capacity-card, sim, report, explain, merge,
 * scenario; vLLM-compatible flags and outputs. Not a library API.
 *
 * <p>May import: {@code io.infermark.attribution.change}, {@code io.infermark.attribution.drift},
 * {@code io.infermark.attribution.knee}, {@code io.infermark.attribution.phase}, {@code io.infermark.cli.options},
 * {@code io.infermark.cli.scenario}, {@code io.infermark.cli.vllmsweep}, {@code io.infermark.core},
 * {@code io.infermark.core.capture}, {@code io.infermark.core.health}, {@code io.infermark.core.load},
 * {@code io.infermark.core.protocol}, {@code io.infermark.core.request}, {@code io.infermark.core.session},
 * {@code io.infermark.core.shard}, {@code io.infermark.core.stats}, {@code io.infermark.core.sweep}, {@code io.infermark.core.tokens},
 * {@code io.infermark.core.transport.netty}, {@code io.infermark.core.workload},
 * {@code io.infermark.metrics}, {@code io.infermark.metrics.cache}, {@code io.infermark.metrics.journal},
 * {@code io.infermark.metrics.progress}, {@code io.infermark.metrics.report},
 * {@code io.infermark.metrics.server}, {@code io.infermark.metrics.slo},
 * {@code io.infermark.metrics.timeseries}, {@code io.infermark.testkit.capacity},
 * {@code io.infermark.testkit.simulator}. Nothing else of infermark:
 * the floors are in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.cli;
