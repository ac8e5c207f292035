/**
 * Series of runs: sweeps over load levels and grids, capacity search, dual QPS/TPS calibration, the knob
 * controller, the search for a ceiling ({@code CeilingSearch}), and the merge of sharded runs into one result.
 *
 * <p>May import: {@code io.infermark.core}, {@code io.infermark.core.capture},
 * {@code io.infermark.core.control}, {@code io.infermark.core.health}, {@code io.infermark.core.load},
 * {@code io.infermark.core.stats}, {@code io.infermark.core.time}. Nothing else of infermark: the floors are in
 * docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.core.sweep;
