package io.infermark.core.protocol;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.TimeoutPhase;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * gRPC status codes and how a failed call is recorded. A status other than OK is classified like
 * the HTTP error it stands for: {@link ErrorCategory#HTTP_STATUS} with the HTTP status gRPC's own
 * mapping gives the code ({@code UNAVAILABLE} 503, {@code RESOURCE_EXHAUSTED} 429,
 * {@code INVALID_ARGUMENT} 400, {@code NOT_FOUND} 404, {@code INTERNAL} 500, ...), so a rate limit
 * counts as one whether the server spoke HTTP or gRPC; {@code DEADLINE_EXCEEDED} is the call's deadline
 * and is recorded as a {@link ErrorCategory#TIMEOUT} of the {@link TimeoutPhase#CALL}. The message
 * names the code and keeps the server's {@code grpc-message}, decoded.
 */
final class GrpcStatus {

  private GrpcStatus() {}

  static final int OK = 0;
  static final int DEADLINE_EXCEEDED = 4;

  private static final String[] NAMES = {"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
      "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
      "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"};
  /** google.rpc.Code's HTTP mapping, by code. */
  private static final int[] HTTP = {200, 499, 500, 400, 504, 404, 409, 403, 429, 400, 409, 400, 501, 500, 503, 500,
      401};

  /** The code's name, e.g. {@code UNAVAILABLE}; {@code code 42} for codes gRPC does not define. */
  static String name(int code) {
    return code >= 0 && code < NAMES.length ? NAMES[code] : "code " + code;
  }

  /** The HTTP status gRPC maps the code to; 500 for codes it does not define. */
  static int httpEquivalent(int code) {
    return code >= 0 && code < HTTP.length ? HTTP[code] : 500;
  }

  /** Parses a {@code grpc-status} value; -1 when it is not a non-negative decimal number. */
  static int parse(String value) {
    String v = value.strip();
    if (v.isEmpty() || v.length() > 9) {
      return -1;
    }
    for (int i = 0; i < v.length(); i++) {
      if (v.charAt(i) < '0' || v.charAt(i) > '9') {
        return -1;
      }
    }
    return Integer.parseInt(v);
  }

  /** How a call that ended with {@code code} (not OK) and {@code grpc-message} is recorded. */
  static Failure failure(int code, String message) {
    String text = "gRPC " + name(code) + " (status " + code + ")" + (message.isBlank() ? "" : ": " + message);
    if (code == DEADLINE_EXCEEDED) {
      return Failure.timeout(TimeoutPhase.CALL, text);
    }
    return new Failure(ErrorCategory.HTTP_STATUS, httpEquivalent(code), TimeoutPhase.NONE, text);
  }

  /** Decodes a {@code grpc-message} value: UTF-8, percent-encoded (an invalid escape is kept as it is). */
  static String decodeMessage(String raw) {
    if (raw.indexOf('%') < 0) {
      return raw;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length());
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      int hi;
      int lo;
      if (c == '%' && i + 2 < raw.length() && (hi = Character.digit(raw.charAt(i + 1), 16)) >= 0
          && (lo = Character.digit(raw.charAt(i + 2), 16)) >= 0) {
        out.write(hi << 4 | lo);
        i += 2;
      } else {
        byte[] b = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
        out.write(b, 0, b.length);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
