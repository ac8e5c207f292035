package io.infermark.attribution.tree;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads xgboost's JSON model dump into a {@link TreeEnsemble}, without xgboost on the classpath.
 *
 * <p>The input is what {@code Booster.getModelDump(featureNames, true, "json")} returns (one JSON
 * string per tree, with statistics so every node has a {@code cover}); the equivalents are
 * {@code booster.get_dump(with_stats=True, dump_format="json")} in Python and
 * {@code xgb.dump(model, with_stats = TRUE, dump_format = "json")} in R. Each split node has
 * {@code split}, {@code split_condition}, {@code yes}, {@code no}, {@code missing}, {@code cover} and
 * {@code children}; each leaf {@code leaf} and {@code cover}.
 *
 * <p>Semantics kept: a row goes to {@code yes} when {@code x < split_condition}, and NaN goes to the
 * {@code missing} child. xgboost stores thresholds, leaf values and covers as 32-bit floats and the
 * dump prints them with the digits that round-trip a float, so they are read as {@code float} (a leaf
 * of {@code 0.1} is {@code (double) 0.1f}, exactly xgboost's value), and the ensemble compares features
 * rounded to {@code float}, as xgboost does. The dump does not hold the base score: pass the model's base margin
 * (for {@code reg:squarederror} xgboost's {@code base_score}; for {@code binary:logistic}
 * {@code logit(base_score)}). Categorical splits are rejected.
 *
 * <p>Feature names: a dump taken without feature names names column {@code i} {@code f<i>}; one taken
 * with names uses them. Say which with {@link Naming}: {@link Naming#INDEXES} reads {@code f<i>}
 * strictly as column {@code i} (whatever the columns are called), {@link Naming#NAMES} reads split
 * names only as the given names. The three-argument {@link #parse(List, List, double)} accepts either
 * but refuses names that would make a split ambiguous — a column named {@code f0} that is not column
 * 0, which xgboost's own {@code f0} would otherwise be read as.
 */
public final class XgboostJsonDump {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern INDEX_NAME = Pattern.compile("f(0|[1-9][0-9]{0,8})");

  /** How the dump's {@code split} fields name features. */
  public enum Naming {
    /**
     * {@code f<i>} is column {@code i}: the dump was taken without feature names
     * ({@code getModelDump((String) null, …)}, or a booster that never had names).
     */
    INDEXES,
    /** A split names the feature as given in {@code featureNames}: the dump was taken with feature names. */
    NAMES
  }

  private XgboostJsonDump() {
  }

  /**
   * The ensemble described by a dump.
   *
   * @param trees one JSON document per tree, as the dump returns them
   * <p>Splits may name features either way — {@code f0, f1, …} or the names themselves — as long as
   * that is unambiguous; when a name has the form {@code f<j>} but is not column {@code j}, say how the
   * dump names features with {@link #parse(List, List, double, Naming)}.
   *
   * @param featureNames the model's features in column order
   * @param baseMargin the constant xgboost adds to the trees' sum, in margin (untransformed) units
   * @throws IllegalArgumentException if a feature name is {@code f<j>} but not column {@code j}, a tree
   *     is not valid JSON, lacks a field ({@code cover} is missing when the dump was taken without
   *     statistics), names an unknown feature, or is categorical
   */
  public static TreeEnsemble parse(List<String> trees, List<String> featureNames, double baseMargin) {
    Objects.requireNonNull(featureNames, "featureNames");
    Map<String, Integer> index = new HashMap<>();
    for (int i = 0; i < featureNames.size(); i++) {
      String name = featureNames.get(i);
      OptionalInt j = indexOf(name, featureNames.size());
      if (j.isPresent() && j.getAsInt() != i) {
        throw new IllegalArgumentException("feature name '" + name + "' is column " + i + ", but a dump without "
            + "feature names calls column " + j.getAsInt() + " '" + name + "': say how the dump names features with "
            + "parse(trees, featureNames, baseMargin, Naming.INDEXES or Naming.NAMES)");
      }
      index.put(name, i);
      index.putIfAbsent("f" + i, i);
    }
    return parse(trees, featureNames, baseMargin, index, "f0, f1, … or " + featureNames);
  }

  /**
   * The ensemble described by a dump whose splits name features as {@code naming} says.
   *
   * @param trees one JSON document per tree, as the dump returns them
   * @param featureNames the model's features in column order
   * @param baseMargin the constant xgboost adds to the trees' sum, in margin (untransformed) units
   * @param naming {@link Naming#INDEXES} when the dump was taken without feature names (splits say
   *     {@code f<i>}), {@link Naming#NAMES} when with them
   * @throws IllegalArgumentException if a tree is not valid JSON, lacks a field ({@code cover} is
   *     missing when the dump was taken without statistics), names a feature that is not one of
   *     {@code featureNames} (or, for {@code INDEXES}, not {@code f<i>} with {@code i} a column), or is
   *     categorical
   */
  public static TreeEnsemble parse(List<String> trees, List<String> featureNames, double baseMargin,
      Naming naming) {
    Objects.requireNonNull(featureNames, "featureNames");
    Objects.requireNonNull(naming, "naming");
    Map<String, Integer> index = new HashMap<>();
    for (int i = 0; i < featureNames.size(); i++) {
      index.put(naming == Naming.INDEXES ? "f" + i : featureNames.get(i), i);
    }
    String expected = naming == Naming.INDEXES ? "f0 … f" + (featureNames.size() - 1)
        + " (Naming.INDEXES: a dump without feature names)" : featureNames + " (Naming.NAMES)";
    return parse(trees, featureNames, baseMargin, index, expected);
  }

  private static TreeEnsemble parse(List<String> trees, List<String> featureNames, double baseMargin,
      Map<String, Integer> index, String expected) {
    Objects.requireNonNull(trees, "trees");
    if (trees.isEmpty()) {
      throw new IllegalArgumentException("the dump has no trees");
    }
    TreeEnsemble.Builder b = TreeEnsemble.builder(featureNames).baseScore(baseMargin).float32Features(true);
    for (int t = 0; t < trees.size(); t++) {
      JsonNode root;
      try {
        root = JSON.readTree(trees.get(t));
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException("tree " + t + " of the dump is not valid JSON: " + e.getOriginalMessage(),
            e);
      }
      b.addTree(node(root, index, expected, t, 0));
    }
    return b.build();
  }

  /** The column xgboost's default name {@code f<j>} refers to, if {@code name} is one and j is a column. */
  private static OptionalInt indexOf(String name, int features) {
    Matcher m = INDEX_NAME.matcher(name);
    if (!m.matches()) {
      return OptionalInt.empty();
    }
    int j = Integer.parseInt(m.group(1));
    return j < features ? OptionalInt.of(j) : OptionalInt.empty();
  }

  private static TreeNode node(JsonNode n, Map<String, Integer> index, String expected, int tree, int depth) {
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException("tree " + tree + ": expected a node object, found " + n);
    }
    if (depth > TreeEnsemble.MAX_DEPTH) {
      throw new IllegalArgumentException("tree " + tree + " is deeper than " + TreeEnsemble.MAX_DEPTH);
    }
    double cover = (float) number(n, "cover", tree);
    if (n.has("leaf")) {
      return TreeNode.leaf((float) number(n, "leaf", tree), cover);
    }
    if (n.has("categories") || n.has("categories_nodes")) {
      throw new IllegalArgumentException("tree " + tree + " node " + n.path("nodeid") + " is a categorical split,"
          + " which TreeEnsemble does not support");
    }
    String split = n.path("split").asText("");
    Integer feature = index.get(split);
    if (feature == null) {
      throw new IllegalArgumentException("tree " + tree + " node " + n.path("nodeid") + " splits on '" + split
          + "', which is not one of the features " + expected);
    }
    if (!n.has("split_condition")) {
      throw new IllegalArgumentException("tree " + tree + " node " + n.path("nodeid")
          + " has no split_condition (an indicator split?); only numeric '<' splits are supported");
    }
    float threshold = (float) number(n, "split_condition", tree);
    int yes = (int) number(n, "yes", tree);
    int no = (int) number(n, "no", tree);
    int missing = (int) number(n, "missing", tree);
    JsonNode yesNode = null;
    JsonNode noNode = null;
    for (JsonNode c : n.path("children")) {
      int id = c.path("nodeid").asInt(-1);
      if (id == yes) {
        yesNode = c;
      } else if (id == no) {
        noNode = c;
      }
    }
    if (yesNode == null || noNode == null || (missing != yes && missing != no)) {
      throw new IllegalArgumentException("tree " + tree + " node " + n.path("nodeid") + ": children " + yes + "/"
          + no + " (missing " + missing + ") not found among its children");
    }
    return TreeNode.split(feature, threshold, missing == yes, cover, node(yesNode, index, expected, tree, depth + 1),
        node(noNode, index, expected, tree, depth + 1));
  }

  private static double number(JsonNode n, String field, int tree) {
    JsonNode v = n.get(field);
    if (v == null || !v.isNumber()) {
      throw new IllegalArgumentException("tree " + tree + " node " + n.path("nodeid") + " has no numeric '" + field
          + "'" + (field.equals("cover") ? "; dump the model with statistics (with_stats = true)" : ""));
    }
    return v.asDouble();
  }
}
