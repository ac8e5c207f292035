package io.infermark.attribution.tree;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

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
 * {@code missing} child. The dump prints thresholds with the nine significant digits that round-trip a
 * 32-bit float, so they are read as {@code float}, and the ensemble compares features rounded to
 * {@code float}, as xgboost does. The dump does not hold the base score: pass the model's base margin
 * (for {@code reg:squarederror} xgboost's {@code base_score}; for {@code binary:logistic}
 * {@code logit(base_score)}). Categorical splits are rejected.
 */
public final class XgboostJsonDump {

  private static final ObjectMapper JSON = new ObjectMapper();

  private XgboostJsonDump() {
  }

  /**
   * The ensemble described by a dump.
   *
   * @param trees one JSON document per tree, as the dump returns them
   * @param featureNames the model's features in column order; splits name them as in the dump —
   *     {@code f0, f1, …} when the booster had no feature names, or the names themselves
   * @param baseMargin the constant xgboost adds to the trees' sum, in margin (untransformed) units
   * @throws IllegalArgumentException if a tree is not valid JSON, lacks a field ({@code cover} is
   *     missing when the dump was taken without statistics), names an unknown feature, or is categorical
   */
  public static TreeEnsemble parse(List<String> trees, List<String> featureNames, double baseMargin) {
    Objects.requireNonNull(trees, "trees");
    if (trees.isEmpty()) {
      throw new IllegalArgumentException("the dump has no trees");
    }
    TreeEnsemble.Builder b = TreeEnsemble.builder(featureNames).baseScore(baseMargin).float32Features(true);
    Map<String, Integer> index = new HashMap<>();
    for (int i = 0; i < featureNames.size(); i++) {
      index.put(featureNames.get(i), i);
      index.putIfAbsent("f" + i, i);
    }
    for (int t = 0; t < trees.size(); t++) {
      JsonNode root;
      try {
        root = JSON.readTree(trees.get(t));
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException("tree " + t + " of the dump is not valid JSON: " + e.getOriginalMessage(),
            e);
      }
      b.addTree(node(root, index, t, 0));
    }
    return b.build();
  }

  private static TreeNode node(JsonNode n, Map<String, Integer> index, int tree, int depth) {
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException("tree " + tree + ": expected a node object, found " + n);
    }
    if (depth > TreeEnsemble.MAX_DEPTH) {
      throw new IllegalArgumentException("tree " + tree + " is deeper than " + TreeEnsemble.MAX_DEPTH);
    }
    double cover = number(n, "cover", tree);
    if (n.has("leaf")) {
      return TreeNode.leaf(number(n, "leaf", tree), cover);
    }
    if (n.has("categories") || n.has("categories_nodes")) {
      throw new IllegalArgumentException("tree " + tree + " node " + n.path("nodeid") + " is a categorical split,"
          + " which TreeEnsemble does not support");
    }
    String split = n.path("split").asText("");
    Integer feature = index.get(split);
    if (feature == null) {
      throw new IllegalArgumentException("tree " + tree + " node " + n.path("nodeid") + " splits on '" + split
          + "', which is not one of the features " + index.keySet());
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
    return TreeNode.split(feature, threshold, missing == yes, cover, node(yesNode, index, tree, depth + 1),
        node(noNode, index, tree, depth + 1));
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
