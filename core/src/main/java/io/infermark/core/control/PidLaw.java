package io.infermark.core.control;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * The PID law shared by {@link PidController} (output: a request rate) and {@code sweep.KnobController}
 * (output: a knob's effort): relative error {@code e = (target − y) / target}, output
 * {@code clamp(initial + kp·e + ki·∫e dt + kd·de/dt, min, max)}, the integral clamped so that its term
 * alone stays within {@code [min − initial, max − initial]} (it cannot wind up while the output is pinned), derivative on the measurement over at least one
 * interval. A missing measurement holds the output. Not thread-safe: callers synchronise.
 */
public final class PidLaw {

  /** Throws unless every gain is finite and {@code >= 0}; shared by the controllers' builders. */
  public static void checkGains(double kp, double ki, double kd) {
    for (double g : new double[] {kp, ki, kd}) {
      if (!(g >= 0) || Double.isInfinite(g)) {
        throw new IllegalArgumentException("gains must be finite and >= 0, were " + kp + ", " + ki + ", " + kd);
      }
    }
  }

  /** Returns {@code interval} if it is positive, else throws; shared by the controllers' builders. */
  public static Duration checkInterval(Duration interval) {
    Objects.requireNonNull(interval, "interval");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("interval must be > 0, was " + interval);
    }
    return interval;
  }


  private final double target;
  private final double initial;
  private final double min;
  private final double max;
  private final double kp;
  private final double ki;
  private final double kd;
  private final double minDerivativeDt;
  private double integral;
  private double lastMeasured = Double.NaN;
  private long lastNanos;
  private double output;

  /** A PID law steering an effort in [min, max] towards {@code target}, stepped every {@code intervalNanos}. */
  public PidLaw(double target, double initial, double min, double max, double kp, double ki, double kd, long intervalNanos) {
    this.target = target;
    this.initial = initial;
    this.min = min;
    this.max = max;
    this.kp = kp;
    this.ki = ki;
    this.kd = kd;
    this.minDerivativeDt = intervalNanos / 1e9;
    this.output = initial;
  }

  /** Reads a measurement taken at {@code elapsedNanos} and returns the new output. */
  public double update(OptionalDouble y, long elapsedNanos) {
    double dt = Math.max(elapsedNanos - lastNanos, 1) / 1e9;
    lastNanos = elapsedNanos;
    if (y.isPresent() && Double.isFinite(y.getAsDouble())) {
      double measured = y.getAsDouble();
      double e = (target - measured) / target;
      // On the measurement (no kick if the target were ever changed) and over at least one
      // interval: back-to-back updates after a stall must not divide a change by microseconds.
      double derivative = Double.isNaN(lastMeasured) ? 0
          : -(measured - lastMeasured) / target / Math.max(dt, minDerivativeDt);
      lastMeasured = measured;
      integral += e * dt;
      double rest = initial + kp * e + kd * derivative;
      if (ki > 0) {
        // Anti-windup: the integral term alone stays within the output's range around the initial value.
        // (Clamping it against the proportional term instead, as before, stored a huge integral of the
        // wrong sign whenever a huge error saturated the output: a signal 245,936 times its target pinned
        // an effort at 0 with an integral of +491,000, and when the error shrank to 5,000 times the target
        // that integral drove the effort to 1.)
        integral = Math.max((min - initial) / ki, Math.min((max - initial) / ki, integral));
      }
      output = Math.max(min, Math.min(max, rest + ki * integral));
    }
    return output;
  }

  /** The current effort. */
  public double output() {
    return output;
  }
}
