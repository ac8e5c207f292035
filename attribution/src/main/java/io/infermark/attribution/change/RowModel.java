package io.infermark.attribution.change;

/**
 * A caller's model of a request's outcome from its component values (for example a surrogate model of
 * latency from factors), for decompositions whose outcome is not simply the sum of the components.
 *
 * <p>The decomposition calls it once per request and coalition, so it should be cheap and must be
 * deterministic.
 */
@FunctionalInterface
public interface RowModel {

  /**
   * The outcome (ms) of a request whose components take the values in {@code row}, in the component
   * order of run A's table. The array is a scratch copy reused between calls: read it, do not keep it
   * (writing into it does not affect the decomposition).
   */
  double predict(double[] row);
}
