package io.infermark.core.control;

import java.time.Duration;
import java.util.Objects;

/**
 * What the builders of every PID-driven controller share ({@link PidController} for a rate, the sweep
 * package's knob controller for an effort): the signal and its target, the gains and the interval, each
 * validated once here.
 *
 * @param <B> the concrete builder, returned by the setters
 */
public abstract class PidBuilder<B extends PidBuilder<B>> {
  private final ControlSignal signal;
  private final double target;
  private double kp;
  private double ki;
  private double kd;
  private Duration interval = Duration.ofSeconds(1);

  /**
   * A builder holding {@code signal} at {@code target} (finite, > 0, in the signal's unit), with these
   * default proportional and integral gains, no derivative gain, and a 1 s interval.
   *
   * @throws IllegalArgumentException if the target is not finite and positive
   */
  protected PidBuilder(ControlSignal signal, double target, double defaultKp, double defaultKi) {
    this.signal = Objects.requireNonNull(signal, "signal");
    if (!(target > 0) || Double.isInfinite(target)) {
      throw new IllegalArgumentException("target must be finite and > 0, was " + target);
    }
    this.target = target;
    this.kp = defaultKp;
    this.ki = defaultKi;
  }

  /** This builder as its concrete type. */
  protected abstract B self();

  /** Proportional, integral (per second) and derivative (seconds) gains, in output per unit relative error. */
  public B gains(double kp, double ki, double kd) {
    PidLaw.checkGains(kp, ki, kd);
    this.kp = kp;
    this.ki = ki;
    this.kd = kd;
    return self();
  }

  /** How often to measure and update, > 0. */
  public B interval(Duration interval) {
    this.interval = PidLaw.checkInterval(interval);
    return self();
  }

  /** The signal held at the target. */
  public final ControlSignal signal() {
    return signal;
  }

  /** The target value of the signal. */
  public final double target() {
    return target;
  }

  /** The proportional gain. */
  public final double kp() {
    return kp;
  }

  /** The integral gain, per second. */
  public final double ki() {
    return ki;
  }

  /** The derivative gain, in seconds. */
  public final double kd() {
    return kd;
  }

  /** Replaces the proportional and integral gains (a builder whose defaults depend on other settings). */
  protected final void defaultGains(double kp, double ki) {
    this.kp = kp;
    this.ki = ki;
  }

  /** The update interval. */
  public final Duration interval() {
    return interval;
  }
}
