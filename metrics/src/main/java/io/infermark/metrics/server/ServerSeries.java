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
