/**
 * Per-session metrics of session workloads ({@code io.infermark.core.session}): session end-to-end time,
 * turns per session, agent turn latency by tool-call depth and retry count, tool-chain completion, retry
 * convergence, time in tools versus the model, TTFT against context length, and long-session fidelity
 * (memory decay, context truncation), all rebuilt from the records' tags.
 */
package io.infermark.metrics.session;
