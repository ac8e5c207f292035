package io.infermark.testkit.simulator;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How the simulator models loading the model's weights: a cold start delays the first request by
 * a load time, and an idle timeout unloads the model again (scale to zero) so the next request
 * waits for another load.
 *
 * <pre>{@code
 * SimulatorConfig.builder().coldStart(ColdStart.onFirstRequest(Duration.ofMillis(300))
 *     .scaleToZeroAfter(Duration.ofSeconds(5)))
 * }</pre>
 *
 * <p>Model (times on the simulator's {@code System.nanoTime} clock): a load starts when the
 * simulator starts ({@link #atStart}, as vLLM loads before it serves) or when a request arrives and
 * the model is not loaded ({@link #onFirstRequest}, as Ollama loads on demand); it ends
 * {@link #loadTime()} later. A request arriving at {@code a} while a load that ends at {@code r}
 * is under way reaches the engine at {@code r}: its TTFT is {@code (r - a)} plus the warm TTFT, and
 * its {@linkplain SequenceTimeline#loadDurationNanos() load duration} is {@code r - a} (Ollama
 * reports it as {@code load_duration}, in nanoseconds; 0 for a warm request). {@code GET /health}
 * answers 503 while a load is under way and 200 otherwise. With {@link #scaleToZeroAfter}, the
 * model unloads once no request has been in the engine for that long; the next request starts a
 * load. Immutable.
 *
 * @param loadTime how long a load takes, > 0
 * @param loadAtStart whether the first load starts with the simulator rather than at the first request
 * @param idleTimeout how long the model may stay idle before it unloads; zero for never
 */
public record ColdStart(Duration loadTime, boolean loadAtStart, Duration idleTimeout) {

  /** Validates. */
  public ColdStart {
    Objects.requireNonNull(loadTime, "loadTime");
    Objects.requireNonNull(idleTimeout, "idleTimeout");
    if (loadTime.isNegative() || loadTime.isZero()) {
      throw new IllegalArgumentException("loadTime must be > 0, was " + loadTime + "; leave the cold start out "
          + "for a model that is always loaded");
    }
    if (idleTimeout.isNegative()) {
      throw new IllegalArgumentException("idleTimeout must be >= 0 (0 = never unload), was " + idleTimeout);
    }
  }

  /** The model loads when the simulator starts, taking {@code loadTime}; requests meanwhile wait. */
  public static ColdStart atStart(Duration loadTime) {
    return new ColdStart(loadTime, true, Duration.ZERO);
  }

  /** The model loads when the first request arrives, taking {@code loadTime}. */
  public static ColdStart onFirstRequest(Duration loadTime) {
    return new ColdStart(loadTime, false, Duration.ZERO);
  }

  /** This cold start, unloading the model after {@code idle} without a request in the engine. */
  public ColdStart scaleToZeroAfter(Duration idle) {
    Objects.requireNonNull(idle, "idle");
    if (idle.isNegative() || idle.isZero()) {
      throw new IllegalArgumentException("the scale-to-zero timeout must be > 0, was " + idle);
    }
    return new ColdStart(loadTime, loadAtStart, idle);
  }

  /** The idle time after which the model unloads, if it does. */
  public Optional<Duration> scaleToZero() {
    return idleTimeout.isZero() ? Optional.empty() : Optional.of(idleTimeout);
  }

  @Override
  public String toString() {
    return "ColdStart{load " + loadTime.toNanos() / 1e6 + "ms " + (loadAtStart ? "at start" : "on first request")
        + (idleTimeout.isZero() ? "" : ", scale to zero after " + idleTimeout.toNanos() / 1e6 + "ms") + "}";
  }
}
