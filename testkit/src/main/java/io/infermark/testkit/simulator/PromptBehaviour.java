package io.infermark.testkit.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How the simulated model treats what the prompt says, so that scenario kits judging responses
 * (prompt injection, tenant isolation, semantic fidelity) can be shown to fail as well as pass. By
 * default ({@link #ignorePrompts()}) a response is {@link OutputVocabulary} words whatever the prompt
 * says: no injection ever succeeds and nothing leaks. The other behaviours put chosen words first in
 * the response (one output token each, with a leading space), then the vocabulary's words for the
 * rest of the requested length; the token counts do not change.
 *
 * <ul>
 *   <li>{@link #followInjections()}: a model that obeys instructions hidden in user content. When the
 *       user messages (or a completion prompt) contain an instruction to output something
 *       ({@value #TRIGGERS_TEXT}, case-insensitive) the response begins with every code-like token
 *       ({@link #DEFAULT_CODE}, e.g. {@code ZEBRA-CANARY-QX7}) those messages contain, in order,
 *       each once.
 *   <li>{@link #leakPreviousContext()}: a server whose context cache is keyed without the tenant (seed
 *       003 §4.3's cross-session pollution): each response begins with the code-like tokens of the
 *       system messages of the request this simulator served before it.
 *   <li>{@link #echoContext()}: a model that answers from its context: the response begins with the
 *       system messages' words, in order (a retrieval pipeline's passages).
 * </ul>
 *
 * <p>Messages are read from the request body: OpenAI chat {@code messages} (string or text-part
 * content), Anthropic's {@code system}, a completion's {@code prompt}. Renderers that write token
 * text from the seed alone (TGI's {@code generate_stream} tokens) keep the vocabulary's words.
 * Immutable; the cross-request state of {@link #leakPreviousContext()} lives in each simulator.
 */
public final class PromptBehaviour {

  /** The code-like tokens copied by default: upper-case words joined by hyphens, e.g. {@code TENANT-CANARY-7KQ2}. */
  public static final Pattern DEFAULT_CODE = Pattern.compile("\\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+\\b");

  static final String TRIGGERS_TEXT = "reply with, print, include, repeat, begin with, answers with, say, output";

  private static final Pattern TRIGGERS = Pattern.compile(
      "reply with|\\bprint\\b|\\binclude\\b|\\brepeat\\b|begin with|answers? with|\\bsay\\b|\\boutput\\b",
      Pattern.CASE_INSENSITIVE);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] NONE = new String[0];

  enum Kind { IGNORE, FOLLOW_INJECTIONS, LEAK_PREVIOUS_CONTEXT, ECHO_CONTEXT }

  private static final PromptBehaviour IGNORE = new PromptBehaviour(Kind.IGNORE, DEFAULT_CODE);

  private final Kind kind;
  private final Pattern code;

  private PromptBehaviour(Kind kind, Pattern code) {
    this.kind = kind;
    this.code = code;
  }

  /** The default: responses are vocabulary words, whatever the prompt says. */
  public static PromptBehaviour ignorePrompts() {
    return IGNORE;
  }

  /** Obeys instructions in user content to output a code: the response begins with the codes it read. */
  public static PromptBehaviour followInjections() {
    return new PromptBehaviour(Kind.FOLLOW_INJECTIONS, DEFAULT_CODE);
  }

  /** Leaks the codes of the previous request's system messages into each response, whoever sent it. */
  public static PromptBehaviour leakPreviousContext() {
    return new PromptBehaviour(Kind.LEAK_PREVIOUS_CONTEXT, DEFAULT_CODE);
  }

  /** Answers from the context: the response begins with the system messages' words. */
  public static PromptBehaviour echoContext() {
    return new PromptBehaviour(Kind.ECHO_CONTEXT, DEFAULT_CODE);
  }

  /** The same behaviour with another pattern for code-like tokens. */
  public PromptBehaviour codePattern(Pattern pattern) {
    return new PromptBehaviour(kind, Objects.requireNonNull(pattern, "pattern"));
  }

  /** Whether responses depend on the prompt at all. */
  boolean readsPrompts() {
    return kind != Kind.IGNORE;
  }

  /**
   * The words that begin the response to {@code body}; {@code previous} holds the system codes of the
   * request served before (updated here). Empty for the default, and for a body that is not JSON.
   */
  String[] script(byte[] body, AtomicReference<String[]> previous) {
    if (kind == Kind.IGNORE) {
      return NONE;
    }
    List<String> system = new ArrayList<>();
    List<String> user = new ArrayList<>();
    try {
      read(JSON.readTree(body), system, user);
    } catch (IOException | RuntimeException notJson) {
      return NONE;
    }
    return switch (kind) {
      case FOLLOW_INJECTIONS -> {
        String text = String.join("\n", user);
        yield TRIGGERS.matcher(text).find() ? codes(text) : NONE;
      }
      case LEAK_PREVIOUS_CONTEXT -> {
        String[] mine = codes(String.join("\n", system));
        String[] before = previous.getAndSet(mine);
        yield before == null ? NONE : before;
      }
      case ECHO_CONTEXT -> {
        String text = String.join(" ", system).strip();
        yield text.isEmpty() ? NONE : text.split("\\s+");
      }
      case IGNORE -> NONE;
    };
  }

  private String[] codes(String text) {
    Set<String> found = new LinkedHashSet<>();
    Matcher m = code.matcher(text);
    while (m.find()) {
      found.add(m.group());
    }
    return found.toArray(String[]::new);
  }

  private static void read(JsonNode root, List<String> system, List<String> user) {
    JsonNode messages = root.get("messages");
    if (messages != null && messages.isArray()) {
      for (JsonNode m : messages) {
        String role = m.path("role").asText("");
        String text = content(m.get("content"));
        (role.equals("system") || role.equals("developer") ? system : user).add(text);
      }
    }
    JsonNode sys = root.get("system"); // Anthropic
    if (sys != null) {
      system.add(content(sys));
    }
    JsonNode prompt = root.get("prompt");
    if (prompt != null) {
      user.add(content(prompt));
    }
  }

  private static String content(JsonNode c) {
    if (c == null || c.isNull()) {
      return "";
    }
    if (c.isTextual()) {
      return c.asText();
    }
    StringBuilder s = new StringBuilder();
    if (c.isArray()) {
      for (JsonNode part : c) {
        if (part.isTextual()) {
          s.append(part.asText()).append('\n');
        } else if (part.has("text")) {
          s.append(part.get("text").asText()).append('\n');
        }
      }
    }
    return s.toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PromptBehaviour p && p.kind == kind && p.code.pattern().equals(code.pattern());
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, code.pattern());
  }

  @Override
  public String toString() {
    return "PromptBehaviour[" + kind.name().toLowerCase(Locale.ROOT).replace('_', ' ')
        + (kind == Kind.FOLLOW_INJECTIONS || kind == Kind.LEAK_PREVIOUS_CONTEXT ? ", codes " + code.pattern() : "")
        + "]";
  }
}
