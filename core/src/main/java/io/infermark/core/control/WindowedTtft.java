package io.infermark.core.control;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.stats.QuantileMethod;
import java.util.Arrays;
import java.util.Locale;
import java.util.OptionalDouble;

/** A TTFT percentile over a sliding window of completed requests; see {@link ControlSignal#ttftPercentile}. */
final class WindowedTtft implements ControlSignal {
  private final double p;
  private final int window;

  WindowedTtft(double p, int window) {
    if (!(p >= 0 && p <= 1)) {
      throw new IllegalArgumentException("quantile must be in [0, 1], was " + p);
    }
    if (window < 1) {
      throw new IllegalArgumentException("window must be >= 1 request, was " + window);
    }
    this.p = p;
    this.window = window;
  }

  @Override
  public String name() {
    return String.format(Locale.ROOT, "ttft p%s (s) over %d requests", p * 100, window);
  }

  @Override
  public Probe open() {
    double[] ring = new double[window];
    int[] state = new int[2]; // next slot, filled count
    return new Probe() {
      @Override
      public void onRecord(RequestRecord r) {
        if (!r.measured() || !r.succeeded() || r.chunks().firstTokenOffsetNanos().isEmpty()) {
          return;
        }
        synchronized (ring) {
          ring[state[0]] = r.chunks().firstTokenOffsetNanos().getAsLong() / 1e9;
          state[0] = (state[0] + 1) % window;
          state[1] = Math.min(window, state[1] + 1);
        }
      }

      @Override
      public OptionalDouble read(long elapsedNanos) {
        double[] sorted;
        synchronized (ring) {
          if (state[1] == 0) {
            return OptionalDouble.empty();
          }
          sorted = Arrays.copyOf(ring, state[1]);
        }
        Arrays.sort(sorted);
        return OptionalDouble.of(QuantileMethod.LINEAR.quantile(sorted, p));
      }
    };
  }

  @Override
  public String toString() {
    return "ControlSignal[" + name() + "]";
  }
}
