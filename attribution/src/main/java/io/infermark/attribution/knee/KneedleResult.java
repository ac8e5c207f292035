package io.infermark.attribution.knee;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/**
 * What {@link Kneedle#locate} found: every knee in the order the walk found it, the chosen one (the
 * first offline, the last online), and the intermediate curves kneed also exposes, so that a result
 * can be plotted or checked step by step. Immutable; the array accessors return copies.
 */
public final class KneedleResult {

  /**
   * One knee.
   *
   * @param index the data point's index in the input arrays
   * @param x the data point's x (kneed's {@code knee})
   * @param y the data point's y (kneed's {@code knee_y})
   * @param differenceIndex the index of the difference-curve maximum that produced it; equals
   *     {@code index} except for the reversed orientations (concave decreasing, convex increasing),
   *     where it is {@code n − 1 − index}
   * @param normalizedX the difference curve's x there (kneed's {@code norm_knee}: for the reversed
   *     orientations, measured from the other end of the data)
   * @param normalizedY the oriented, normalized y there (kneed's {@code norm_knee_y})
   */
  public record Knee(int index, double x, double y, int differenceIndex, double normalizedX, double normalizedY) {

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "Knee[#%d x=%s y=%s, norm (%.4f, %.4f)]", index, x, y, normalizedX,
          normalizedY);
    }
  }

  private static final double[] NONE = new double[0];

  private final Kneedle detector;
  private final double[] x;
  private final double[] y;
  private final double[] xNormalized;
  private final double[] yNormalized;
  private final double[] difference;
  private final int[] maxima;
  private final int[] minima;
  private final double[] thresholds;
  private final List<Knee> knees;

  KneedleResult(Kneedle detector, double[] x, double[] y, double[] xNormalized, double[] yNormalized,
      double[] difference, int[] maxima, int[] minima, double[] thresholds, List<Knee> knees) {
    this.detector = detector;
    this.x = x;
    this.y = y;
    this.xNormalized = xNormalized;
    this.yNormalized = yNormalized;
    this.difference = difference;
    this.maxima = maxima;
    this.minima = minima;
    this.thresholds = thresholds;
    this.knees = List.copyOf(knees);
  }

  static KneedleResult none(Kneedle detector, double[] x, double[] y) {
    return new KneedleResult(detector, x.clone(), y.clone(), NONE, NONE, NONE, new int[0], new int[0], NONE,
        List.of());
  }

  /** The detector's settings. */
  public Kneedle detector() {
    return detector;
  }

  /** The chosen knee: the first found offline, the last found online; empty when there is none. */
  public Optional<Knee> chosen() {
    if (knees.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(detector.isOnline() ? knees.get(knees.size() - 1) : knees.get(0));
  }

  /** The chosen knee's x (kneed's {@code knee}). */
  public OptionalDouble knee() {
    return chosen().map(k -> OptionalDouble.of(k.x())).orElse(OptionalDouble.empty());
  }

  /** The chosen knee's y (kneed's {@code knee_y}). */
  public OptionalDouble kneeY() {
    return chosen().map(k -> OptionalDouble.of(k.y())).orElse(OptionalDouble.empty());
  }

  /** The chosen knee's normalized x (kneed's {@code norm_knee}; see {@link Knee#normalizedX()}). */
  public OptionalDouble normKnee() {
    return chosen().map(k -> OptionalDouble.of(k.normalizedX())).orElse(OptionalDouble.empty());
  }

  /** The chosen knee's normalized, oriented y (kneed's {@code norm_knee_y}). */
  public OptionalDouble normKneeY() {
    return chosen().map(k -> OptionalDouble.of(k.normalizedY())).orElse(OptionalDouble.empty());
  }

  /** The chosen knee's index in the input arrays. */
  public OptionalInt kneeIndex() {
    return chosen().map(k -> OptionalInt.of(k.index())).orElse(OptionalInt.empty());
  }

  /**
   * Every distinct knee in the order found (kneed's {@code all_knees}, which is a set): offline only
   * the first; online every one the walk passed.
   */
  public List<Knee> allKnees() {
    return knees;
  }

  /** The input x. */
  public double[] x() {
    return x.clone();
  }

  /** The input y. */
  public double[] y() {
    return y.clone();
  }

  /** x scaled to [0, 1] (kneed's {@code x_normalized}, also the difference curve's x); empty without a curve. */
  public double[] xNormalized() {
    return xNormalized.clone();
  }

  /** y scaled to [0, 1] and oriented to concave increasing (kneed's {@code y_normalized}); empty without a curve. */
  public double[] yNormalized() {
    return yNormalized.clone();
  }

  /** The difference curve, {@code yNormalized − xNormalized} (kneed's {@code y_difference}); empty without a curve. */
  public double[] difference() {
    return difference.clone();
  }

  /** Indices of the difference curve's local maxima (kneed's {@code maxima_indices}). */
  public int[] maximaIndices() {
    return maxima.clone();
  }

  /** Indices of the difference curve's local minima (kneed's {@code minima_indices}). */
  public int[] minimaIndices() {
    return minima.clone();
  }

  /** The threshold of each local maximum, {@code y_diff − S · mean step} (kneed's {@code Tmx}). */
  public double[] thresholds() {
    return thresholds.clone();
  }

  /** One line: the detector, the chosen knee and how many were found. */
  @Override
  public String toString() {
    if (knees.isEmpty()) {
      return "KneedleResult[no knee in " + x.length + " points, " + detector + "]";
    }
    Knee k = chosen().orElseThrow();
    String all = knees.stream().map(c -> String.valueOf(c.x())).collect(Collectors.joining(", ", "[", "]"));
    return String.format(Locale.ROOT, "KneedleResult[knee x=%s y=%s (point %d of %d), all %s, %s]", k.x(), k.y(),
        k.index(), x.length, all, detector);
  }
}
