package io.infermark.core.workload;

import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import java.util.Objects;

/**
 * What one scheduled request sends: its prompt (whose tags go onto its record) and its generation
 * parameters, which may differ per request (a trace's output length, a dataset row's reference
 * output length).
 *
 * @param prompt the input
 * @param params how to generate
 */
public record RequestSpec(Prompt prompt, GenerationParams params) {

  /** Validates. */
  public RequestSpec {
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(params, "params");
  }

  /**
   * The run's default parameters with {@code max_tokens} set to {@code outputTokens} and
   * {@code ignore_eos} on, so a server that honours it generates exactly that many tokens.
   */
  public static GenerationParams exactOutput(GenerationParams defaults, int outputTokens) {
    return defaults.toBuilder().maxTokens(outputTokens).ignoreEos(true).build();
  }

  @Override
  public String toString() {
    return "RequestSpec[" + prompt + ", " + params + "]";
  }
}
