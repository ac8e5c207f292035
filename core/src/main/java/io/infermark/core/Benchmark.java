package io.infermark.core;

import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.target.Target;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The fluent entry point: what to send, how, where, and then {@link #run()}.
 *
 * <pre>{@code
 * RunResult result = Benchmark.target(OpenAiTarget.chat("http://localhost:8000/v1", "my-model").build())
 *     .prompts(Prompt.user("Write a haiku about latency."))
 *     .params(GenerationParams.builder().maxTokens(128).ignoreEos(true).build())
 *     .load(LoadProfile.concurrency(16).requests(200))
 *     .run();
 * }</pre>
 *
 * <p>Immutable: every method returns a new benchmark, so one configured benchmark can be run
 * several times or varied. Request {@code i} uses prompt {@code i mod prompts}. The target is not
 * closed by the run; its owner closes it.
 */
public final class Benchmark {

  private final Target target;
  private final List<Prompt> prompts;
  private final GenerationParams params;
  private final LoadProfile load;
  private final boolean captureText;
  private final Clock clock;
  private final List<RunListener> listeners;
  private final boolean retainRecords;

  private Benchmark(Target target, List<Prompt> prompts, GenerationParams params, LoadProfile load,
      boolean captureText, Clock clock, List<RunListener> listeners, boolean retainRecords) {
    this.target = target;
    this.prompts = prompts;
    this.params = params;
    this.load = load;
    this.captureText = captureText;
    this.clock = clock;
    this.listeners = listeners;
    this.retainRecords = retainRecords;
  }

  /** Starts a benchmark of the given target: one request, one stream, default parameters until configured. */
  public static Benchmark target(Target target) {
    Objects.requireNonNull(target, "target");
    return new Benchmark(target, List.of(), GenerationParams.defaults(), LoadProfile.concurrency(1).requests(1),
        false, Clock.system(), List.of(), true);
  }

  /** The prompts to cycle through; at least one. */
  public Benchmark prompts(List<Prompt> prompts) {
    if (prompts.isEmpty()) {
      throw new IllegalArgumentException("the prompt set is empty: give at least one prompt");
    }
    return new Benchmark(target, List.copyOf(prompts), params, load, captureText, clock, listeners, retainRecords);
  }

  /** The prompts to cycle through; at least one. */
  public Benchmark prompts(Prompt... prompts) {
    return prompts(List.of(prompts));
  }

  /** Generation parameters shared by every request. */
  public Benchmark params(GenerationParams params) {
    return new Benchmark(target, prompts, Objects.requireNonNull(params, "params"), load, captureText, clock,
        listeners, retainRecords);
  }

  /** The load profile (default: one request on one stream). */
  public Benchmark load(LoadProfile load) {
    Objects.requireNonNull(load, "load");
    load.validate();
    return new Benchmark(target, prompts, params, load, captureText, clock, listeners, retainRecords);
  }

  /** Keep each response's generated text on its record (off by default: it costs memory). */
  public Benchmark captureText(boolean capture) {
    return new Benchmark(target, prompts, params, load, capture, clock, listeners, retainRecords);
  }

  /** The run's monotonic clock; must be the clock the target stamps events with. */
  public Benchmark clock(Clock clock) {
    return new Benchmark(target, prompts, params, load, captureText, Objects.requireNonNull(clock, "clock"),
        listeners, retainRecords);
  }

  /**
   * Adds a listener that observes the run as it happens (progress, telemetry, streaming summaries);
   * listeners are called in the order they were added.
   */
  public Benchmark listener(RunListener listener) {
    Objects.requireNonNull(listener, "listener");
    List<RunListener> all = new ArrayList<>(listeners);
    all.add(listener);
    return new Benchmark(target, prompts, params, load, captureText, clock, List.copyOf(all), retainRecords);
  }

  /**
   * Whether the result keeps every record (default true). Off, records go only to the listeners and
   * memory stays flat however long the run: use it with a streaming summary for very long runs.
   * The result's schedule statistics are then computed on the fly (lag percentiles from an
   * HdrHistogram, within 0.1 %).
   */
  public Benchmark retainRecords(boolean retain) {
    return new Benchmark(target, prompts, params, load, captureText, clock, listeners, retain);
  }

  /**
   * Runs the benchmark and returns every request's record. Blocks until the load profile's limits
   * are reached and in-flight requests have finished or been cancelled at the drain timeout.
   *
   * @throws IllegalStateException if no prompts were given
   */
  public RunResult run() {
    if (prompts.isEmpty()) {
      throw new IllegalStateException("no prompts: call prompts(...) before run()");
    }
    return new RunEngine(target, prompts, params, load, captureText, clock, new RunListeners(listeners),
        retainRecords).run();
  }

  @Override
  public String toString() {
    return "Benchmark[" + target + ", " + prompts.size() + " prompts, " + params + ", " + load
        + (captureText ? ", capturing text" : "") + (listeners.isEmpty() ? "" : ", " + listeners.size() + " listeners")
        + (retainRecords ? "" : ", records not retained") + "]";
  }
}
