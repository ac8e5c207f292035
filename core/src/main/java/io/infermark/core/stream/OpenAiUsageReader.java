package io.infermark.core.stream;

import io.infermark.core.capture.Usage;

/**
 * Reads an OpenAI-style {@code usage} object in any key order: {@code prompt_tokens},
 * {@code completion_tokens}, {@code total_tokens}, {@code completion_tokens_details.reasoning_tokens},
 * SGLang's top-level {@code reasoning_tokens} and {@code prompt_tokens_details.cached_tokens}.
 * Counts may be {@code null}; unknown keys are skipped.
 */
final class OpenAiUsageReader {

  private static final byte[] PROMPT_TOKENS = SseDecoder.ascii("prompt_tokens");
  private static final byte[] COMPLETION_TOKENS = SseDecoder.ascii("completion_tokens");
  private static final byte[] TOTAL_TOKENS = SseDecoder.ascii("total_tokens");
  private static final byte[] REASONING_TOKENS = SseDecoder.ascii("reasoning_tokens");
  private static final byte[] COMPLETION_DETAILS = SseDecoder.ascii("completion_tokens_details");
  private static final byte[] PROMPT_DETAILS = SseDecoder.ascii("prompt_tokens_details");
  private static final byte[] CACHED_TOKENS = SseDecoder.ascii("cached_tokens");

  private int prompt;
  private int completion;
  private int total;
  private int reasoning;
  private int cached;

  /**
   * Reads the value at the scanner's position: a usage object, or {@code null} (or any other
   * non-object) which gives {@link Usage#NONE}.
   */
  Usage read(JsonScanner json) {
    prompt = completion = total = reasoning = cached = -1;
    if (!json.enterObject()) {
      return Usage.NONE;
    }
    while (json.nextField()) {
      if (json.fieldIs(PROMPT_TOKENS)) {
        prompt = readCount(json);
      } else if (json.fieldIs(COMPLETION_TOKENS)) {
        completion = readCount(json);
      } else if (json.fieldIs(TOTAL_TOKENS)) {
        total = readCount(json);
      } else if (json.fieldIs(REASONING_TOKENS)) {
        reasoning = readCount(json);
      } else if (json.fieldIs(COMPLETION_DETAILS)) {
        int r = readNested(json, REASONING_TOKENS);
        if (r >= 0) {
          reasoning = r;
        }
      } else if (json.fieldIs(PROMPT_DETAILS)) {
        int c = readNested(json, CACHED_TOKENS);
        if (c >= 0) {
          cached = c;
        }
      } else {
        json.skipValue();
      }
    }
    return Usage.ofKnownCounts(prompt, completion, total, reasoning, cached);
  }

  /** Completion tokens of the last usage read, -1 when absent. */
  int completion() {
    return completion;
  }

  /** The count-by-count sum of two usages; a count absent from both stays absent. */
  static Usage sum(Usage a, Usage b) {
    return Usage.ofKnownCounts(add(a.promptTokens(), b.promptTokens()), add(a.completionTokens(), b.completionTokens()),
        add(a.totalTokens(), b.totalTokens()), add(a.reasoningTokens(), b.reasoningTokens()),
        add(a.cachedPromptTokens(), b.cachedPromptTokens()));
  }

  private static int add(java.util.OptionalInt a, java.util.OptionalInt b) {
    if (a.isEmpty() && b.isEmpty()) {
      return -1;
    }
    return (int) Math.min((long) a.orElse(0) + b.orElse(0), Integer.MAX_VALUE);
  }

  /**
   * Reads a token count: a non-negative number, saturated at {@link Integer#MAX_VALUE}; -1 for
   * null, negative values and non-numbers, which servers use to mean "not counted".
   */
  static int readCount(JsonScanner json) {
    if (json.peek() != JsonScanner.NUMBER) {
      json.skipValue();
      return -1;
    }
    long v = json.readLong();
    return v < 0 ? -1 : (int) Math.min(v, Integer.MAX_VALUE);
  }

  /** Reads {@code key}'s count from the object at the scanner's position; -1 when absent or not an object. */
  static int readNested(JsonScanner json, byte[] key) {
    if (!json.enterObject()) {
      return -1;
    }
    int v = -1;
    while (json.nextField()) {
      if (json.fieldIs(key)) {
        v = readCount(json);
      } else {
        json.skipValue();
      }
    }
    return v;
  }
}
