package io.infermark.core.request;

import java.util.Objects;

/**
 * One chat message: a role ({@code system}, {@code user}, {@code assistant}, ...) and its text.
 *
 * @param role the speaker's role, non-empty
 * @param content the message text
 */
public record Message(String role, String content) {

  /** Validates. */
  public Message {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(content, "content");
    if (role.isBlank()) {
      throw new IllegalArgumentException("message role must not be blank");
    }
  }

  /** A system message. */
  public static Message system(String content) {
    return new Message("system", content);
  }

  /** A user message. */
  public static Message user(String content) {
    return new Message("user", content);
  }

  /** An assistant message (history in multi-turn prompts). */
  public static Message assistant(String content) {
    return new Message("assistant", content);
  }

  @Override
  public String toString() {
    return role + ": " + Prompt.abbreviate(content, 60);
  }
}
