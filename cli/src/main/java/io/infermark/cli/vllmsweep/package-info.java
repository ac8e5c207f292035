/**
 * vLLM's sweep family as {@code infermark bench sweep serve | serve_workload | startup | plot | plot_pareto}: vLLM's
 * flags, parameter files, directory layout and result files ({@code vllm/benchmarks/sweep/}), with a real server
 * process started, health-checked, reset and stopped per serve combination, and infermark's own bench run in this
 * JVM where the bench command is {@code vllm bench serve} or {@code infermark bench}. Charts are HTML pages
 * ({@code metrics.report.FacetChartPage}) where vLLM draws PNGs. Not a library API.
 *
 * <p>May import: {@code io.infermark.core.time}, {@code io.infermark.metrics.report}. Nothing else of infermark:
 * the in-JVM bench is reached through {@link io.infermark.cli.vllmsweep.BenchRunner}, which the {@code cli} package
 * supplies, so this package does not import it.
 */
package io.infermark.cli.vllmsweep;
