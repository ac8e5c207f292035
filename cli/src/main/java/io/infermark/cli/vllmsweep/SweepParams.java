package io.infermark.cli.vllmsweep;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * vLLM's {@code ParameterSweep} ({@code vllm/benchmarks/sweep/param_sweep.py}): a {@code --serve-params} or
 * {@code --bench-params} file is a JSON list of objects, or an object of named objects (each name becomes
 * {@code _benchmark_name}); each object is one {@link Item} of parameter overrides.
 */
final class SweepParams {

  static final ObjectMapper JSON = new ObjectMapper();
  static final String NAME_KEY = "_benchmark_name";

  private SweepParams() {}

  /** The one empty item: the command as given. */
  static List<Item> none() {
    return List.of(new Item(JSON.createObjectNode()));
  }

  /**
   * The items of a parameter file.
   *
   * @throws IllegalArgumentException if the file is missing, not JSON, not a list of objects or an object of
   *     objects, or names one benchmark twice
   */
  static List<Item> read(Path file, String option) {
    JsonNode root;
    try {
      root = JSON.readTree(Files.readString(file));
    } catch (IOException e) {
      throw new IllegalArgumentException(option + " " + file + " cannot be read as JSON: " + e.getMessage()
          .lines().findFirst().orElse(""));
    }
    List<JsonNode> records = new ArrayList<>();
    if (root != null && root.isObject()) {
      for (Map.Entry<String, JsonNode> e : root.properties()) {
        if (!e.getValue().isObject()) {
          throw new IllegalArgumentException(option + " " + file + ": each item of the parameter sweep should be an "
              + "object, " + e.getKey() + " is " + e.getValue().getNodeType().toString().toLowerCase());
        }
        ObjectNode r = JSON.createObjectNode();
        r.put(NAME_KEY, e.getKey());
        r.setAll((ObjectNode) e.getValue());
        records.add(r);
      }
    } else if (root != null && root.isArray()) {
      root.forEach(records::add);
    } else {
      throw new IllegalArgumentException(option + " " + file + ": the parameter sweep should be a list of objects "
          + "(or an object of named objects)");
    }
    List<Item> items = new ArrayList<>();
    Set<String> names = new HashSet<>();
    Set<String> duplicates = new TreeSet<>();
    for (JsonNode r : records) {
      if (!r.isObject()) {
        throw new IllegalArgumentException(option + " " + file + ": each item of the parameter sweep should be an "
            + "object, found " + r);
      }
      if (r.has(NAME_KEY) && !names.add(r.get(NAME_KEY).asText())) {
        duplicates.add(r.get(NAME_KEY).asText());
      }
      items.add(new Item((ObjectNode) r));
    }
    if (!duplicates.isEmpty()) {
      throw new IllegalArgumentException(option + " " + file + ": duplicate _benchmark_name values " + duplicates
          + "; all _benchmark_name values must be unique");
    }
    if (items.isEmpty()) {
      throw new IllegalArgumentException(option + " " + file + " holds no parameter combination");
    }
    return List.copyOf(items);
  }

  /** Python's {@code str()} of a JSON value, as vLLM puts it on a command line or in a name. */
  static String pyStr(JsonNode v) {
    if (v == null || v.isNull()) {
      return "None";
    }
    if (v.isBoolean()) {
      return v.booleanValue() ? "True" : "False";
    }
    if (v.isIntegralNumber()) {
      return v.bigIntegerValue().toString();
    }
    if (v.isNumber()) {
      return pyFloat(v.doubleValue());
    }
    if (v.isTextual()) {
      return v.textValue();
    }
    if (v.isArray()) {
      List<String> parts = new ArrayList<>();
      v.forEach(e -> parts.add(e.isTextual() ? "'" + e.textValue() + "'" : pyStr(e)));
      return "[" + String.join(", ", parts) + "]";
    }
    List<String> parts = new ArrayList<>();
    v.properties().forEach(e -> parts.add("'" + e.getKey() + "': "
        + (e.getValue().isTextual() ? "'" + e.getValue().textValue() + "'" : pyStr(e.getValue()))));
    return "{" + String.join(", ", parts) + "}";
  }

  /** Python's {@code repr()} of a float: shortest digits, ".0" when whole, an exponent below 1e-4 or from 1e16. */
  static String pyFloat(double d) {
    if (Double.isNaN(d)) {
      return "nan";
    }
    if (Double.isInfinite(d)) {
      return d > 0 ? "inf" : "-inf";
    }
    if (d == 0) {
      return 1 / d < 0 ? "-0.0" : "0.0";
    }
    BigDecimal b = new BigDecimal(Double.toString(d)).stripTrailingZeros();
    double a = Math.abs(d);
    if (a >= 1e-4 && a < 1e16) {
      String s = b.toPlainString();
      return s.contains(".") ? s : s + ".0";
    }
    int exp = b.precision() - b.scale() - 1;
    BigDecimal mantissa = b.movePointLeft(exp);
    String m = mantissa.toPlainString();
    return m + "e" + (exp < 0 ? "-" : "+") + (Math.abs(exp) < 10 ? "0" : "") + Math.abs(exp);
  }

