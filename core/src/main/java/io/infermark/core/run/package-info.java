/**
 * The run engine behind {@link io.infermark.core.Benchmark}: one class per load mode over one issuing core,
 * the run lifecycle (issuing, draining, cancelling, finishing), the look-ahead prompt builder, request
 * threads, client-health wiring and the pre-flight request. <strong>Internal</strong>: public only so the
 * front door can reach it, as OkHttp marks {@code okhttp3.internal}; its types may change in any release.
 *
 * <p>May import: {@code io.infermark.core}, {@code io.infermark.core.capture},
 * {@code io.infermark.core.control}, {@code io.infermark.core.health}, {@code io.infermark.core.load},
 * {@code io.infermark.core.protocol}, {@code io.infermark.core.request}, {@code io.infermark.core.session},
 * {@code io.infermark.core.shard}, {@code io.infermark.core.time}, {@code io.infermark.core.transport},
 * {@code io.infermark.core.workload}. Nothing else of infermark: the floors are in docs/architecture.md and
 * ArchitectureTest holds every package to this line.
 */
package io.infermark.core.run;
