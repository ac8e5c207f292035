/**
 * Server-side metrics: a Prometheus text-format parser ({@link io.infermark.metrics.server.PrometheusText})
 * and a scraper that polls an endpoint during a run and keeps chosen series on the run's clock
 * ({@link io.infermark.metrics.server.PrometheusScraper}).
 *
 * <p>May import: {@code io.infermark.core}, {@code io.infermark.core.capture},
 * {@code io.infermark.core.control}, {@code io.infermark.core.time}. Nothing else of infermark: the floors
 * are in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.metrics.server;
