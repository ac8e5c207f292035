package io.infermark.attribution.pareto;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/**
 * The Pareto front of configurations by throughput (maximised) and latency (minimised), with its
 * hypervolume and, for every dominated configuration, one configuration on the front that dominates it.
 *
 * <p>A point is dominated when another has at least its throughput and at most its latency and is
 * strictly better in one of them. The front is every point not dominated. Computed in
 * O(n log n): sort by throughput descending (latency ascending within equal throughput), then sweep
 * keeping the lowest latency seen so far; a point is on the front exactly when its latency is below
 * that of every point with higher throughput and no point of equal throughput has lower latency.
 *
 * <p>Ties: two points with equal throughput and latency (duplicates) do not dominate each other, so
 * either both are on the front or both are dominated; both are listed, and counted once in the
 * hypervolume. A point with the same latency as a higher-throughput one, or the same throughput as
 * a lower-latency one, is dominated.
 *
 * <p>Hypervolume is the area dominated by the front and bounded by a reference point (a throughput
 * floor and a latency ceiling), {@code throughput unit × ms}; it is computed exactly as a sum of
 * rectangles. <strong>Compare hypervolumes only against the same, explicit reference</strong> —
 * {@link #hypervolume(double, double)} with, say, throughput 0 and your latency SLO: a reference
 * taken from the data moves with the data, so two fronts' default hypervolumes are not comparable.
 * The default reference ({@link #hypervolume()}) is throughput 0 and the worst latency <em>of the
 * front</em>, so it depends on the front alone: adding or removing a dominated configuration leaves it
 * unchanged (a ceiling at the worst latency of all points would let a bad configuration inflate it).
 * Its costs, which an explicit reference avoids: the front's highest-throughput point sets the ceiling
 * and so adds no area, and a new point that dominates it lowers the ceiling and can lower the value.
 *
 * <pre>{@code
 * ParetoFront<String> f = ParetoFront.of(List.of(
 *     new ParetoPoint<>("batch 8", 40, 300), new ParetoPoint<>("batch 16", 70, 450),
 *     new ParetoPoint<>("batch 32", 65, 900)));
 * f.front();                // batch 16, batch 8
 * f.dominatorOf(2);         // OptionalInt[1]: batch 16 beats batch 32 on both
 * f.hypervolume(0, 1000);   // (40 − 0)(1000 − 300) + (70 − 40)(1000 − 450) = 44,500 req/s·ms below a 1 s SLO
 * f.hypervolume();          // (40 − 0)(450 − 300) = 6,000: the front's own box; batch 32 changes nothing
 * }</pre>
 *
 * <p>Immutable.
 *
 * @param <T> the label type
 */
public final class ParetoFront<T> {

  private final List<ParetoPoint<T>> points;
  /** Front indices into {@link #points}, by throughput descending then latency ascending then input order. */
  private final int[] front;
  /** For each point, the index of a front point dominating it, or -1 for front points. */
  private final int[] dominator;

  private ParetoFront(List<ParetoPoint<T>> points, int[] front, int[] dominator) {
    this.points = points;
    this.front = front;
    this.dominator = dominator;
  }

