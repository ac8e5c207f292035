package io.infermark.core.control;

import io.infermark.core.capture.RequestRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * A PID controller that adjusts the offered rate to hold a {@link ControlSignal} at a target
 * (P99 TTFT, queue length, tokens/s: any signal that rises with load).
 *
 * <pre>{@code
 * PidController pid = PidController.builder(ControlSignal.ttftP99(200), 0.5)   // hold P99 TTFT at 0.5 s
 *     .initialRate(10).rateRange(1, 200).gains(20, 10, 0).interval(Duration.ofSeconds(2)).build();
 * Benchmark.target(t).prompts(p).load(LoadProfile.controlled(pid).duration(Duration.ofMinutes(5))).run()
 *     .control(); // the trajectory: (time, measured, rate) per step
 * }</pre>
 *
 * <p>Every interval it reads the signal {@code y} and computes the relative error
 * {@code e = (target − y) / target} (positive means room for more load), then
 * {@code rate = clamp(initialRate + kp·e + ki·∫e dt + kd·de/dt, minRate, maxRate)} with {@code dt}
 * in seconds. Gains are therefore in requests/s per unit of relative error. The integral is
 * clamped so that its term alone stays within {@code [minRate − initialRate, maxRate − initialRate]}
 * (anti-windup: a long stay at a bound stores no more than the whole range, whatever the proportional term does). The
 * derivative acts on the measurement, not the error ({@code de/dt = −(dy/dt) / target}), from the
 * second measured step on, and its {@code dt} is never shorter than the interval: when the engine
 * catches up after a stall with several updates back to back, a change in the signal is divided by
 * the interval rather than by microseconds, so it cannot swing the rate from bound to bound. With
 * no measurement (nothing completed yet) the rate is held. Immutable; each run gets a fresh state.
 */
public final class PidController implements RateController {

  private final ControlSignal signal;
  private final double target;
  private final double initialRate;
  private final double minRate;
  private final double maxRate;
  private final double kp;
  private final double ki;
  private final double kd;
  private final Duration interval;

  private PidController(Builder b) {
    this.signal = b.signal();
    this.target = b.target();
    this.initialRate = b.initialRate;
    this.minRate = b.minRate;
    this.maxRate = b.maxRate;
    this.kp = b.kp();
    this.ki = b.ki();
    this.kd = b.kd();
    this.interval = b.interval();
  }

  /**
   * A builder holding {@code signal} at {@code target} (in the signal's unit, > 0). Defaults:
   * initial rate 1 req/s, range [0.1, 1000] req/s, gains kp = ki = initial rate, kd = 0, interval 1 s.
   */
  public static Builder builder(ControlSignal signal, double target) {
    return new Builder(signal, target);
  }

  /** The signal held at the target. */
  public ControlSignal signal() {
    return signal;
  }

  /** The target value of the signal. */
  public double target() {
    return target;
  }

  @Override
  public double initialRate() {
    return initialRate;
  }

  @Override
  public Duration interval() {
    return interval;
  }

  @Override
  public Loop start() {
    return new PidLoop(signal.open());
  }

  private final class PidLoop implements Loop {
    private final ControlSignal.Probe probe;
    private final List<ControlStep> steps = new ArrayList<>();
    private final PidLaw law = new PidLaw(target, initialRate, minRate, maxRate, kp, ki, kd, interval.toNanos());

    PidLoop(ControlSignal.Probe probe) {
      this.probe = probe;
      steps.add(new ControlStep(0, OptionalDouble.empty(), initialRate));
    }

    @Override
    public void onRecord(RequestRecord record) {
      probe.onRecord(record);
    }

    @Override
    public synchronized double update(long elapsedNanos) {
      OptionalDouble y = probe.read(elapsedNanos);
      double rate = law.update(y, elapsedNanos);
      steps.add(new ControlStep(elapsedNanos, y, rate));
      return rate;
    }

    @Override
    public synchronized List<ControlStep> trajectory() {
      return List.copyOf(steps);
    }
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "PidController[%s -> %s, rate %s in [%s, %s], kp %s ki %s kd %s, every %s]",
        signal.name(), target, initialRate, minRate, maxRate, kp, ki, kd, interval);
  }

  /** Builds a {@link PidController}. */
  public static final class Builder extends PidBuilder<Builder> {
    private double initialRate = 1;
    private double minRate = 0.1;
    private double maxRate = 1000;

    private Builder(ControlSignal signal, double target) {
      super(signal, target, Double.NaN, Double.NaN);
    }

    @Override
    protected Builder self() {
      return this;
    }

    /** The rate to start at, requests/s, > 0. */
    public Builder initialRate(double rate) {
      if (!(rate > 0) || Double.isInfinite(rate)) {
        throw new IllegalArgumentException("initialRate must be finite and > 0, was " + rate);
      }
      this.initialRate = rate;
      return this;
    }

    /** Bounds of the offered rate, requests/s: {@code 0 <= min < max}, finite. */
    public Builder rateRange(double min, double max) {
      if (!(min >= 0) || !(max > min) || Double.isInfinite(max)) {
        throw new IllegalArgumentException("rate range must satisfy 0 <= min < max < infinity, was [" + min + ", "
            + max + "]");
      }
      this.minRate = min;
      this.maxRate = max;
      return this;
    }

    /** Returns the controller. */
    public PidController build() {
      if (initialRate < minRate || initialRate > maxRate) {
        throw new IllegalArgumentException("initialRate " + initialRate + " is outside the rate range [" + minRate
            + ", " + maxRate + "]");
      }
      if (Double.isNaN(kp())) {
        defaultGains(initialRate, initialRate);
      }
      return new PidController(this);
    }
  }
}
