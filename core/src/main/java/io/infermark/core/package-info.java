/**
 * The front door: {@link io.infermark.core.Benchmark} composes a target, a workload and a load and runs them;
 * {@link io.infermark.core.RunResult} is what a run produced; {@link io.infermark.core.RunListener} sees it
 * as it happens. Everything else in core is reached from here.
 *
 * <p>May import: {@code io.infermark.core.capture}, {@code io.infermark.core.control},
 * {@code io.infermark.core.health}, {@code io.infermark.core.load}, {@code io.infermark.core.protocol},
 * {@code io.infermark.core.request}, {@code io.infermark.core.run}, {@code io.infermark.core.shard},
 * {@code io.infermark.core.time}, {@code io.infermark.core.workload}. Nothing else of infermark: the floors
 * are in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.core;
