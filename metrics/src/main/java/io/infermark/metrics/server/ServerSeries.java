package io.infermark.metrics.server;

import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * One server metric sampled during a run: the values of a {@link SeriesSelector}, each at the time
 * (nanoseconds from the run's origin, on the run's clock) its scrape was taken, so it lines up with
 * the run's own time series. Immutable.
 */
public final class ServerSeries {

  private final String name;
  private final long[] timesNanos;
  private final double[] values;
  private final long[] fromNanos;
  private final long[] toNanos;

  /**
   * A series.
   *
   * @param name display name, e.g. {@code vllm:num_requests_running}
   * @param timesNanos sample times from the run's origin, ascending
   * @param values one value per time
   * @throws IllegalArgumentException if the arrays differ in length or the times are not ascending
   */
  public ServerSeries(String name, long[] timesNanos, double[] values) {
    this.name = Objects.requireNonNull(name, "name");
    if (timesNanos.length != values.length) {
      throw new IllegalArgumentException("times (" + timesNanos.length + ") and values (" + values.length
          + ") must have the same length");
    }
    for (int i = 1; i < timesNanos.length; i++) {
      if (timesNanos[i] < timesNanos[i - 1]) {
        throw new IllegalArgumentException("times must be ascending; " + timesNanos[i] + " follows "
            + timesNanos[i - 1]);
      }
    }
    this.timesNanos = timesNanos.clone();
    this.values = values.clone();
    this.fromNanos = this.timesNanos;
    this.toNanos = this.timesNanos;
  }

  /**
   * A series whose samples each carry the span in which the server read them: the scrape's request was
   * sent at {@code fromNanos[i]} and its response read at {@code toNanos[i]}, so the value is the
   * server's at some instant in between (its stamp {@code timesNanos[i]} being the midpoint).
   *
   * @throws IllegalArgumentException if the arrays differ in length, the times are not ascending or a
   *     time is outside its span
   */
  public ServerSeries(String name, long[] timesNanos, double[] values, long[] fromNanos, long[] toNanos) {
    this.name = Objects.requireNonNull(name, "name");
    if (timesNanos.length != values.length || fromNanos.length != values.length || toNanos.length != values.length) {
      throw new IllegalArgumentException("times (" + timesNanos.length + "), values (" + values.length + ") and spans ("
          + fromNanos.length + ", " + toNanos.length + ") must have the same length");
    }
    for (int i = 0; i < timesNanos.length; i++) {
      if (i > 0 && timesNanos[i] < timesNanos[i - 1]) {
        throw new IllegalArgumentException("times must be ascending; " + timesNanos[i] + " follows "
            + timesNanos[i - 1]);
      }
      if (fromNanos[i] > timesNanos[i] || timesNanos[i] > toNanos[i]) {
        throw new IllegalArgumentException("sample " + i + " at " + timesNanos[i] + " is outside its span ["
            + fromNanos[i] + ", " + toNanos[i] + "]");
      }
    }
    this.timesNanos = timesNanos.clone();
    this.values = values.clone();
    this.fromNanos = fromNanos.clone();
    this.toNanos = toNanos.clone();
  }

  /** The display name. */
  public String name() {
    return name;
  }

  /** Number of samples. */
  public int size() {
    return values.length;
  }

  /** Sample time i in nanoseconds from the run's origin. */
  public long timeNanos(int i) {
    return timesNanos[i];
  }

  /** When sample i's scrape was sent (the server read the value no earlier); its time when unknown. */
  public long fromNanos(int i) {
    return fromNanos[i];
  }

  /** When sample i's scrape was answered (the server read the value no later); its time when unknown. */
  public long toNanos(int i) {
    return toNanos[i];
  }

  /** Value i. */
  public double value(int i) {
    return values[i];
  }

  /** The last value, if any. */
  public OptionalDouble latest() {
    return values.length == 0 ? OptionalDouble.empty() : OptionalDouble.of(values[values.length - 1]);
  }

  /** The largest finite value, if any. */
  public OptionalDouble max() {
    return Arrays.stream(values).filter(Double::isFinite).max();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ServerSeries s && s.name.equals(name) && Arrays.equals(s.timesNanos, timesNanos)
        && Arrays.equals(s.values, values);
  }

  @Override
  public int hashCode() {
    return name.hashCode() * 31 + Arrays.hashCode(values);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "ServerSeries[%s, %d samples%s]", name, values.length,
        latest().isPresent() ? String.format(Locale.ROOT, ", latest %s", latest().getAsDouble()) : "");
  }
}
