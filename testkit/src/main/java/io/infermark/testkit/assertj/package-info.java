/**
 * AssertJ assertions on runs, latencies and distributions ({@code InfermarkAssertions.assertThat}).
 *
 * <p>May import: {@code io.infermark.core}, {@code io.infermark.core.capture},
 * {@code io.infermark.core.health}, {@code io.infermark.metrics}. Nothing else of infermark: the floors are
 * in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.testkit.assertj;
