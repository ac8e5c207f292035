package io.infermark.core.request;

import java.util.Objects;

/**
 * One request to send: a {@link Prompt}, the {@link GenerationParams} to generate with, and an id
 * that targets pass to the server (OpenAI-compatible targets as {@code X-Request-Id}) so client
 * records can be joined with server logs.
 *
 * @param id a request id, unique within a run
 * @param prompt what to send
 * @param params how to generate
 */
public record InferenceRequest(String id, Prompt prompt, GenerationParams params) {

  /** Validates. */
  public InferenceRequest {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(params, "params");
  }

  /** A request with default parameters. */
  public static InferenceRequest of(String id, Prompt prompt) {
    return new InferenceRequest(id, prompt, GenerationParams.defaults());
  }

  @Override
  public String toString() {
    return "InferenceRequest[" + id + ", " + prompt + ", " + params + "]";
  }
}
