package io.infermark.perturbation.validate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Optional;

/**
 * Finds the JSON value in a model's response: the whole text when it parses; otherwise the body of
 * the first {@code ```json} (or bare {@code ```}) fence; otherwise the span from the first
 * <code>&#123;</code> or {@code [} to the last matching closer. Models often wrap JSON in prose or fences;
 * validators judge the JSON, not the wrapping.
 */
public final class JsonResponses {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private JsonResponses() {}

  /** The JSON value in {@code response}, if there is one. */
  public static Optional<JsonNode> parse(String response) {
    String t = response.strip();
    Optional<JsonNode> whole = tryParse(t);
    if (whole.isPresent()) {
      return whole;
    }
    int fence = t.indexOf("```");
    if (fence >= 0) {
      int bodyStart = t.indexOf('\n', fence);
      int close = bodyStart < 0 ? -1 : t.indexOf("```", bodyStart);
      if (close > 0) {
        Optional<JsonNode> fenced = tryParse(t.substring(bodyStart + 1, close).strip());
        if (fenced.isPresent()) {
          return fenced;
        }
      }
    }
    int obj = t.indexOf('{');
    int arr = t.indexOf('[');
    int start = obj < 0 ? arr : arr < 0 ? obj : Math.min(obj, arr);
    if (start < 0) {
      return Optional.empty();
    }
    int end = t.lastIndexOf(t.charAt(start) == '{' ? '}' : ']');
    return end > start ? tryParse(t.substring(start, end + 1)) : Optional.empty();
  }

  private static Optional<JsonNode> tryParse(String s) {
    if (s.isEmpty() || (s.charAt(0) != '{' && s.charAt(0) != '[')) {
      return Optional.empty();
    }
    try {
      return Optional.of(MAPPER.readTree(s));
    } catch (JsonProcessingException e) {
      return Optional.empty();
    }
  }
}
