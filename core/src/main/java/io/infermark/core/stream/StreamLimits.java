package io.infermark.core.stream;

import java.util.Locale;

/**
 * Bounds on what a stream decoder buffers for one response, so a server that sends an endless line
 * or event fails its request as {@link io.infermark.core.capture.ErrorCategory#MALFORMED_STREAM}
 * ("line exceeds N bytes") instead of filling the heap. Memory held per in-flight stream is at most
 * about {@code maxLineBytes + maxEventBytes}.
 *
 * @param maxLineBytes the longest line (SSE field line or NDJSON line) held across reads
 * @param maxEventBytes the most data one SSE event may accumulate over its {@code data:} lines
 */
public record StreamLimits(int maxLineBytes, int maxEventBytes) {

  /**
   * 1 MiB lines, 4 MiB events: streamed chunks of real servers are under a few KiB, and a tool call's
   * arguments or a reasoning block arrive in many small events, not one.
   */
  public static final StreamLimits DEFAULT = new StreamLimits(1 << 20, 4 << 20);

  /** Validates. */
  public StreamLimits {
    if (maxLineBytes <= 0) {
      throw new IllegalArgumentException("maxLineBytes must be > 0, was " + maxLineBytes);
    }
    if (maxEventBytes <= 0) {
      throw new IllegalArgumentException("maxEventBytes must be > 0, was " + maxEventBytes);
    }
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "StreamLimits[line %d bytes, event %d bytes]", maxLineBytes, maxEventBytes);
  }
}
