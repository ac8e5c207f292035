package io.infermark.core.sweep;

import io.infermark.core.RunListener;
import io.infermark.core.RunResult;
import io.infermark.core.RunStart;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.control.ControlSignal;
import io.infermark.core.control.Knob;
import io.infermark.core.control.PidController;
import io.infermark.core.control.PidBuilder;
import io.infermark.core.control.PidLaw;
import io.infermark.core.control.PrometheusGauge;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PID controller that drives numeric {@link Knob}s, not the request rate, to hold a
 * {@link ControlSignal} at a target: for instance items per request of each modality (image
 * [1, 8], audio [4, 32], text [16, 128]) from a server's queue length and P99 latency, while the
 * load profile sets the rate.
 *
 * <pre>{@code
 * Knob image = Knob.range("image", 1, 8, 4), audio = Knob.range("audio", 4, 32, 16),
 *     text = Knob.range("text", 16, 128, 64);
 * ControlSignal pressure = ControlSignal.worstOf(Map.of(
 *     PrometheusGauge.of(base + "/metrics", "vllm:num_requests_waiting"), 4.0, // queue length 4
 *     ControlSignal.ttftP99(100), 0.5));                                       // P99 TTFT 0.5 s
 * KnobController control = KnobController.builder(pressure, 1.0).knobs(image, audio, text).build();
 * Benchmark.target(t).workload(modalWorkload(image, audio, text)).load(...).listener(control).run();
 * control.trajectory(); // (time, measured, effort, knob values) per step
 * }</pre>
 *
 * <p>The controller's output is an <i>effort</i> {@code u} in [0, 1], computed by the same PID law as
 * {@link PidController} (relative error {@code e = (target − y) / target}; gains in effort per unit
 * of relative error; anti-windup; derivative on the measurement); every knob is set to
 * {@code min + u × (max − min)}. So the knobs must be ones that raise the signal when raised (more
 * items, more load). Register it as the run's listener: it opens the signal when the run starts,
 * updates every interval on its own daemon thread, and stops when the run finishes. One run at a
 * time; its trajectory is kept until the next run starts.
 */
public final class KnobController implements RunListener, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KnobController.class);

  private final ControlSignal signal;
  private final double target;
  private final List<Knob> knobs;
  private final double initialEffort;
  private final double kp;
  private final double ki;
  private final double kd;
  private final Duration interval;

  private ControlSignal.Probe probe;
  private PidLaw law;
  private final List<KnobStep> steps = new ArrayList<>();
  private ScheduledExecutorService executor;

  private KnobController(Builder b) {
    this.signal = b.signal();
    this.target = b.target();
    this.knobs = List.copyOf(b.knobs);
    this.initialEffort = b.initialEffort;
    this.kp = b.kp();
    this.ki = b.ki();
    this.kd = b.kd();
    this.interval = b.interval();
  }

  /**
   * A builder holding {@code signal} at {@code target} (> 0, in the signal's unit). Defaults: initial
   * effort 0.5, gains kp = ki = 0.5, kd = 0, interval 1 s.
   */
  public static Builder builder(ControlSignal signal, double target) {
    return new Builder(signal, target);
  }

  @Override
  public void onRunStarted(RunStart start) {
    begin();
    long origin = start.originNanos();
    ScheduledExecutorService e = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "infermark-knob-controller");
      t.setDaemon(true);
      return t;
    });
    synchronized (this) {
      executor = e;
    }
    long every = interval.toNanos();
    e.scheduleAtFixedRate(() -> {
      try {
        update(start.clock().nanoTime() - origin);
      } catch (RuntimeException ex) {
        LOG.warn("knob controller update failed: {}", ex.toString());
      }
    }, every, every, TimeUnit.NANOSECONDS);
  }

  /** Opens the signal, sets the knobs to the initial effort and starts a new trajectory. */
  synchronized void begin() {
    probe = signal.open();
    law = new PidLaw(target, initialEffort, 0, 1, kp, ki, kd, interval.toNanos());
    steps.clear();
    steps.add(new KnobStep(0, OptionalDouble.empty(), initialEffort, apply(initialEffort)));
  }

  @Override
  public void onRecord(RequestRecord record) {
    ControlSignal.Probe p;
    synchronized (this) {
      p = probe;
    }
    if (p != null) {
      p.onRecord(record);
    }
  }

  /** Reads the signal at {@code elapsedNanos}, sets the knobs, and returns the effort. */
  synchronized double update(long elapsedNanos) {
    if (law == null) {
      throw new IllegalStateException("the controller has not started: register it as the run's listener");
    }
    OptionalDouble y = probe.read(elapsedNanos);
    double effort = law.update(y, elapsedNanos);
    steps.add(new KnobStep(elapsedNanos, y, effort, apply(effort)));
    return effort;
  }

  private Map<String, Double> apply(double effort) {
    Map<String, Double> values = new LinkedHashMap<>();
    for (Knob k : knobs) {
      values.put(k.name(), k.setEffort(effort));
    }
    return values;
  }

  @Override
  public void onRunFinished(RunResult result) {
    stop();
  }

  /** Stops updating; the knobs keep their last values. Idempotent. */
  public void stop() {
    ScheduledExecutorService e;
    synchronized (this) {
      e = executor;
      executor = null;
    }
    if (e != null) {
      e.shutdownNow();
    }
  }

  @Override
  public void close() {
    stop();
  }

  /** The knobs driven. */
  public List<Knob> knobs() {
    return knobs;
  }

  /** The steps of the current (or last) run, the starting point first. */
  public synchronized List<KnobStep> trajectory() {
    return List.copyOf(steps);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "KnobController[%s -> %s, %d knobs, effort %s, kp %s ki %s kd %s, every %s]",
        signal.name(), target, knobs.size(), initialEffort, kp, ki, kd, interval);
  }

  /** Builds a {@link KnobController}. */
  public static final class Builder extends PidBuilder<Builder> {
    private final List<Knob> knobs = new ArrayList<>();
    private double initialEffort = 0.5;

    private Builder(ControlSignal signal, double target) {
      super(signal, target, 0.5, 0.5);
    }

    @Override
    protected Builder self() {
      return this;
    }

    /** Adds knobs to drive (at least one in all). */
    public Builder knobs(Knob... knobs) {
      for (Knob k : knobs) {
        this.knobs.add(Objects.requireNonNull(k, "knob"));
      }
      return this;
    }

    /** The effort to start at, in [0, 1]. */
    public Builder initialEffort(double effort) {
      if (!(effort >= 0 && effort <= 1)) {
        throw new IllegalArgumentException("initialEffort must be in [0, 1], was " + effort);
      }
      this.initialEffort = effort;
      return this;
    }

    /** The controller. */
    public KnobController build() {
      if (knobs.isEmpty()) {
        throw new IllegalStateException("no knobs to drive: call knobs(...)");
      }
      return new KnobController(this);
    }
  }
}
