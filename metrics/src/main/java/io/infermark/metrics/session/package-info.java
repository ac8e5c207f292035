/**
 * Per-session metrics of session workloads ({@code io.infermark.core.session}): session end-to-end time,
 * turns per session, agent turn latency by tool-call depth and retry count, tool-chain completion, retry
 * convergence, time in tools versus the model, TTFT against context length, and long-session fidelity
 * (memory decay, context truncation), all rebuilt from the records' tags.
 *
 * <p>May import: {@code io.infermark.core.capture}, {@code io.infermark.core.session},
 * {@code io.infermark.core.workload}, {@code io.infermark.metrics}. Nothing else of infermark: the floors are
 * in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.metrics.session;
