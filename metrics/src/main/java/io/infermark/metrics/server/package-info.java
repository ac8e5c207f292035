/**
 * Server-side metrics: a Prometheus text-format parser ({@link io.infermark.metrics.server.PrometheusText})
 * and a scraper that polls an endpoint during a run and keeps chosen series on the run's clock
 * ({@link io.infermark.metrics.server.PrometheusScraper}).
 */
package io.infermark.metrics.server;
