/**
 * Tree ensembles and their exact SHAP values: {@link io.infermark.attribution.tree.TreeEnsemble} is a
 * compact, immutable additive ensemble of decision trees (built by hand from
 * {@link io.infermark.attribution.tree.TreeNode}s or read from xgboost's JSON dump by
 * {@link io.infermark.attribution.tree.XgboostJsonDump}); {@link io.infermark.attribution.tree.TreeShap}
 * computes path-dependent and interventional TreeSHAP values whose sums are checked, not assumed.
 *
 * <p>May import: no other infermark package.
 */
package io.infermark.attribution.tree;
