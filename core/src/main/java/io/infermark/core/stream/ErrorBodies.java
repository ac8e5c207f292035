package io.infermark.core.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.regex.Pattern;

/**
 * Turns an inference server's error body into a short message for a
 * {@link io.infermark.core.capture.Failure}, whatever its shape: OpenAI
 * {@code {"error":{"message","type"}}}, flat vLLM/SGLang {@code {"object":"error","message","type"}},
 * TGI {@code {"error":"...","error_type":"..."}}, Spring Boot {@code {"status","error","message","path"}}, Anthropic
 * {@code {"type":"error","error":{"type","message"}}}, Ollama {@code {"error":"..."}}, FastAPI
 * {@code {"detail":...}}, plain text or an HTML error page from a proxy.
 */
public final class ErrorBodies {

  /** The longest summary returned; longer ones are cut and end with an ellipsis. */
  static final int MAX_CHARS = 200;

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Pattern WHITESPACE = Pattern.compile("\\s+");
  private static final Pattern SCRIPTS = Pattern.compile("(?is)<(script|style)\\b.*?</\\1\\s*>");
  private static final Pattern TAGS = Pattern.compile("(?s)<[^>]*>");

  private ErrorBodies() {}

  /**
   * A short message for an error body: {@code "type: message"} when the body names both (e.g.
   * {@code "invalid_request_error: Unauthorized"}), the message alone when it has no type, and
   * otherwise the start of the body as text (HTML tags dropped) with whitespace collapsed, at
   * most {@value #MAX_CHARS} characters. Never throws; an empty or null body gives {@code ""}.
   */
  public static String summarize(String body) {
    if (body == null) {
      return "";
    }
    String trimmed = body.strip();
    if (trimmed.isEmpty()) {
      return "";
    }
    char first = trimmed.charAt(0);
    if (first == '{' || first == '[' || first == '"') {
      try {
        String fromJson = fromJson(MAPPER.readTree(trimmed));
        if (fromJson != null) {
          return cap(collapse(fromJson));
        }
      } catch (Exception notJson) {
        // Truncated or invalid JSON: fall through and show it as text.
      }
    }
    String text = trimmed;
    if (first == '<') {
      text = TAGS.matcher(SCRIPTS.matcher(text).replaceAll(" ")).replaceAll(" ");
      text = text.replace("&nbsp;", " ").replace("&lt;", "<").replace("&gt;", ">")
          .replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&");
    }
    return cap(collapse(text));
  }

  /** The message of a parsed body, or null when it has no recognisable message. */
  private static String fromJson(JsonNode node) {
    if (node.isTextual()) {
      return blankToNull(node.textValue());
    }
    if (node.isArray()) {
      return node.isEmpty() ? null : fromJson(node.get(0));
    }
    if (!node.isObject()) {
      return null;
    }
    JsonNode error = node.get("error");
    if (error != null && error.isObject()) {
      String nested = typeAndMessage(error);
      if (nested != null) {
        return nested;
      }
    }
    if (error != null && error.isTextual() && !error.textValue().isBlank()) {
      String type = text(node, "error_type");
      String summary = join(type, error.textValue());
      // Spring Boot's error page ({"status","error","message","path"}, Jlama's): the reason phrase alone
      // would hide both the message and which path the server was asked for.
      String message = text(node, "message");
      if (message != null && !message.equals(error.textValue())) {
        summary += ": " + message;
      }
      String path = text(node, "path");
      return path == null ? summary : summary + " (path " + path + ")";
    }
    String flat = typeAndMessage(node);
    if (flat != null) {
      return flat;
    }
    JsonNode detail = node.get("detail");
    if (detail != null) {
      if (detail.isTextual()) {
        return blankToNull(detail.textValue());
      }
      if (detail.isArray() && !detail.isEmpty()) {
        String msg = text(detail.get(0), "msg");
        return msg != null ? msg : detail.get(0).toString();
      }
    }
    return null;
  }

  private static String typeAndMessage(JsonNode object) {
    String message = text(object, "message");
    if (message == null) {
      message = text(object, "msg");
    }
    String type = text(object, "type");
    if ("error".equals(type)) {
      type = null; // Anthropic's envelope type, not a kind of error
    }
    if (message == null) {
      return type;
    }
    return join(type, message);
  }

  private static String join(String type, String message) {
    return type == null ? message : type + ": " + message;
  }

  private static String text(JsonNode object, String field) {
    JsonNode v = object.get(field);
    return v != null && v.isTextual() ? blankToNull(v.textValue()) : null;
  }

  private static String blankToNull(String s) {
    return s.isBlank() ? null : s;
  }

  private static String collapse(String s) {
    return WHITESPACE.matcher(s).replaceAll(" ").strip();
  }

  private static String cap(String s) {
    if (s.length() <= MAX_CHARS) {
      return s;
    }
    int cut = MAX_CHARS - 1;
    if (Character.isHighSurrogate(s.charAt(cut - 1))) {
      cut--; // never split a surrogate pair
    }
    return s.substring(0, cut) + "…";
  }
}
