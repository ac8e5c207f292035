package io.infermark.core.control;

import io.infermark.core.capture.RequestRecord;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.function.LongFunction;

/**
 * A measurement a {@link RateController} steers by: built from the run's own records (a TTFT
 * percentile, output tokens/s) or supplied by the caller (a server's queue length from its
 * Prometheus endpoint, see {@link PrometheusGauge}). Each run {@link #open() opens} a fresh probe,
 * so one signal can serve several runs.
 */
public interface ControlSignal {

  /** A short name with the unit, e.g. {@code "ttft p99 (s)"}. */
  String name();

  /** Starts measuring for one run. */
  Probe open();

  /** The per-run state of a signal. */
  interface Probe {

    /** A record has ended (called serially, under the engine's lock: keep it short). */
    default void onRecord(RequestRecord record) {}

    /** The current value, or empty when there is nothing to measure yet. */
    OptionalDouble read(long elapsedNanos);
  }

  /**
   * The {@code p}-quantile (linear interpolation) of time to first token, in seconds, over the
   * last {@code window} successful measured requests to complete; empty until one has.
   */
  static ControlSignal ttftPercentile(double p, int window) {
    return new WindowedTtft(p, window);
  }

  /** P99 TTFT in seconds over the last {@code window} completed successful requests. */
  static ControlSignal ttftP99(int window) {
    return ttftPercentile(0.99, window);
  }

  /**
   * Output tokens per second of successful measured requests that completed within the last
   * {@code window} (each request's tokens counted at its completion); 0 when none did.
   */
  static ControlSignal outputTokensPerSecond(Duration window) {
    return new TokensPerSecond(window);
  }

  /** A caller-supplied signal read from the run's elapsed nanoseconds (thread-safe, non-blocking). */
  static ControlSignal of(String name, LongFunction<OptionalDouble> reader) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(reader, "reader");
    return new ControlSignal() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public Probe open() {
        return reader::apply;
      }

      @Override
      public String toString() {
        return "ControlSignal[" + name + "]";
      }
    };
  }
}
