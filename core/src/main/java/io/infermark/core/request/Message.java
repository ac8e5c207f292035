package io.infermark.core.request;

import java.util.List;
import java.util.Objects;

/**
 * One chat message: a role ({@code system}, {@code user}, {@code assistant}, ...) and its content,
 * text only or {@link ContentPart parts} that may include images and audio. Immutable.
 *
 * <pre>{@code
 * Message text = Message.user("Hello");
 * Message picture = Message.user(ContentPart.text("Describe it."),
 *     ContentPart.imageUrl("https://example.com/cat.png"));
 * }</pre>
 */
public final class Message {

  private final String role;
  private final String content;
  private final List<ContentPart> parts;

  /**
   * A text message.
   *
   * @param role the speaker's role, non-blank
   * @param content the message text
   */
  public Message(String role, String content) {
    this(role, List.of(ContentPart.text(Objects.requireNonNull(content, "content"))));
  }

  private Message(String role, List<ContentPart> parts) {
    Objects.requireNonNull(role, "role");
    Objects.requireNonNull(parts, "parts");
    if (role.isBlank()) {
      throw new IllegalArgumentException("message role must not be blank");
    }
    this.parts = List.copyOf(parts); // rejects null parts
    if (this.parts.isEmpty()) {
      throw new IllegalArgumentException("a message needs at least one content part");
    }
    StringBuilder text = new StringBuilder();
    for (ContentPart p : this.parts) {
      if (p instanceof ContentPart.Text t) {
        text.append(t.text());
      }
    }
    this.role = role;
    this.content = text.toString();
  }

  /** A message of content parts (text, images, audio), in order. */
  public static Message of(String role, List<ContentPart> parts) {
    return new Message(role, parts);
  }

  /** A system message. */
  public static Message system(String content) {
    return new Message("system", content);
  }

  /** A user message. */
  public static Message user(String content) {
    return new Message("user", content);
  }

  /** A user message of content parts (text, images, audio), in order. */
  public static Message user(ContentPart... parts) {
    return new Message("user", List.of(parts));
  }

  /** An assistant message (history in multi-turn prompts). */
  public static Message assistant(String content) {
    return new Message("assistant", content);
  }

  /** The speaker's role. */
  public String role() {
    return role;
  }

  /** The message's text: its text parts, concatenated (images and audio left out). */
  public String content() {
    return content;
  }

  /** The content parts, in order; a text message has one text part. */
  public List<ContentPart> parts() {
    return parts;
  }

  /** Whether a part is an image or audio: protocols that take text only cannot send the message. */
  public boolean hasMedia() {
    for (ContentPart p : parts) {
      if (p.isMedia()) {
        return true;
      }
    }
    return false;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Message m && m.role.equals(role) && m.parts.equals(parts);
  }

  @Override
  public int hashCode() {
    return role.hashCode() * 31 + parts.hashCode();
  }

  @Override
  public String toString() {
    if (!hasMedia()) {
      return role + ": " + Prompt.abbreviate(content, 60);
    }
    StringBuilder s = new StringBuilder(role).append(": [");
    for (int i = 0; i < parts.size(); i++) {
      s.append(i == 0 ? "" : "; ").append(parts.get(i));
    }
    return s.append(']').toString();
  }
}
