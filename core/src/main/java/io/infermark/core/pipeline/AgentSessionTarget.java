package io.infermark.core.pipeline;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.TimeoutPhase;
import io.infermark.core.capture.TokenTimeline;
import io.infermark.core.health.Probe;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import io.infermark.core.time.Clock;
import io.infermark.core.transport.Cancellation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A multi-call agent session as one target: a planning call to the model, then each
 * {@link ToolStep tool call} in order (each with its timeout and fallback), then the answering
 * call with the tools' results, which streams into the record. One request is one session, so the
 * record's TTFT and E2E are the whole session's, from the planning call's send.
 *
 * <pre>{@code
 * Target agent = AgentSessionTarget.builder(OpenAiTarget.chat(url, model).build())
 *     .step(ToolStep.of("search", search, Duration.ofMillis(500)).withFallback(cache))
 *     .step(ToolStep.of("weather", weather, Duration.ofSeconds(1)))
 *     .build();
 * }</pre>
 *
 * <p>Record tags per step ({@code <name>} the step's): {@code agent.<name>.outcome} ({@code ok},
 * {@code timeout}, {@code error}, then {@code +fallback} when the fallback answered, or
 * {@code +fallback-failed}), {@code agent.<name>.ms} (the step's wall time, the wait for a
 * timed-out tool included, in milliseconds), {@code agent.<name>.result} (the result used, at most
 * 256 characters); and {@code agent.plan.ms}. A tool that times out is interrupted. A step that
 * ends without a result (no fallback, or the fallback failed or timed out too) fails the session
 * as a {@link ErrorCategory#TIMEOUT} ({@link TimeoutPhase#STAGE}) or {@link ErrorCategory#CLIENT}
 * error naming the step; a
 * planning call that fails fails the session with its own category. Blocking.
 */
public final class AgentSessionTarget implements Target {

  /** Record tag prefix of the session's steps. */
  public static final String PREFIX = "agent.";

  private final Target generation;
  private final List<ToolStep> steps;
  private final Clock clock;
  private final ExecutorService tools = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "infermark-agent-tool");
    t.setDaemon(true);
    return t;
  });

  private AgentSessionTarget(Builder b) {
    this.generation = b.generation;
    this.steps = List.copyOf(b.steps);
    this.clock = b.clock;
  }

  /** A builder of sessions that call {@code generation} to plan and to answer. */
  public static Builder builder(Target generation) {
    return new Builder(Objects.requireNonNull(generation, "generation"));
  }

  @Override
  public void execute(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
    long start = clock.nanoTime();
    observer.onSend(start);
    RequestRecord plan = call(new InferenceRequest(request.id() + "-plan", request.prompt(), request.params()),
        cancellation);
    observer.onAnnotation(PREFIX + "plan.ms", ms(plan.endOffsetNanos()));
    if (!plan.succeeded()) {
      Failure f = plan.failure().orElseThrow();
      observer.onFailure(Failure.of(f.category(), "planning call failed: " + f.message()), clock.nanoTime());
      return;
    }
    List<String> results = new ArrayList<>();
    for (ToolStep step : steps) {
      if (cancellation.isCancelled()) {
        observer.onFailure(Failure.of(ErrorCategory.CANCELLED, "cancelled before tool step " + step.name()),
            clock.nanoTime());
        return;
      }
      long t0 = clock.nanoTime();
      Outcome primary = run(step.tool(), request.prompt().text(), step.timeout().toNanos());
      String outcome = primary.kind;
      String result = primary.result;
      Outcome last = primary;
      if (result == null && step.fallback().isPresent()) {
        Outcome fb = run(step.fallback().get(), request.prompt().text(), step.timeout().toNanos());
        outcome += fb.result != null ? "+fallback" : "+fallback-failed";
        result = fb.result;
        last = fb;
      }
      observer.onAnnotation(PREFIX + step.name() + ".outcome", outcome);
      observer.onAnnotation(PREFIX + step.name() + ".ms", ms(clock.nanoTime() - t0));
      if (result == null) {
        String message = "tool step " + step.name() + " ended without a result (" + outcome
            + (last.error == null ? "" : ": " + last.error) + ")";
        observer.onFailure(last.kind.equals("timeout") ? Failure.timeout(TimeoutPhase.STAGE, message)
            : Failure.of(ErrorCategory.CLIENT, message), clock.nanoTime());
        return;
      }
      observer.onAnnotation(PREFIX + step.name() + ".result", result.length() > 256 ? result.substring(0, 256) : result);
      results.add(step.name() + ": " + result);
    }
    List<Message> messages = new ArrayList<>();
    messages.add(Message.system("Tool results:\n" + String.join("\n", results)));
    messages.addAll(request.prompt().messages());
    Prompt answer = Prompt.chat(messages);
    for (Map.Entry<String, String> t : request.prompt().tags().entrySet()) {
      answer = answer.withTag(t.getKey(), t.getValue());
    }
    generation.execute(new InferenceRequest(request.id(), answer, request.params()), observer, cancellation);
  }

  private static String ms(long nanos) {
    return String.format(java.util.Locale.ROOT, "%.3f", nanos / 1e6);
  }

  /** An intermediate model call, recorded on its own timeline. */
  private RequestRecord call(InferenceRequest request, Cancellation cancellation) {
    AtomicReference<RequestRecord> out = new AtomicReference<>();
    long now = clock.nanoTime();
    TokenTimeline timeline = TokenTimeline.builder(clock).requestId(request.id()).originNanos(now).intendedNanos(now)
        .sendNanos(now).onDone(out::set).build();
    try {
      generation.execute(request, timeline, cancellation);
    } catch (RuntimeException e) {
      timeline.onFailure(Failure.of(ErrorCategory.CLIENT, "target threw " + e), clock.nanoTime());
    }
    if (!timeline.isDone()) {
      timeline.onFailure(Failure.of(ErrorCategory.CLIENT, "target returned without reporting an outcome"),
          clock.nanoTime());
    }
    return out.get();
  }

  /** How one tool call went: {@code ok} with a result, or {@code timeout}/{@code error} without. */
  private record Outcome(String kind, String result, String error) {}

  private Outcome run(Tool tool, String input, long timeoutNanos) {
    Future<String> f = tools.submit(() -> tool.call(input));
    try {
      String r = f.get(timeoutNanos, TimeUnit.NANOSECONDS);
      return r == null ? new Outcome("error", null, "the tool returned null") : new Outcome("ok", r, null);
    } catch (TimeoutException e) {
      f.cancel(true);
      return new Outcome("timeout", null, null);
    } catch (ExecutionException e) {
      return new Outcome("error", null, String.valueOf(e.getCause()));
    } catch (InterruptedException e) {
      f.cancel(true);
      Thread.currentThread().interrupt();
      return new Outcome("error", null, "interrupted");
    }
  }

  @Override
  public void prepare(int maxInFlight) {
    generation.prepare(maxInFlight);
  }

  @Override
  public List<Probe> healthProbes() {
    return generation.healthProbes();
  }

  @Override
  public void close() {
    tools.shutdownNow();
    generation.close();
  }

  @Override
  public String toString() {
    return "AgentSessionTarget[plan, " + steps + ", answer, on " + generation + "]";
  }

  /** Collects an {@link AgentSessionTarget}'s steps. */
  public static final class Builder {
    private final Target generation;
    private final List<ToolStep> steps = new ArrayList<>();
    private Clock clock = Clock.system();

    private Builder(Target generation) {
      this.generation = generation;
    }

    /** Adds a tool call after the ones added before. */
    public Builder step(ToolStep step) {
      Objects.requireNonNull(step, "step");
      if (steps.stream().anyMatch(s -> s.name().equals(step.name()))) {
        throw new IllegalArgumentException("tool step '" + step.name() + "' is already in the session");
      }
      steps.add(step);
      return this;
    }

    /** The clock the session is timed on: the run's ({@link Clock#system()} by default). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /** The target. */
    public AgentSessionTarget build() {
      if (steps.isEmpty()) {
        throw new IllegalStateException("an agent session needs at least one tool step: call step(...)");
      }
      return new AgentSessionTarget(this);
    }
  }
}
