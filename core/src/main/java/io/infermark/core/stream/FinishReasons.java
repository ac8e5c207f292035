package io.infermark.core.stream;

/**
 * Reads finish reasons without allocating for the common values: a finish chunk is on the hot
 * path of every request, and the same few strings recur.
 */
final class FinishReasons {

  private static final String[] KNOWN = {
      "stop", "length", "tool_calls", "content_filter", "function_call",
      "eos_token", "stop_sequence",
      "end_turn", "max_tokens", "tool_use", "pause_turn", "refusal",
      "eos", "limit", "word", "none", "load", "unload"};
  private static final byte[][] KNOWN_BYTES = new byte[KNOWN.length][];

  static {
    for (int i = 0; i < KNOWN.length; i++) {
      KNOWN_BYTES[i] = SseDecoder.ascii(KNOWN[i]);
    }
  }

  private FinishReasons() {}

  /** The string the scanner located last, as a shared constant when it is a known reason. */
  static String of(JsonScanner json) {
    for (int i = 0; i < KNOWN_BYTES.length; i++) {
      if (json.stringIs(KNOWN_BYTES[i])) {
        return KNOWN[i];
      }
    }
    return json.stringValue();
  }
}
