package io.infermark.perturbation.operator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Output-schema mutation: at a level with {@code m} mutations, the output contract changes in
 * {@code m} places. Default weights text 0.2 / structure 0.8: of 5 mutations, 1 is made in the
 * prompt's text and 4 in the schema.
 *
 * <p>Structure mutations act on the schema's top-level {@code properties}, each drawn uniformly
 * among those that apply: {@code "rename"} (camelCase ↔ snake_case, a one-word name gains
 * {@code _value}; {@code required} follows), {@code "reorder"} (a property moves to the front),
 * {@code "require"} (an optional property becomes required), {@code "add"} (a new optional string
 * property {@code extra_N}) and {@code "close"} ({@code additionalProperties: false}). A text
 * mutation ({@code "rename-mention"}) renames one mention of a property in the prompt the same way,
 * leaving the schema as it was, so prompt and schema disagree; with no mention in the text its share
 * moves to the schema.
 *
 * <p>Not meaning-preserving: the expected output changes. Needs an output schema with
 * {@code properties}.
 */
public final class SchemaMutation implements Operator {

  /** The default split: text 0.2 / structure 0.8. */
  public static final ChannelWeights DEFAULT_CHANNELS = new ChannelWeights(0.2, 0.8);

  private final int[] mutations;
  private final ChannelWeights channels;

  private SchemaMutation(int[] mutations, ChannelWeights channels) {
    this.mutations = mutations;
    this.channels = channels;
  }

  /** One level per number of mutations (strictly increasing, >= 0), e.g. {@code SchemaMutation.of(0, 1, 3)}. */
  public static SchemaMutation of(int... mutations) {
    return new SchemaMutation(Levels.checkCounts("schema mutation", mutations), DEFAULT_CHANNELS);
  }

  /** The same operator with other channel weights. */
  public SchemaMutation channels(ChannelWeights weights) {
    return new SchemaMutation(mutations, java.util.Objects.requireNonNull(weights, "weights"));
  }

