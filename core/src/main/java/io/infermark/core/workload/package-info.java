/**
 * What to send, request by request: workloads and per-stream sources (datasets, mixes, synthetic text of
 * exact lengths, shared prefixes, multi-turn sessions, trace replay, the Zipf × burst × context shaper) and
 * the tags they put on records.
 *
 * <p>May import: {@code io.infermark.core.capture}, {@code io.infermark.core.load},
 * {@code io.infermark.core.request}, {@code io.infermark.core.tokens}. Nothing else of infermark: the floors
 * are in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.core.workload;
