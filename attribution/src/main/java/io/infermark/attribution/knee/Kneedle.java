package io.infermark.attribution.knee;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The Kneedle knee detector (Satopää, Albrecht, Irwin and Raghavan, "Finding a 'Kneedle' in a
 * Haystack: Detecting Knee Points in System Behavior", ICDCS workshops 2011), behaving as the
 * reference Python package {@code kneed}'s {@code KneeLocator} (version 0.8.6) with
 * {@code interp_method="interp1d"}.
 *
 * <p>The steps, on points with strictly increasing x:
 * <ol>
 *   <li>no smoothing: {@code interp1d} evaluated at the data's own x is the data itself;
 *   <li>x and y are scaled to [0, 1] by their min and max;
 *   <li>the scaled y is turned into a concave increasing curve: kept for concave increasing,
 *       reversed in order for concave decreasing, {@code max − y} for convex decreasing, and both for
 *       convex increasing; the difference curve is that minus the scaled x;
 *   <li>local maxima and minima of the difference curve are the points at least (at most) as large
 *       as both neighbours, the end points compared with their one neighbour (scipy's
 *       {@code argrelextrema} with {@code greater_equal}/{@code less_equal} and clipped edges);
 *   <li>each maximum gets the threshold {@code T = y_diff(max) − S · mean(Δx_normalized)};
 *   <li>walking right from the first maximum, a maximum sets the current threshold and a minimum
 *       resets it to 0 and pauses detection until the next maximum (kneed 0.8.6; 0.8.5 kept
 *       detecting against the threshold 0); while detecting, when the next point's difference drops
 *       below the current threshold, the latest maximum is a knee. Offline ({@code online = false}, the default) stops at the first
 *       knee found; online keeps walking and returns the last knee found, "correcting" earlier ones.
 * </ol>
 *
 * <p>The knee is reported as kneed reports it: for the orientations whose difference curve runs in
 * reverse order (concave decreasing, convex increasing) the data point is the mirror of the difference
 * curve's index, while {@link KneedleResult.Knee#normalizedX()} stays at the difference curve's own x,
 * exactly like kneed's {@code norm_knee}.
 *
 * <p>For a latency–load curve (latency rising slowly, then steeply) use {@link #latencyCurve()}:
 * convex and increasing. Immutable; {@link #locate} is safe to call from several threads.
 */
public final class Kneedle {

  /** Whether the curve bends down (knee, {@code "concave"} in kneed) or up (elbow, {@code "convex"}). */
  public enum Curve {
    /** Concave: slope decreasing, as throughput saturating with load. kneed's default. */
    CONCAVE,
    /** Convex: slope increasing, as latency rising with load. */
    CONVEX
  }

  /** Whether y grows or falls with x. */
  public enum Direction {
    /** y grows with x. kneed's default. */
    INCREASING,
    /** y falls with x. */
    DECREASING
  }

  private static final Kneedle DEFAULTS = new Kneedle(1.0, Curve.CONCAVE, Direction.INCREASING, false);

  private final double sensitivity;
  private final Curve curve;
  private final Direction direction;
  private final boolean online;

  private Kneedle(double sensitivity, Curve curve, Direction direction, boolean online) {
    this.sensitivity = sensitivity;
    this.curve = curve;
    this.direction = direction;
    this.online = online;
  }

  /** kneed's defaults: S = 1.0, concave, increasing, offline. */
  public static Kneedle defaults() {
    return DEFAULTS;
  }

  /** For latency against load: S = 1.0, convex, increasing, offline. */
  public static Kneedle latencyCurve() {
    return DEFAULTS.curve(Curve.CONVEX);
  }

  /**
   * This detector with sensitivity {@code s}: how many "flat" points (in units of the mean x step)
   * the difference curve must fall below its maximum before a knee is called. Smaller finds knees
   * sooner; 1.0 is the paper's and kneed's default.
   *
   * @throws IllegalArgumentException if {@code s} is negative or not finite
   */
  public Kneedle sensitivity(double s) {
    if (!(s >= 0) || Double.isInfinite(s)) {
      throw new IllegalArgumentException("sensitivity S must be finite and >= 0, was " + s);
    }
    return new Kneedle(s, curve, direction, online);
  }

  /** This detector for a curve of the given shape. */
  public Kneedle curve(Curve c) {
    return new Kneedle(sensitivity, Objects.requireNonNull(c, "curve"), direction, online);
  }

  /** This detector for a curve going in the given direction. */
  public Kneedle direction(Direction d) {
    return new Kneedle(sensitivity, curve, Objects.requireNonNull(d, "direction"), online);
  }

  /** This detector in online mode (true: keep correcting, report the last knee) or offline (false: the first). */
  public Kneedle online(boolean on) {
    return new Kneedle(sensitivity, curve, direction, on);
  }

  /** The sensitivity S. */
  public double sensitivity() {
    return sensitivity;
  }

  /** The curve shape. */
  public Curve curve() {
    return curve;
  }

  /** The direction. */
  public Direction direction() {
    return direction;
  }

  /** True in online mode. */
  public boolean isOnline() {
    return online;
  }

  /**
   * Finds the knees of the points {@code (x[i], y[i])}.
   *
   * <p>Fewer than three points, or a constant y, have no knee (kneed finds none either: two points
   * give a flat difference curve, a constant y has no scale); the result is then empty and its
   * curves are empty arrays.
   *
   * @param x strictly increasing, finite
   * @param y finite, as many as {@code x}
   * @throws IllegalArgumentException if the arrays are empty, differ in length, hold a non-finite
   *     value, or x is not strictly increasing
   */
  public KneedleResult locate(double[] x, double[] y) {
    validate(x, y);
    int n = x.length;
    double yMin = Double.POSITIVE_INFINITY;
    double yMax = Double.NEGATIVE_INFINITY;
    for (double v : y) {
      yMin = Math.min(yMin, v);
      yMax = Math.max(yMax, v);
    }
    if (n < 3 || yMin == yMax) {
      return KneedleResult.none(this, x, y);
    }
    double[] xn = normalize(x, x[0], x[n - 1]);
    double[] yt = orient(normalize(y, yMin, yMax));
    double[] diff = new double[n];
    for (int i = 0; i < n; i++) {
      diff[i] = yt[i] - xn[i];
    }
    int[] maxima = extrema(diff, true);
    int[] minima = extrema(diff, false);
    double step = 0;
    for (int i = 1; i < n; i++) {
      step += xn[i] - xn[i - 1];
    }
    step = Math.abs(step / (n - 1));
    double[] thresholds = new double[maxima.length];
    for (int k = 0; k < maxima.length; k++) {
      thresholds[k] = diff[maxima[k]] - sensitivity * step;
    }

    boolean reversed = (curve == Curve.CONVEX) != (direction == Direction.DECREASING);
    List<KneedleResult.Knee> knees = new ArrayList<>();
    boolean[] seen = new boolean[n];
    boolean[] isMax = mark(maxima, n);
    boolean[] isMin = mark(minima, n);
    double threshold = 0;
    int thresholdIndex = -1;
    int nextMax = 0;
    boolean detecting = true;
    for (int i = maxima.length == 0 ? n : maxima[0]; i < n - 1; i++) {
      if (isMax[i]) {
        threshold = thresholds[nextMax++];
        thresholdIndex = i;
        detecting = true;
      }
      if (isMin[i]) {
        // kneed 0.8.6: after a local minimum, detection pauses until the next local maximum (a point
        // that is both, on a flat stretch, pauses it too).
        threshold = 0.0;
        detecting = false;
      }
      if (detecting && diff[i + 1] < threshold) {
        int dataIndex = reversed ? n - 1 - thresholdIndex : thresholdIndex;
        if (!seen[dataIndex]) {
          seen[dataIndex] = true;
          knees.add(new KneedleResult.Knee(dataIndex, x[dataIndex], y[dataIndex], thresholdIndex,
              xn[thresholdIndex], yt[thresholdIndex]));
        }
        if (!online) {
          break;
        }
      }
    }
    return new KneedleResult(this, x.clone(), y.clone(), xn, yt, diff, maxima, minima, thresholds, knees);
  }

  /** The kneed orientation table: every shape becomes concave increasing. */
  private double[] orient(double[] yn) {
    int n = yn.length;
    double max = Double.NEGATIVE_INFINITY;
    for (double v : yn) {
      max = Math.max(max, v);
    }
    double[] out = new double[n];
    for (int i = 0; i < n; i++) {
      if (direction == Direction.DECREASING) {
        out[i] = curve == Curve.CONCAVE ? yn[n - 1 - i] : max - yn[i];
      } else {
        out[i] = curve == Curve.CONVEX ? max - yn[n - 1 - i] : yn[i];
      }
    }
    return out;
  }

  private static double[] normalize(double[] a, double min, double max) {
    double[] out = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      out[i] = (a[i] - min) / (max - min);
    }
    return out;
  }

  /** Indices at least (maxima) or at most (minima) as large as both neighbours; ends compare with one. */
  private static int[] extrema(double[] d, boolean maxima) {
    int n = d.length;
    int[] out = new int[n];
    int k = 0;
    for (int i = 0; i < n; i++) {
      double left = d[Math.max(i - 1, 0)];
      double right = d[Math.min(i + 1, n - 1)];
      boolean is = maxima ? d[i] >= left && d[i] >= right : d[i] <= left && d[i] <= right;
      if (is) {
        out[k++] = i;
      }
    }
    return java.util.Arrays.copyOf(out, k);
  }

  private static boolean[] mark(int[] indices, int n) {
    boolean[] m = new boolean[n];
    for (int i : indices) {
      m[i] = true;
    }
    return m;
  }

  private static void validate(double[] x, double[] y) {
    Objects.requireNonNull(x, "x");
    Objects.requireNonNull(y, "y");
    if (x.length == 0) {
      throw new IllegalArgumentException("x and y must hold at least one point, were empty");
    }
    if (x.length != y.length) {
      throw new IllegalArgumentException("x and y must have the same length, were " + x.length + " and " + y.length);
    }
    for (int i = 0; i < x.length; i++) {
      if (!Double.isFinite(x[i]) || !Double.isFinite(y[i])) {
        throw new IllegalArgumentException("point " + i + " is (" + x[i] + ", " + y[i] + "); both must be finite");
      }
      if (i > 0 && !(x[i] > x[i - 1])) {
        throw new IllegalArgumentException("x must be strictly increasing, but x[" + i + "] = " + x[i]
            + " follows x[" + (i - 1) + "] = " + x[i - 1]);
      }
    }
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "Kneedle[S=%s, %s, %s, %s]", sensitivity, curve.name().toLowerCase(Locale.ROOT),
        direction.name().toLowerCase(Locale.ROOT), online ? "online" : "offline");
  }
}
