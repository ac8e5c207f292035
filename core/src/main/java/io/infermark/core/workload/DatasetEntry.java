package io.infermark.core.workload;

import io.infermark.core.request.Prompt;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * One row of a dataset: the prompt and, when the dataset has one, the reference output length
 * (requested as {@code max_tokens} with {@code ignore_eos}).
 *
 * @param prompt the input
 * @param outputTokens the reference output length, if known
 */
public record DatasetEntry(Prompt prompt, OptionalInt outputTokens) {

  /** Validates. */
  public DatasetEntry {
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(outputTokens, "outputTokens");
    if (outputTokens.isPresent() && outputTokens.getAsInt() < 1) {
      throw new IllegalArgumentException("outputTokens must be >= 1, was " + outputTokens.getAsInt());
    }
  }
}
