/**
 * The client capacity card: how much one infermark client process can drive on the machine it runs on (streamed
 * tokens per second, non-streamed requests per second, concurrent streams and the heap each holds, over HTTP/1.1,
 * h2c and gRPC) before its own error bound passes a limit, measured against the simulator in the same process
 * with {@link io.infermark.core.sweep.CeilingSearch}. The {@code infermark capacity-card} command and the
 * benchmarks' {@code CapacityCardRun} print it.
 *
 * <p>May import: {@code io.infermark.core}, {@code io.infermark.core.capture}, {@code io.infermark.core.health},
 * {@code io.infermark.core.load}, {@code io.infermark.core.protocol}, {@code io.infermark.core.request},
 * {@code io.infermark.core.sweep}, {@code io.infermark.core.transport.netty}, {@code io.infermark.metrics},
 * {@code io.infermark.testkit.simulator}. Nothing else of infermark: the floors are in docs/architecture.md and
 * ArchitectureTest holds every package to this line.
 */
package io.infermark.testkit.capacity;
