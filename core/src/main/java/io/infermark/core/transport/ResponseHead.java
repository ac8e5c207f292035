package io.infermark.core.transport;

import java.util.Optional;

/** The header fields of a response, looked up by case-insensitive name. */
@FunctionalInterface
public interface ResponseHead {

  /** The first value of the named header field, if present. */
  Optional<String> header(String name);

  /** The {@code Content-Type} value, or empty. */
  default String contentType() {
    return header("Content-Type").orElse("");
  }
}
