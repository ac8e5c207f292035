package io.infermark.attribution.tree;

import java.util.Locale;
import java.util.Objects;

/**
 * One node of a decision tree, for building a {@link TreeEnsemble} by hand (or from a parsed model):
 * a {@link Leaf} holding a value, or a {@link Split} sending a row left when its feature is
 * {@code < threshold} and right otherwise, and a missing value (NaN) the way
 * {@link Split#missingGoesLeft()} says.
 *
 * <p>Every node carries a <em>cover</em>: how much training data reached it (a row count, or
 * xgboost's sum of hessians). Path-dependent TreeSHAP and {@link TreeEnsemble#expectedValue()} use
 * the ratio {@code cover(child) / cover(parent)} as the probability of taking a branch when the
 * split's feature is unknown. A split's cover must be positive; a leaf's may be zero.
 *
 * <pre>{@code
 * TreeNode tree = TreeNode.split(0, 0.5,                      // x0 < 0.5 ?
 *     TreeNode.leaf(1.0, 30),                                 //   yes: 1.0, 30 training rows
 *     TreeNode.split(1, 2.0, TreeNode.leaf(2.0, 50), TreeNode.leaf(4.0, 20)));
 * }</pre>
 */
public sealed interface TreeNode permits TreeNode.Leaf, TreeNode.Split {

  /** How much training data reached this node (rows, or sum of hessians); non-negative. */
  double cover();

  /** The number of splits on the longest path from this node to a leaf (0 for a leaf). */
  int depth();

  /**
   * A leaf.
   *
   * @throws IllegalArgumentException if the value is not finite or the cover is negative or not finite
   */
  static Leaf leaf(double value, double cover) {
    return new Leaf(value, cover);
  }

  /**
   * A split whose cover is the sum of its children's and whose missing values go left.
   *
   * @throws IllegalArgumentException if the feature is negative, the threshold NaN, or the children's
   *     covers sum to zero
   */
  static Split split(int feature, double threshold, TreeNode left, TreeNode right) {
    return new Split(feature, threshold, true, left.cover() + right.cover(), left, right);
  }

  /**
   * A split with an explicit missing-value direction and cover.
   *
   * @throws IllegalArgumentException if the feature is negative, the threshold NaN, or the cover not
   *     positive and finite
   */
  static Split split(int feature, double threshold, boolean missingGoesLeft, double cover, TreeNode left,
      TreeNode right) {
    return new Split(feature, threshold, missingGoesLeft, cover, left, right);
  }

  /**
   * A leaf: the tree's output for the rows that reach it.
   *
   * @param value the output, added to the ensemble's prediction
   * @param cover training data that reached the leaf
   */
  record Leaf(double value, double cover) implements TreeNode {

    /** Validates. */
    public Leaf {
      if (!Double.isFinite(value)) {
        throw new IllegalArgumentException("leaf value must be finite, was " + value);
      }
      if (!(cover >= 0) || Double.isInfinite(cover)) {
        throw new IllegalArgumentException("leaf cover must be finite and >= 0, was " + cover);
      }
    }

    @Override
    public int depth() {
      return 0;
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "leaf(%.6g, cover %.6g)", value, cover);
    }
  }

  /**
   * A split: rows whose {@code feature} is {@code < threshold} go to {@code left}, the others to
   * {@code right}, and rows missing it (NaN) to {@code left} when {@code missingGoesLeft}.
   *
   * @param feature the feature's column index, from 0
   * @param threshold the split value; not NaN
   * @param missingGoesLeft where a NaN goes
   * @param cover training data that reached the split; positive
   * @param left the subtree for {@code feature < threshold}
   * @param right the subtree for {@code feature >= threshold}
   */
  record Split(int feature, double threshold, boolean missingGoesLeft, double cover, TreeNode left, TreeNode right)
      implements TreeNode {

    /** Validates. */
    public Split {
      if (feature < 0) {
        throw new IllegalArgumentException("split feature must be >= 0, was " + feature);
      }
      if (Double.isNaN(threshold)) {
        throw new IllegalArgumentException("split threshold must not be NaN (feature " + feature + ")");
      }
      if (!(cover > 0) || Double.isInfinite(cover)) {
        throw new IllegalArgumentException("split cover must be finite and > 0, was " + cover + " (feature "
            + feature + "); the branch probabilities cover(child) / cover(split) need it");
      }
      Objects.requireNonNull(left, "left");
      Objects.requireNonNull(right, "right");
    }

    @Override
    public int depth() {
      return 1 + Math.max(left.depth(), right.depth());
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "split(x%d < %.9g, missing %s, cover %.6g)", feature, threshold,
          missingGoesLeft ? "left" : "right", cover);
    }
  }
}
