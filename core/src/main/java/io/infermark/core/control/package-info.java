/**
 * Closed-loop control of a run's offered load: control signals measured from records or scraped gauges (TTFT,
 * tokens/s, transactions/s), the PID law and the rate controller that steers a controlled arrival process.
 *
 * <p>May import: {@code io.infermark.core.capture}, {@code io.infermark.core.stats}. Nothing else of
 * infermark: the floors are in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.core.control;
