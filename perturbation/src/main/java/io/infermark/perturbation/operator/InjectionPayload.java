package io.infermark.perturbation.operator;

import java.util.Objects;

/**
 * One prompt-injection payload: an id, the technique it follows, and its text with a
 * {@value #CANARY} placeholder for the token whose appearance in a response shows it worked.
 *
 * @param id a stable id, e.g. {@code "override-1"}
 * @param technique the technique family, e.g. {@code "override"}
 * @param text the payload, containing {@value #CANARY}
 */
public record InjectionPayload(String id, String technique, String text) {

  /** The placeholder for the canary token. */
  public static final String CANARY = "{canary}";

  /** Validates. */
  public InjectionPayload {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(technique, "technique");
    Objects.requireNonNull(text, "text");
    if (id.isBlank()) {
      throw new IllegalArgumentException("injection payload id must not be blank");
    }
    if (!text.contains(CANARY)) {
      throw new IllegalArgumentException("injection payload '" + id + "' must contain " + CANARY + ": " + text);
    }
  }

  /** The text with the canary in place. */
  public String render(String canary) {
    return text.replace(CANARY, canary);
  }
}
