/**
 * Prefix-cache accounting: the prompt tokens servers report as served from their prefix (KV) cache, the hit
 * ratio per run, per session and per turn, TTFT split by hit and miss, and the ideal hit ratio the workload
 * allows, computed client-side from the prompts sent ({@link io.infermark.metrics.cache.PromptReuse}).
 * See docs/prefix-cache.md.
 */
package io.infermark.metrics.cache;
