/**
 * A fuzzer for the stream decoders.
 *
 * <p>May import: {@code io.infermark.core.capture}, {@code io.infermark.core.stream}. Nothing else of
 * infermark: the floors are in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.testkit.fuzz;
