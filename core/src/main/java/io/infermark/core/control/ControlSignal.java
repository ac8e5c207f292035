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

  /**
   * On-time transactions per second (seed 003 §2.3's TPS counted only within its SLA latency, closer to
   * goodput; the seed's TPS itself counts every completed transaction): successful measured requests
   * that completed within the last {@code window} (counted at their completion, send + end offset) and
   * whose E2E (last token-bearing chunk − send) was at most {@code sla}; 0 when none did. A request
   * that failed or took longer than the SLA is not a transaction the service delivered.
   *
   * @throws IllegalArgumentException if the window or the SLA latency is not positive
   */
  static ControlSignal transactionsPerSecond(Duration window, Duration sla) {
    return new TransactionsPerSecond(window, sla);
  }

  /**
   * The most loaded of several signals, each relative to its own target: {@code max(y_i / target_i)}
   * over the signals that have a value (empty when none has). Hold it at 1.0 to keep every signal at
   * or under its target, e.g. a server's queue length and P99 TTFT together.
   *
   * @throws IllegalArgumentException if no signal is given or a target is not finite and &gt; 0
   */
  static ControlSignal worstOf(java.util.Map<ControlSignal, Double> targets) {
    Objects.requireNonNull(targets, "targets");
    if (targets.isEmpty()) {
      throw new IllegalArgumentException("give at least one signal and its target");
    }
    java.util.List<java.util.Map.Entry<ControlSignal, Double>> entries = java.util.List.copyOf(targets.entrySet());
    StringBuilder name = new StringBuilder("max of (");
    for (java.util.Map.Entry<ControlSignal, Double> e : entries) {
      double t = e.getValue();
      if (!(t > 0) || Double.isInfinite(t)) {
        throw new IllegalArgumentException("target of " + e.getKey().name() + " must be finite and > 0, was " + t);
      }
      name.append(name.length() > 8 ? ", " : "").append(e.getKey().name()).append(" / ").append(t);
    }
    String n = name.append(')').toString();
    return new ControlSignal() {
      @Override
      public String name() {
        return n;
      }

      @Override
      public Probe open() {
        java.util.List<Probe> probes = entries.stream().map(e -> e.getKey().open()).toList();
        return new Probe() {
          @Override
          public void onRecord(RequestRecord record) {
            for (Probe p : probes) {
              p.onRecord(record);
            }
          }

          @Override
          public OptionalDouble read(long elapsedNanos) {
            double worst = Double.NaN;
            for (int i = 0; i < probes.size(); i++) {
              OptionalDouble y = probes.get(i).read(elapsedNanos);
              if (y.isPresent() && Double.isFinite(y.getAsDouble())) {
                double r = y.getAsDouble() / entries.get(i).getValue();
                worst = Double.isNaN(worst) ? r : Math.max(worst, r);
              }
            }
            return Double.isNaN(worst) ? OptionalDouble.empty() : OptionalDouble.of(worst);
          }
        };
      }

      @Override
      public String toString() {
        return "ControlSignal[" + n + "]";
      }
    };
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
