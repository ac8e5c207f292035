/**
 * An in-JVM LLM serving simulator: an OpenAI-compatible HTTP server with known, configurable
 * timing, so infermark (and its users) can test measurement code against ground truth.
 *
 * <h2>Use</h2>
 * <pre>{@code
 * try (Simulator sim = Simulator.start(SimulatorConfig.builder()
 *     .timeToFirstToken(Duration.ofMillis(20)).interTokenInterval(Duration.ofMillis(5))
 *     .maxConcurrency(8).seed(42).build())) {
 *   // send requests to sim.baseUrl() with an X-Request-Id header, then compare what the client
 *   // measured with sim.timeline(id): the same System.nanoTime() clock on both sides.
 * }
 * }</pre>
 *
 * <h2>Wire format</h2>
 * {@code POST /v1/chat/completions} and {@code POST /v1/completions} answer like vLLM's OpenAI
 * server: with {@code "stream": true}, server-sent events {@code data: <json>\n\n} (chat opens
 * with a role-only chunk {@code {"role":"assistant","content":""}}; each content chunk carries
 * {@link io.infermark.testkit.simulator.SimulatorConfig#tokensPerChunk() tokensPerChunk} tokens;
 * the last carries {@code finish_reason} {@code "length"} or {@code "stop"}; with
 * {@code stream_options.include_usage} a {@code "choices":[]} usage chunk follows; with
 * {@code continuous_usage_stats} as well, every chunk carries cumulative usage) and finally
 * {@code data: [DONE]}. Without streaming, one JSON body with {@code usage}. Errors use OpenAI's
 * {@code {"error":{"message","type","param","code"}}} with vLLM's type names.
 *
 * <h2>Text</h2>
 * Prompt tokens are counted by {@link io.infermark.testkit.simulator.PromptTokenizer} (runs of
 * letters/digits, plus each other non-space character). Output tokens are words of
 * {@link io.infermark.testkit.simulator.OutputVocabulary}, chosen by seed and position. Output
 * length is {@code max_tokens} with {@code ignore_eos}, else
 * {@code min(max_tokens, defaultOutputTokens)}.
 *
 * <h2>Timing</h2>
 * Without an engine profile, a request is admitted when a concurrency slot is free (FIFO), its
 * token {@code i} is ready at {@code admission + ttft + i * interval}. With
 * {@link io.infermark.testkit.simulator.SimulatorConfig.Builder#engine engine(EngineProfile)},
 * a continuous-batching {@link io.infermark.testkit.simulator.EngineProfile engine} decides (the
 * same engine {@link io.infermark.testkit.simulator.VirtualEngine} runs in virtual time). Either
 * way each chunk is written and flushed as soon as its last token is ready (a handler that wakes
 * late writes everything ready in one call). TCP_NODELAY is enabled, so small writes are not held
 * back by Nagle's algorithm; see {@link io.infermark.testkit.simulator.Simulator}.
 *
 * <h2>Faults</h2>
 * Decided per request from the seed and the request's arrival sequence number, or scheduled by
 * sequence number; see {@link io.infermark.testkit.simulator.Fault} for each kind and what a
 * client sees.
 *
 * <h2>Observability</h2>
 * {@code GET /metrics} (Prometheus text, vLLM's metric names) and
 * {@code GET /simulator/timelines[/{id}]} (the ground truth as JSON).
 *
 * <p>May import: {@code io.infermark.core.pipeline}, {@code io.infermark.core.request},
 * {@code io.infermark.testkit.simulator.server}. Nothing else of infermark: the floors are in
 * docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.testkit.simulator;
