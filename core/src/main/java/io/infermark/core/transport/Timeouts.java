package io.infermark.core.transport;

import java.time.Duration;
import java.util.Objects;

/**
 * Bounds of one exchange; each must be positive.
 *
 * @param connect establishing the connection (TCP and TLS)
 * @param read the longest silence between two reads once the request is written, the response
 *     headers included
 * @param call the whole exchange, from {@link ResponseHandler#onSend} to the end of the body
 */
public record Timeouts(Duration connect, Duration read, Duration call) {

  /** The defaults: connect 10 s, read 5 min, call 10 min. */
  public static final Timeouts DEFAULT = new Timeouts(Duration.ofSeconds(10), Duration.ofMinutes(5),
      Duration.ofMinutes(10));

  /** Validates. */
  public Timeouts {
    positive(connect, "connect");
    positive(read, "read");
    positive(call, "call");
  }

  private static void positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " timeout must be > 0, was " + d);
    }
  }
}
