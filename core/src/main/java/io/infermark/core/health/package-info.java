/**
 * Whether a run can be trusted: a {@link io.infermark.core.health.ClientHealthMonitor} watches the
 * client's own machine while a run goes (a {@link io.infermark.core.health.HiccupMeter} as jHiccup
 * does, process CPU, how long the client's threads waited for a core
 * ({@link io.infermark.core.health.RunQueueWait}), GC pauses, and any
 * {@link io.infermark.core.health.Probe}s such as an event
 * loop's {@link io.infermark.core.health.LoopLag}), and {@link io.infermark.core.health.ClientHealth}
 * judges those figures with the run's schedule lag and achieved rate against
 * {@link io.infermark.core.health.HealthThresholds}: OK, DEGRADED or CLIENT_BOUND, with reasons and a
 * measurement floor below which latency differences are the client's noise.
 *
 * <p>May import: {@code io.infermark.core.capture}, {@code io.infermark.core.load},
 * {@code io.infermark.core.time}. Nothing else of infermark: the floors are in docs/architecture.md and
 * ArchitectureTest holds every package to this line.
 */
package io.infermark.core.health;
