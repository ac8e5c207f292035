/**
 * Prefix-cache accounting: the prompt tokens servers report as served from their prefix (KV) cache, the hit
 * ratio per run, per session and per turn, TTFT split by hit and miss, and the ideal hit ratio the workload
 * allows, computed client-side from the prompts sent ({@link io.infermark.metrics.cache.PromptReuse}).
 * See docs/prefix-cache.md.
 *
 * <p>May import: {@code io.infermark.core}, {@code io.infermark.core.capture},
 * {@code io.infermark.core.request}, {@code io.infermark.core.stats}, {@code io.infermark.core.tokens},
 * {@code io.infermark.core.workload}, {@code io.infermark.metrics}. Nothing else of infermark: the floors are
 * in docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.metrics.cache;
