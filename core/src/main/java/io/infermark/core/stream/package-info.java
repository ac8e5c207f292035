/**
 * Streaming-response parsers: turn the bytes of an inference server's response into
 * {@link io.infermark.core.capture.StreamObserver} events.
 *
 * <p>Entry points: {@link io.infermark.core.stream.StreamDialect#newDecoder} for streamed bodies,
 * {@link io.infermark.core.stream.OpenAiResponses#report} for non-streamed OpenAI-compatible
 * answers, {@link io.infermark.core.stream.ErrorBodies#summarize} for error bodies, and
 * {@link io.infermark.core.stream.SseDecoder} for any {@code text/event-stream}.
 *
 * <p>The per-chunk path (framing, JSON scanning, classification) works on bytes with reused
 * buffers and allocates nothing for token chunks unless the observer asks for text; Jackson is
 * used only on rare paths (error bodies, non-streamed responses).
 *
 * <p>Decisions that differ from a literal reading of a protocol, each documented on its class:
 * <ul>
 *   <li>llama.cpp's non-standard SSE {@code error:} field is a stream error, where the WHATWG
 *       rules would drop it silently ({@link io.infermark.core.stream.SseDecoder}).</li>
 *   <li>An OpenAI-compatible stream that ends without {@code [DONE]} completes if a finish reason
 *       was seen, because some servers omit the terminator; otherwise it is malformed.</li>
 *   <li>A TGI {@code generate_stream} special token is an {@code EMPTY} chunk carrying one token:
 *       generated and counted, but not visible output.</li>
 *   <li>llama.cpp's {@code stop_type} is reported raw ({@code eos}, {@code limit}, {@code word})
 *       as the finish reason.</li>
 *   <li>Anthropic's prompt count includes cache reads and writes, so that cached tokens are a part
 *       of it as with other servers.</li>
 *   <li>An SSE event not terminated by a blank line before EOF is discarded, as the WHATWG rules
 *       require, even when it would have been the protocol's terminator.</li>
 * </ul>
 *
 * <p>May import: {@code io.infermark.core.capture}. Nothing else of infermark: the floors are in
 * docs/architecture.md and ArchitectureTest holds every package to this line.
 */
package io.infermark.core.stream;