  /** {@code json.dumps} of an object value (Python's separators ", " and ": "). */
  static String pyJsonDumps(JsonNode v) {
    try {
      return new ObjectMapper().writer(new com.fasterxml.jackson.core.util.MinimalPrettyPrinter() {
        @Override
        public void writeObjectFieldValueSeparator(com.fasterxml.jackson.core.JsonGenerator g) throws IOException {
          g.writeRaw(": ");
        }

        @Override
        public void writeObjectEntrySeparator(com.fasterxml.jackson.core.JsonGenerator g) throws IOException {
          g.writeRaw(", ");
        }

        @Override
        public void writeArrayValueSeparator(com.fasterxml.jackson.core.JsonGenerator g) throws IOException {
          g.writeRaw(", ");
        }
      }).writeValueAsString(v);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** One combination's overrides, in the file's order (vLLM's {@code ParameterSweepItem}). Immutable. */
  static final class Item {
    private final ObjectNode params;

    Item(ObjectNode params) {
      this.params = params.deepCopy();
    }

    /** The overrides as JSON (a copy). */
    ObjectNode json() {
      return params.deepCopy();
    }

    boolean isEmpty() {
      return params.isEmpty();
    }

    boolean has(String key) {
      return params.has(key);
    }

    JsonNode get(String key) {
      return params.get(key);
    }

    /** This item with {@code key} set to {@code value} (Python's {@code item | {key: value}}). */
    Item with(String key, JsonNode value) {
      ObjectNode copy = params.deepCopy();
      copy.set(key, value);
      return new Item(copy);
    }

    /** {@code _benchmark_name} when given, else every {@code key=value} joined by "-". */
    String name() {
      return params.has(NAME_KEY) ? pyStr(params.get(NAME_KEY)) : asText("-");
    }

    /** {@code key=value} of every parameter but the name, joined by {@code sep}. */
    String asText(String sep) {
      List<String> parts = new ArrayList<>();
      params.properties().forEach(e -> {
        if (!e.getKey().equals(NAME_KEY)) {
          parts.add(e.getKey() + "=" + pyStr(e.getValue()));
        }
      });
      return String.join(sep, parts);
    }

    /** Whether the item sets {@code key} in any spelling (dashes or underscores before the first dot). */
    boolean hasParam(String key) {
      return keyCandidates(key).stream().anyMatch(params::has);
    }

    /**
     * The command with this item's overrides applied as vLLM applies them: a parameter whose flag is already on
     * the command (as {@code --a-b} or {@code --a_b}) has its value replaced, any other is appended as
     * {@code --a-b value}; {@code true} is {@code --flag}, {@code false} {@code --no-flag} ({@code --a.b=true} for
     * a nested key), an object is its JSON.
     */
    List<String> applyTo(List<String> cmd) {
      List<String> out = new ArrayList<>(cmd);
      params.properties().forEach(e -> {
        String k = e.getKey();
        if (k.equals(NAME_KEY)) {
          return;
        }
        JsonNode v = e.getValue();
        List<String> pair = kvPair(k, v);
        for (String candidate : cmdKeyCandidates(k)) {
          int at = out.indexOf(candidate);
          if (at >= 0) {
            out.set(at, pair.get(0));
            if (pair.size() == 2) {
              if (at + 1 < out.size()) {
                out.set(at + 1, pair.get(1));
              } else {
                out.add(pair.get(1));
              }
            }
            return;
          }
        }
        out.addAll(pair);
      });
      return out;
    }

    private static List<String> kvPair(String k, JsonNode v) {
      if (v.isBoolean()) {
        if (k.contains(".")) {
          return List.of(cmdKeyCandidates(k).get(0) + "=" + (v.booleanValue() ? "true" : "false"));
        }
        return List.of(cmdKeyCandidates(v.booleanValue() ? k : "no-" + k).get(0));
      }
      return List.of(cmdKeyCandidates(k).get(0), v.isObject() ? pyJsonDumps(v) : pyStr(v));
    }

    /** vLLM's {@code _iter_param_key_candidates}: as given, with underscores, with dashes (before the first dot). */
    private static List<String> keyCandidates(String key) {
      int dot = key.indexOf('.');
      if (dot >= 0) {
        List<String> out = new ArrayList<>();
        for (String prefix : keyCandidates(key.substring(0, dot))) {
          out.add(prefix + key.substring(dot));
        }
        return out;
      }
      return List.of(key, key.replace('-', '_'), key.replace('_', '-'));
    }

    /** The flags a parameter may be on a command as, the preferred (dashed) first. */
    private static List<String> cmdKeyCandidates(String key) {
      List<String> c = new ArrayList<>(keyCandidates(key));
      java.util.Collections.reverse(c);
      Set<String> out = new LinkedHashSet<>();
      c.forEach(k -> out.add("--" + k));
      return List.copyOf(out);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Item i && i.params.equals(params);
    }

    @Override
    public int hashCode() {
      return params.hashCode();
    }

    /** As vLLM prints it: a Python dict. */
    @Override
    public String toString() {
      return pyStr(params);
    }
  }

  /** A JSON number or string node for a value Java computed. */
  static JsonNode number(long v) {
    return JsonNodeFactory.instance.numberNode(v);
  }
}
