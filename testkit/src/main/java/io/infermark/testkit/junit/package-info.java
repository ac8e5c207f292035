/**
 * The JUnit 5 extension: {@code @WithSimulator} starts one simulator for a test class and injects it or its
 * endpoint.
 *
 * <p>May import: {@code io.infermark.core.protocol}, {@code io.infermark.testkit.simulator}. Nothing else of
 * infermark: the floors are in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.testkit.junit;
