package io.infermark.core.stream;

import io.infermark.core.capture.StreamObserver;
import java.util.Objects;
import java.util.function.BiFunction;

/**
 * The streaming wire protocols infermark can decode; each makes {@link StreamDecoder}s that turn a
 * response body into {@link StreamObserver} events (chunks with their kinds, usage, finish
 * reasons, server timings, completion or failure).
 */
public enum StreamDialect {

  /**
   * OpenAI-compatible SSE of {@code /v1/chat/completions} and {@code /v1/completions} (OpenAI,
   * vLLM, SGLang, TGI, llama.cpp and Ollama {@code /v1} endpoints), ending with {@code data: [DONE]}.
   */
  OPENAI(OpenAiChunkHandler::new),

  /** Anthropic Messages API SSE: {@code message_start} through {@code message_stop}. */
  ANTHROPIC(AnthropicEventHandler::new),

  /** Ollama's native {@code /api/generate} and {@code /api/chat}: one JSON object per line. */
  OLLAMA_NDJSON(OllamaLineHandler::new),

  /** TGI's native {@code /generate_stream} SSE: one event per token, ending at EOF. */
  TGI_GENERATE(TgiGenerateHandler::new),

  /** llama.cpp's native {@code /completion} SSE, ending with a {@code stop: true} event. */
  LLAMACPP_COMPLETION(LlamaCppCompletionHandler::new),

  /** Triton's {@code generate_stream} SSE ({@code text_output} or {@code TEXT}), ending at EOF. */
  TRITON_GENERATE(TritonGenerateHandler::new),

  /**
   * OpenAI's Responses API SSE ({@code POST /v1/responses}): typed {@code response.*} events
   * ending with {@code response.completed}, which carries the usage.
   */
  OPENAI_RESPONSES(OpenAiResponsesEventHandler::new);

  private final BiFunction<StreamObserver, StreamLimits, StreamDecoder> factory;

  StreamDialect(BiFunction<StreamObserver, StreamLimits, StreamDecoder> factory) {
    this.factory = factory;
  }

  /** A decoder for one response body that reports to {@code observer}, with the default {@link StreamLimits}. */
  public StreamDecoder newDecoder(StreamObserver observer) {
    return newDecoder(observer, StreamLimits.DEFAULT);
  }

  /** A decoder for one response body that reports to {@code observer} and buffers within {@code limits}. */
  public StreamDecoder newDecoder(StreamObserver observer, StreamLimits limits) {
    return factory.apply(Objects.requireNonNull(observer, "observer"), Objects.requireNonNull(limits, "limits"));
  }
}
