package io.infermark.core.workload;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import java.util.OptionalInt;

/**
 * Prompts of an exact input length by a {@link TokenCounter}, tagged with the length asked for, the
 * length achieved and the tokenizer, so every record says how far its input was from the target:
 *
 * <ul>
 *   <li>{@code input_tokens_requested} — the target length;
 *   <li>{@code input_tokens_achieved} — the built text's count by the counter (equal to the target
 *       whenever the counter can reach it, which the built-in counters always can);
 *   <li>{@code tokenizer} — the counter's name.
 * </ul>
 *
 * <p>The server's own count is in the record's usage; {@link #serverError(RequestRecord)} is the
 * difference, which includes the chat template's overhead on chat endpoints.
 */
public final class ExactLength {

  private ExactLength() {}

  /** A one-message user prompt of exactly {@code tokens} tokens by {@code counter}, text from {@code seed}. */
  public static Prompt prompt(TokenCounter counter, int tokens, long seed) {
    return tag(Prompt.user(SyntheticText.exactly(counter, tokens, seed)), counter, tokens);
  }

  /** Tags a prompt with its requested length and its length by {@code counter}. */
  public static Prompt tag(Prompt prompt, TokenCounter counter, int requested) {
    return prompt.withTag(WorkloadTags.INPUT_TOKENS_REQUESTED, Integer.toString(requested))
        .withTag(WorkloadTags.INPUT_TOKENS_ACHIEVED, Integer.toString(counter.count(prompt)))
        .withTag(WorkloadTags.TOKENIZER, counter.name());
  }

  /** Achieved minus requested input tokens by the client's counter, when the record has both tags. */
  public static OptionalInt clientError(RequestRecord record) {
    OptionalInt requested = intTag(record, WorkloadTags.INPUT_TOKENS_REQUESTED);
    OptionalInt achieved = intTag(record, WorkloadTags.INPUT_TOKENS_ACHIEVED);
    return requested.isPresent() && achieved.isPresent()
        ? OptionalInt.of(achieved.getAsInt() - requested.getAsInt()) : OptionalInt.empty();
  }

  /** The server's reported prompt tokens minus the requested length, when both are known. */
  public static OptionalInt serverError(RequestRecord record) {
    OptionalInt requested = intTag(record, WorkloadTags.INPUT_TOKENS_REQUESTED);
    OptionalInt server = record.usage().promptTokens();
    return requested.isPresent() && server.isPresent()
        ? OptionalInt.of(server.getAsInt() - requested.getAsInt()) : OptionalInt.empty();
  }

  private static OptionalInt intTag(RequestRecord record, String name) {
    String v = record.tags().get(name);
    if (v == null) {
      return OptionalInt.empty();
    }
    try {
      return OptionalInt.of(Integer.parseInt(v));
    } catch (NumberFormatException e) {
      return OptionalInt.empty();
    }
  }
}
