package io.infermark.core.request;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Immutable input of one request: chat messages or plain text, with tags that follow it onto the
 * request's record (scenario, class, tenant, variant levels, ...).
 *
 * <p>A chat prompt goes to chat endpoints as {@code messages}; a text prompt goes to completion
 * endpoints as {@code prompt}, and to chat endpoints as a single user message.
 */
public final class Prompt {

  private final List<Message> messages;
  private final String text;
  private final Map<String, String> tags;

  private Prompt(List<Message> messages, String text, Map<String, String> tags) {
    this.messages = messages;
    this.text = text;
    this.tags = tags;
  }

  /** A plain-text prompt. */
  public static Prompt text(String text) {
    Objects.requireNonNull(text, "text");
    return new Prompt(List.of(), text, Map.of());
  }

  /** A chat prompt of one user message. */
  public static Prompt user(String content) {
    return chat(List.of(Message.user(content)));
  }

  /** A chat prompt. */
  public static Prompt chat(List<Message> messages) {
    if (messages.isEmpty()) {
      throw new IllegalArgumentException("a chat prompt needs at least one message");
    }
    return new Prompt(List.copyOf(messages), "", Map.of());
  }

  /** A chat prompt. */
  public static Prompt chat(Message... messages) {
    return chat(List.of(messages));
  }

  /** True for a chat prompt, false for plain text. */
  public boolean isChat() {
    return !messages.isEmpty();
  }

  /** The chat messages; a text prompt is one user message. */
  public List<Message> messages() {
    return isChat() ? messages : List.of(Message.user(text));
  }

  /** Whether a message has an image or audio part (see {@link Message#hasMedia()}). */
  public boolean hasMedia() {
    for (Message m : messages) {
      if (m.hasMedia()) {
        return true;
      }
    }
    return false;
  }

  /** The plain text; a chat prompt's message contents (their text parts) joined by blank lines. */
  public String text() {
    if (!isChat()) {
      return text;
    }
    StringBuilder s = new StringBuilder();
    for (Message m : messages) {
      if (s.length() > 0) {
        s.append("\n\n");
      }
      s.append(m.content());
    }
    return s.toString();
  }

  /** Tags, in insertion order. */
  public Map<String, String> tags() {
    return tags;
  }

  /** Returns a copy with one more tag (replacing a tag of the same name). */
  public Prompt withTag(String name, String value) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(value, "value");
    Map<String, String> t = new LinkedHashMap<>(tags);
    t.put(name, value);
    return new Prompt(messages, text, java.util.Collections.unmodifiableMap(t));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Prompt p && p.messages.equals(messages) && p.text.equals(text) && p.tags.equals(tags);
  }

  @Override
  public int hashCode() {
    return Objects.hash(messages, text, tags);
  }

  @Override
  public String toString() {
    String body = isChat() ? messages.size() + " messages, last " + messages.get(messages.size() - 1)
        : "text: " + abbreviate(text, 60);
    return "Prompt[" + body + (tags.isEmpty() ? "" : ", tags " + tags) + "]";
  }

  static String abbreviate(String s, int max) {
    String one = s.replace('\n', ' ');
    return one.length() <= max ? one : one.substring(0, max - 1) + "…";
  }
}
