package io.infermark.testkit.simulator;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * An error answered in OpenAI's shape, {@code {"error":{"message","type","param","code"}}}, with
 * vLLM's values: {@code type} names the HTTP error class and {@code code} repeats the status.
 */
final class ApiError extends Exception {

  private static final long serialVersionUID = 1L;

  private final int status;
  private final String type;
  private final String param; // null when the error concerns no single field

  private ApiError(int status, String type, String param, String message) {
    super(message, null, false, false); // control flow, not a failure: no stack trace
    this.status = status;
    this.type = type;
    this.param = param;
  }

  static ApiError badRequest(String message, String param) {
    return new ApiError(400, "BadRequestError", param, message);
  }

  static ApiError notFound(String message, String param) {
    return new ApiError(404, "NotFoundError", param, message);
  }

  static ApiError methodNotAllowed(String message) {
    return new ApiError(405, "MethodNotAllowedError", null, message);
  }

  static ApiError rateLimited(String message) {
    return new ApiError(429, "RateLimitError", null, message);
  }

  static ApiError unavailable(String message) {
    return new ApiError(503, "ServiceUnavailableError", null, message);
  }

  static ApiError internal(String message) {
    return new ApiError(500, "InternalServerError", null, message);
  }

  int status() {
    return status;
  }

  byte[] toJson(JsonFactory json) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(128);
    try (JsonGenerator g = json.createGenerator(out)) {
      g.writeStartObject();
      g.writeObjectFieldStart("error");
      g.writeStringField("message", getMessage());
      g.writeStringField("type", type);
      g.writeStringField("param", param);
      g.writeNumberField("code", status);
      g.writeEndObject();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
    return out.toByteArray();
  }

  @Override
  public String toString() {
    return "ApiError{" + status + ' ' + type + (param == null ? "" : " param=" + param) + ": "
        + getMessage() + '}';
  }
}
