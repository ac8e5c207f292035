package io.infermark.testkit.simulator;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Runs the simulator's serving engine in virtual time: no threads, no sleeping, no HTTP. Submit
 * requests with their arrival times, {@link #run()}, and read every request's
 * {@link SequenceTimeline} and the engine's {@link EngineStats}. The same engine code drives a
 * {@link Simulator} in real time, so what holds here (queueing, batching cost, KV pressure,
 * preemption, prefix-cache savings) is what a client of the HTTP simulator sees, minus the network.
 *
 * <pre>{@code
 * EngineRun run = VirtualEngine.of(EngineProfile.llama8bH200())
 *     .submit(EngineRequest.of("a", Duration.ZERO, 512, 128))
 *     .submit(EngineRequest.of("b", Duration.ofMillis(3), 512, 128))
 *     .run();
 * long ttftNanos = run.timeline("b").timeToFirstTokenNanos().getAsLong();
 * }</pre>
 *
 * <p>Deterministic: the same profile and requests give the same timelines, bit for bit. An idle
 * engine starts a step the moment a request arrives; a busy one takes arrivals at its next step.
 * Requests arriving at the same time queue in submission order.
 */
public final class VirtualEngine {

  private final EngineProfile profile;
  private final List<EngineRequest> requests;

  private VirtualEngine(EngineProfile profile, List<EngineRequest> requests) {
    this.profile = profile;
    this.requests = requests;
  }

  /** An engine with {@code profile} and no requests yet. */
  public static VirtualEngine of(EngineProfile profile) {
    return new VirtualEngine(Objects.requireNonNull(profile, "profile"), List.of());
  }

  /**
   * This engine with one more request.
   *
   * @throws IllegalArgumentException if the request can never fit the KV cache, or its id is taken
   */
  public VirtualEngine submit(EngineRequest request) {
    Objects.requireNonNull(request, "request");
    String why = new Engine(profile).rejection(request.promptTokens(), request.outputTokens());
    if (why != null) {
      throw new IllegalArgumentException("request " + request.id() + " cannot be served: " + why);
    }
    for (EngineRequest r : requests) {
      if (r.id().equals(request.id())) {
        throw new IllegalArgumentException("request id '" + request.id() + "' was already submitted");
      }
    }
    List<EngineRequest> more = new ArrayList<>(requests);
    more.add(request);
    return new VirtualEngine(profile, List.copyOf(more));
  }

  /** This engine with all of {@code requests} added, in order. */
  public VirtualEngine submitAll(List<EngineRequest> requests) {
    VirtualEngine e = this;
    for (EngineRequest r : requests) {
      e = e.submit(r);
    }
    return e;
  }

  /** Runs until every request has finished and returns what happened. */
  public EngineRun run() {
    List<EngineRequest> byArrival = new ArrayList<>(requests);
    byArrival.sort(Comparator.comparingLong(EngineRequest::arrivalNanos)); // stable: ties keep submission order
    Engine engine = new Engine(profile);
    Map<String, Sequence> sequences = new LinkedHashMap<>();
    int next = 0;
    Engine.Step step = null;
    long now = 0;
    while (true) {
      long arrival = next < byArrival.size() ? byArrival.get(next).arrivalNanos() : Long.MAX_VALUE;
      if (step != null) {
        if (arrival <= step.endNanos()) {
          next = arrive(engine, byArrival.get(next), sequences, next);
          continue;
        }
        now = step.endNanos();
        engine.complete(step, now);
        step = null;
      } else if (engine.idle()) {
        if (arrival == Long.MAX_VALUE) {
          break;
        }
        now = arrival;
        next = arrive(engine, byArrival.get(next), sequences, next);
        continue;
      }
      while (next < byArrival.size() && byArrival.get(next).arrivalNanos() <= now) {
        next = arrive(engine, byArrival.get(next), sequences, next);
      }
      step = engine.plan(now);
      if (step == null && engine.idle()) {
        continue;
      }
      if (step == null) {
        throw new IllegalStateException("engine cannot make progress with " + engine.waiting()
            + " waiting requests; this is a simulator defect");
      }
    }
    List<SequenceTimeline> timelines = new ArrayList<>();
    for (EngineRequest r : requests) {
      timelines.add(sequences.get(r.id()).timeline());
    }
    return new EngineRun(timelines, engine.stats(), now);
  }

  private int arrive(Engine engine, EngineRequest r, Map<String, Sequence> sequences, int index) {
    Sequence s = new Sequence(r.id(), r.arrivalNanos(), r.promptTokens(), r.outputTokens(),
        r.blockHashes(profile.blockSize(), 0), Sequence.NO_LISTENER);
    sequences.put(r.id(), s);
    engine.add(s, r.arrivalNanos());
    return index + 1;
  }

  @Override
  public String toString() {
    return "VirtualEngine{" + profile.name() + ", " + requests.size() + " requests}";
  }
}
