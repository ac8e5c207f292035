package io.infermark.attribution.drift;

import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.LatencyMetric;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Drift within one run: its records split into fixed time windows by send time, each window compared
 * with the first (has the run moved away from where it started?) or with the one before it (did it
 * jump somewhere?).
 *
 * <pre>{@code
 * for (WindowDrift w : DriftWindows.compare(run.records(), LatencyMetric.TTFT, Duration.ofSeconds(30),
 *     DriftWindows.Reference.FIRST, DriftOptions.defaults())) {
 *   System.out.println(w);
 * }
 * }</pre>
 *
 * <p>{@link #split} starts windows at the earliest send time among the records that were sent
 * (never-sent records are left out) and covers up to the latest, each {@code width} long; a window
 * with no records is kept so that indices stay proportional to time. {@link #compare} compares values
 * of measured, successful records ({@link Drift#valuesMillis}), so it splits only the
 * {@link RequestRecord#measured() measured} records: its windows start at the first measured send,
 * not at the warmup's first, so that a warmup as long as a window cannot leave window 0 — the
 * reference of {@link Reference#FIRST} — without values and every later window without a report.
 */
public final class DriftWindows {

  /** The most windows {@link #split} makes, so that a tiny width cannot exhaust memory. */
  public static final int MAX_WINDOWS = 1_000_000;

  /** Which window each one is compared with. */
  public enum Reference {
    /** The first window: cumulative drift since the start. */
    FIRST,
    /** The window before: step changes between neighbours. */
    PREVIOUS
  }

  private DriftWindows() {}

  /**
   * Splits the sent records into windows of {@code width} by send time.
   *
   * @return the windows in time order; empty when no record was sent
   * @throws IllegalArgumentException if width is not positive, or would make more than {@link #MAX_WINDOWS}
   */
  public static List<TimeWindow> split(List<RequestRecord> records, Duration width) {
    Objects.requireNonNull(records, "records");
    Objects.requireNonNull(width, "width");
    long w;
    try {
      w = width.toNanos();
    } catch (ArithmeticException e) {
      w = Long.MAX_VALUE;
    }
    if (w <= 0) {
      throw new IllegalArgumentException("window width must be > 0, was " + width);
    }
    long first = Long.MAX_VALUE;
    long last = Long.MIN_VALUE;
    for (RequestRecord r : records) {
      if (r.wasSent()) {
        first = Math.min(first, r.sendNanos());
        last = Math.max(last, r.sendNanos());
      }
    }
    if (first == Long.MAX_VALUE) {
      return List.of();
    }
    long count = (last - first) / w + 1;
    if (count > MAX_WINDOWS) {
      throw new IllegalArgumentException("window width " + width + " splits " + (last - first) + " ns of sends into "
          + count + " windows, more than " + MAX_WINDOWS + "; use a wider window");
    }
    List<List<RequestRecord>> buckets = new ArrayList<>((int) count);
    for (int i = 0; i < count; i++) {
      buckets.add(new ArrayList<>());
    }
    for (RequestRecord r : records) {
      if (r.wasSent()) {
        buckets.get((int) ((r.sendNanos() - first) / w)).add(r);
      }
    }
    List<TimeWindow> out = new ArrayList<>((int) count);
    for (int i = 0; i < count; i++) {
      long start = first + i * w;
      out.add(new TimeWindow(i, start, saturatedAdd(start, w), buckets.get(i)));
    }
    return List.copyOf(out);
  }

  private static long saturatedAdd(long a, long b) {
    long s = a + b;
    return ((a ^ s) & (b ^ s)) < 0 ? Long.MAX_VALUE : s;
  }

  /**
   * Splits the measured records (warmup and cooldown left out) into windows from the first measured
   * send, and compares each window after the first with its reference (window 0 for
   * {@link Reference#FIRST}, window k−1 for {@link Reference#PREVIOUS}). A comparison needs at least
   * 2 values on both sides; {@link WindowDrift#toString()} says which side had too few.
   *
   * @return one entry per window from the second on; empty when there are fewer than two windows
   */
  public static List<WindowDrift> compare(List<RequestRecord> records, LatencyMetric metric, Duration width,
      Reference reference, DriftOptions options) {
    Objects.requireNonNull(metric, "metric");
    Objects.requireNonNull(reference, "reference");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(records, "records");
    List<TimeWindow> windows = split(records.stream().filter(RequestRecord::measured).toList(), width);
    List<double[]> values = new ArrayList<>(windows.size());
    for (TimeWindow w : windows) {
      values.add(Drift.valuesMillis(w.records(), metric));
    }
    List<WindowDrift> out = new ArrayList<>();
    for (int k = 1; k < windows.size(); k++) {
      int ref = reference == Reference.FIRST ? 0 : k - 1;
      double[] base = values.get(ref);
      double[] cur = values.get(k);
      Optional<DriftReport> report = base.length >= 2 && cur.length >= 2
          ? Optional.of(Drift.compare(base, cur, options)) : Optional.empty();
      out.add(new WindowDrift(windows.get(k), ref, cur.length, base.length, report));
    }
    return List.copyOf(out);
  }
}
