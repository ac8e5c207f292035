package io.infermark.core.protocol;

import io.infermark.core.capture.StreamObserver;
import io.infermark.core.transport.ResponseHead;
import java.util.List;

/**
 * Reads the timing headers TGI puts on a {@code /generate} answer (its {@code generate_stream}
 * headers go out before any token, so they carry none) and reports each as a server timing under the
 * header's lower-case name: {@code x-compute-time} in seconds (a decimal), {@code x-total-time},
 * {@code x-validation-time}, {@code x-queue-time}, {@code x-inference-time} and
 * {@code x-time-per-token} in whole milliseconds. A missing, non-numeric, negative or non-finite
 * value is left out.
 */
final class TgiTimingHeaders {

  /** The headers read, in TGI's order. */
  static final List<String> NAMES = List.of("x-compute-time", "x-total-time", "x-validation-time", "x-queue-time",
      "x-inference-time", "x-time-per-token");

  private TgiTimingHeaders() {}

  static void report(ResponseHead head, StreamObserver observer) {
    for (String name : NAMES) {
      String value = head.header(name).orElse("").strip();
      if (value.isEmpty() || value.length() > 32) {
        continue;
      }
      double v;
      try {
        v = Double.parseDouble(value);
      } catch (NumberFormatException e) {
        continue;
      }
      if (Double.isFinite(v) && v >= 0) {
        observer.onServerTiming(name, v);
      }
    }
  }
}