  /** The renamed form of a property name: camelCase ↔ snake_case; a one-word name gains {@code _value}. */
  public static String rename(String name) {
    if (name.indexOf('_') > 0) {
      StringBuilder s = new StringBuilder();
      boolean up = false;
      for (char c : name.toCharArray()) {
        if (c == '_') {
          up = true;
        } else {
          s.append(up ? Character.toUpperCase(c) : c);
          up = false;
        }
      }
      return s.toString();
    }
    boolean camel = false;
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (Character.isUpperCase(c) && i > 0) {
        s.append('_').append(Character.toLowerCase(c));
        camel = true;
      } else {
        s.append(c);
      }
    }
    return camel ? s.toString() : name + "_value";
  }

  @Override
  public String name() {
    return "schema";
  }

  @Override
  public int levelCount() {
    return mutations.length;
  }

  @Override
  public String describeLevel(int level) {
    Levels.checkLevel(this, level);
    return mutations[level] + " mutations";
  }

  @Override
  public boolean preservesMeaning() {
    return false;
  }

  @Override
  public ChannelWeights channels() {
    return channels;
  }

  @Override
  public boolean needsSchema() {
    return true;
  }

  @Override
  public void apply(Draft draft, int level, SplittableRandom random) {
    Levels.checkLevel(this, level);
    int m = mutations[level];
    if (m == 0) {
      return;
    }
    ObjectNode schema = draft.schema().orElseThrow(() -> new IllegalArgumentException(
        "schema mutation needs an output schema: give the space one with outputSchema(...)"));
    if (!(schema.get("properties") instanceof ObjectNode)) {
      throw new IllegalArgumentException("schema mutation needs an output schema with an object 'properties'");
    }
    int[] split = channels.split(m);
    String text = draft.text();
    List<int[]> mentions = mentions(text, (ObjectNode) schema.get("properties"));
    int inText = Math.min(split[0], mentions.size());
    int inSchema = m - inText;
    Splicer splicer = new Splicer(text);
    for (int i : Levels.sample(mentions.size(), inText, random)) {
      int[] at = mentions.get(i);
      String before = text.substring(at[0], at[1]);
      String after = rename(before);
      splicer.replace(at[0], at[1], after);
      draft.log(Channel.TEXT, "rename-mention", at[0], before, after);
    }
    draft.text(splicer.apply());
    for (int i = 0; i < inSchema; i++) {
      mutate(schema, draft, random);
    }
  }

  private static void mutate(ObjectNode schema, Draft draft, SplittableRandom random) {
    ObjectNode props = (ObjectNode) schema.get("properties");
    List<String> names = new ArrayList<>();
    props.fieldNames().forEachRemaining(names::add);
    List<String> required = new ArrayList<>();
    if (schema.get("required") instanceof ArrayNode arr) {
      arr.forEach(n -> required.add(n.asText()));
    }
    List<String> optional = new ArrayList<>(names);
    optional.removeAll(required);
    List<String> kinds = new ArrayList<>();
    if (!names.isEmpty()) {
      kinds.add("rename");
    }
    if (names.size() >= 2) {
      kinds.add("reorder");
    }
    if (!optional.isEmpty()) {
      kinds.add("require");
    }
    kinds.add("add");
    JsonNode additional = schema.get("additionalProperties");
    if (additional == null || !additional.isBoolean() || additional.asBoolean()) {
      kinds.add("close");
    }
    String kind = kinds.get(random.nextInt(kinds.size()));
    switch (kind) {
      case "rename" -> {
        String old = names.get(random.nextInt(names.size()));
        String renamed = rename(old);
        Map<String, JsonNode> copy = new LinkedHashMap<>();
        for (String n : names) {
          copy.put(n.equals(old) ? renamed : n, props.get(n));
        }
        props.removeAll();
        props.setAll(copy);
        if (schema.get("required") instanceof ArrayNode arr) {
          for (int i = 0; i < arr.size(); i++) {
            if (arr.get(i).asText().equals(old)) {
              arr.set(i, arr.textNode(renamed));
            }
          }
        }
        draft.log(Channel.STRUCTURE, kind, -1, "/properties/" + old, renamed);
      }
      case "reorder" -> {
        String moved = names.get(1 + random.nextInt(names.size() - 1));
        Map<String, JsonNode> copy = new LinkedHashMap<>();
        copy.put(moved, props.get(moved));
        for (String n : names) {
          copy.putIfAbsent(n, props.get(n));
        }
        props.removeAll();
        props.setAll(copy);
        draft.log(Channel.STRUCTURE, kind, -1, "/properties/" + moved, "first");
      }
      case "require" -> {
        String req = optional.get(random.nextInt(optional.size()));
        ArrayNode arr = schema.get("required") instanceof ArrayNode a ? a : schema.putArray("required");
        arr.add(req);
        draft.log(Channel.STRUCTURE, kind, -1, "/required", req);
      }
      case "add" -> {
        int k = 1;
        while (props.has("extra_" + k)) {
          k++;
        }
        props.putObject("extra_" + k).put("type", "string");
        draft.log(Channel.STRUCTURE, kind, -1, "/properties", "extra_" + k);
      }
      default -> {
        schema.put("additionalProperties", false);
        draft.log(Channel.STRUCTURE, kind, -1, "/additionalProperties", "false");
      }
    }
  }

  /** Whole-word mentions of property names in the text. */
  private static List<int[]> mentions(String text, ObjectNode props) {
    List<int[]> out = new ArrayList<>();
    props.fieldNames().forEachRemaining(name -> {
      if (name.isEmpty()) {
        return;
      }
      int from = 0;
      while (true) {
        int at = text.indexOf(name, from);
        if (at < 0) {
          break;
        }
        int end = at + name.length();
        boolean left = at == 0 || !isNameChar(text.charAt(at - 1));
        boolean right = end == text.length() || !isNameChar(text.charAt(end));
        if (left && right) {
          out.add(new int[] {at, end});
        }
        from = end;
      }
    });
    out.sort((a, b) -> Integer.compare(a[0], b[0]));
    // Overlapping mentions (a name inside another) keep the first.
    List<int[]> disjoint = new ArrayList<>();
    int last = -1;
    for (int[] m : out) {
      if (m[0] >= last) {
        disjoint.add(m);
        last = m[1];
      }
    }
    return disjoint;
  }

  private static boolean isNameChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_';
  }

  @Override
  public String toString() {
    return "SchemaMutation[mutations " + Levels.list(mutations) + ", " + channels + "]";
  }
}
