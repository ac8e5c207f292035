package io.infermark.core.sweep;

import io.infermark.core.health.ClientHealth;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * What a capacity search found.
 *
 * @param capacity the highest rate whose run met the SLO with a client that was not CLIENT_BOUND; empty
 *     if none did down to the minimum rate
 * @param limitedByMaxRate true when even the maximum rate passed, so the real capacity is higher
 * @param probes every run, in the order they were made
 * @param stoppedEarly why the search ended before it could bracket and refine the capacity (a client-bound
 *     probe, a stop, an interrupted run, the time limit); empty when it ran to its end. The capacity is then
 *     the highest passing rate found so far, a lower bound
 * @param axis what the search varied: a request rate (the capacity in req/s) or a closed-loop concurrency (the
 *     capacity in streams, a whole number; "rate" in the other names then means the level)
 */
public record CapacityResult(OptionalDouble capacity, boolean limitedByMaxRate, List<CapacityProbe> probes,
    Optional<String> stoppedEarly, CapacityAxis axis) {

  /** Copies. */
  public CapacityResult {
    probes = List.copyOf(probes);
    Objects.requireNonNull(capacity, "capacity");
    Objects.requireNonNull(stoppedEarly, "stoppedEarly");
    Objects.requireNonNull(axis, "axis");
  }

  /** A rate search, ended as {@code stoppedEarly} says. */
  public CapacityResult(OptionalDouble capacity, boolean limitedByMaxRate, List<CapacityProbe> probes,
      Optional<String> stoppedEarly) {
    this(capacity, limitedByMaxRate, probes, stoppedEarly, CapacityAxis.RATE);
  }

  /** A rate search that ran to its end. */
  public CapacityResult(OptionalDouble capacity, boolean limitedByMaxRate, List<CapacityProbe> probes) {
    this(capacity, limitedByMaxRate, probes, Optional.empty());
  }

  /** How many runs the search made. */
  public int runs() {
    return probes.size();
  }

  /**
   * The probes whose client was CLIENT_BOUND, in order. Their SLO outcome was not accepted as a pass, so the
   * capacity found may be the client's limit rather than the server's.
   */
  public List<CapacityProbe> clientBoundProbes() {
    return probes.stream().filter(p -> p.clientHealth().isClientBound()).toList();
  }

  /**
   * One sentence per client-bound probe, e.g. {@code "64 req/s met the SLO but was not accepted: the client
   * was CLIENT_BOUND (hiccup p99 12.3 ms > 10 ms: ...)"}; empty when no probe's client was.
   */
  public List<String> warnings() {
    List<String> lines = new ArrayList<>();
    for (CapacityProbe p : clientBoundProbes()) {
      ClientHealth h = p.clientHealth();
      lines.add(String.format(Locale.ROOT, "%s %s: the client was CLIENT_BOUND (%s)", level(p.rate()),
          p.sloMet() ? "met the SLO but was not accepted" : "failed the SLO, perhaps by the client's fault",
          h.reasonText()));
    }
    return List.copyOf(lines);
  }

  /** A level in words: {@code 12.5 req/s} or {@code 8 streams}. */
  private String level(double level) {
    return axis == CapacityAxis.CONCURRENCY ? String.format(Locale.ROOT, "%d streams", (long) level)
        : String.format(Locale.ROOT, "%.4g req/s", level);
  }

  @Override
  public String toString() {
    List<CapacityProbe> bound = clientBoundProbes();
    return String.format(Locale.ROOT, "CapacityResult[%s%s in %d runs%s%s]",
        axis == CapacityAxis.CONCURRENCY ? "concurrency " : "",
        capacity.isPresent() ? level(capacity.getAsDouble()) : "no passing " + axis.word(),
        probes.size(), (limitedByMaxRate ? ", limited by the maximum rate" : "")
            + stoppedEarly.map(w -> ", stopped early: " + w).orElse(""),
        bound.isEmpty() ? "" : ", " + bound.size() + " client-bound run" + (bound.size() == 1 ? "" : "s")
            + " not accepted as passing: " + bound.get(0).clientHealth().reasonText());
  }
}