  /**
   * The front of the given points.
   *
   * @throws NullPointerException if the list or a point is null
   */
  public static <T> ParetoFront<T> of(List<ParetoPoint<T>> points) {
    List<ParetoPoint<T>> copy = List.copyOf(points);
    int n = copy.size();
    double[] t = new double[n];
    double[] l = new double[n];
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      t[i] = copy.get(i).throughput();
      l[i] = copy.get(i).latencyMillis();
      order[i] = i;
    }
    // Stable sort: equal points keep their input order, so the front lists duplicates as given.
    Arrays.sort(order, (a, b) -> {
      int c = Double.compare(t[b], t[a]);
      return c != 0 ? c : Double.compare(l[a], l[b]);
    });
    int[] dominator = new int[n];
    int[] front = new int[n];
    int f = 0;
    double best = Double.POSITIVE_INFINITY; // lowest latency among points of strictly higher throughput
    int bestIndex = -1;
    int g = 0;
    while (g < n) {
      int groupStart = g;
      double groupThroughput = t[order[g]];
      while (g < n && t[order[g]] == groupThroughput) {
        g++;
      }
      int groupMin = order[groupStart];
      boolean minOnFront = l[groupMin] < best;
      for (int k = groupStart; k < g; k++) {
        int i = order[k];
        if (minOnFront && l[i] == l[groupMin]) {
          dominator[i] = -1;
          front[f++] = i;
        } else {
          // Dominated: by the best of the higher-throughput points if it is at least as fast as this
          // group's fastest (it then dominates that one too), else by this group's fastest.
          dominator[i] = minOnFront ? groupMin : bestIndex;
        }
      }
      if (minOnFront) {
        best = l[groupMin];
        bestIndex = groupMin;
      }
    }
    return new ParetoFront<>(copy, Arrays.copyOf(front, f), dominator);
  }

  /** All points, in input order. */
  public List<ParetoPoint<T>> points() {
    return points;
  }

  /** The front, by throughput descending (so latency descending too); duplicates in input order. */
  public List<ParetoPoint<T>> front() {
    List<ParetoPoint<T>> out = new ArrayList<>(front.length);
    for (int i : front) {
      out.add(points.get(i));
    }
    return Collections.unmodifiableList(out);
  }

  /** Indices (into {@link #points()}) of the front, in {@link #front()} order. */
  public int[] frontIndices() {
    return front.clone();
  }

  /** True when point {@code i} is on the front. */
  public boolean isOnFront(int i) {
    Objects.checkIndex(i, points.size());
    return dominator[i] < 0;
  }

  /**
   * A front point dominating point {@code i}: the one with the lowest latency among all points with
   * at least its throughput (the highest-throughput one when several share that latency), which is
   * always on the front. Empty for points on the front.
   */
  public OptionalInt dominatorOf(int i) {
    Objects.checkIndex(i, points.size());
    return dominator[i] < 0 ? OptionalInt.empty() : OptionalInt.of(dominator[i]);
  }

  /** The dominated points, in input order. */
  public List<ParetoPoint<T>> dominated() {
    List<ParetoPoint<T>> out = new ArrayList<>();
    for (int i = 0; i < points.size(); i++) {
      if (dominator[i] >= 0) {
        out.add(points.get(i));
      }
    }
    return Collections.unmodifiableList(out);
  }

  /** The default reference throughput: 0. */
  public double defaultReferenceThroughput() {
    return 0;
  }

  /**
   * The default reference latency: the worst latency among the <em>front</em>'s points (its
   * highest-throughput point's), ms; 0 when there are no points. Dominated points do not affect it.
   */
  public double defaultReferenceLatencyMillis() {
    return front.length == 0 ? 0 : points.get(front[0]).latencyMillis();
  }

  /**
   * The hypervolume against the default reference (throughput 0, the front's worst latency): a
   * property of the front alone, unchanged by dominated points. To compare fronts, use
   * {@link #hypervolume(double, double)} with one reference for all of them.
   */
  public double hypervolume() {
    return hypervolume(defaultReferenceThroughput(), defaultReferenceLatencyMillis());
  }

  /**
   * The area of the region dominated by the front and bounded by the reference point: all
   * (throughput, latency) with {@code referenceThroughput ≤ throughput ≤ t} and
   * {@code l ≤ latency ≤ referenceLatencyMillis} for some front point (t, l). Front points beyond the
   * reference (throughput at or below the floor, latency at or above the ceiling) add nothing. Exact:
   * a sum over the front, from its lowest throughput up, of width to the previous point times height
   * below the ceiling.
   *
   * @return area in throughput unit × ms, &gt;= 0
   * @throws IllegalArgumentException if either reference coordinate is not finite
   */
  public double hypervolume(double referenceThroughput, double referenceLatencyMillis) {
    if (!Double.isFinite(referenceThroughput) || !Double.isFinite(referenceLatencyMillis)) {
      throw new IllegalArgumentException("reference point must be finite, was (" + referenceThroughput + ", "
          + referenceLatencyMillis + ")");
    }
    double area = 0;
    double previous = referenceThroughput;
    // Ascending throughput: for throughput in (previous, t], the best latency any front point offers is l.
    for (int k = front.length - 1; k >= 0; k--) {
      ParetoPoint<T> p = points.get(front[k]);
      double width = p.throughput() - previous;
      if (width <= 0) {
        continue;
      }
      double height = referenceLatencyMillis - p.latencyMillis();
      if (height <= 0) {
        break; // latencies only grow from here
      }
      area += width * height;
      previous = p.throughput();
    }
    return area;
  }

  /** One line: the front's size, its first points and the default hypervolume with its reference. */
  @Override
  public String toString() {
    String shown = front().stream().limit(5).map(ParetoPoint::toString).collect(Collectors.joining(", "));
    String more = front.length > 5 ? ", ..." : "";
    return String.format(Locale.ROOT, "ParetoFront[%d of %d points on the front: %s%s; hypervolume %.3f below "
        + "(0/s, %.3f ms)]", front.length, points.size(), shown, more, hypervolume(), defaultReferenceLatencyMillis());
  }
}
