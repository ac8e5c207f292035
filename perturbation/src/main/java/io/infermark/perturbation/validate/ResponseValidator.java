package io.infermark.perturbation.validate;

import java.util.Objects;

/**
 * Checks one response text. Implementations are immutable and thread-safe; see {@link Validators}
 * for JSON Schema, regex, numeric range, exact and custom checks.
 */
@FunctionalInterface
public interface ResponseValidator {

  /** Checks a response's text. */
  Verdict validate(String response);

  /** A validator that passes only when this one and {@code other} both pass (the first failure is reported). */
  default ResponseValidator and(ResponseValidator other) {
    Objects.requireNonNull(other, "other");
    return response -> {
      Verdict v = validate(response);
      return v.valid() ? other.validate(response) : v;
    };
  }
}
