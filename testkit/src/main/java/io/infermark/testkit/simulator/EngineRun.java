package io.infermark.testkit.simulator;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What a {@link VirtualEngine} run produced: every request's timeline, in submission order, the
 * engine's final statistics, and when the last step ended.
 */
public final class EngineRun {

  private final List<SequenceTimeline> timelines;
  private final EngineStats stats;
  private final long endNanos;

  EngineRun(List<SequenceTimeline> timelines, EngineStats stats, long endNanos) {
    this.timelines = List.copyOf(timelines);
    this.stats = stats;
    this.endNanos = endNanos;
  }

  /** Every request's timeline, in submission order. */
  public List<SequenceTimeline> timelines() {
    return timelines;
  }

  /**
   * The timeline of request {@code id}.
   *
   * @throws IllegalArgumentException if no request had that id
   */
  public SequenceTimeline timeline(String id) {
    return find(id).orElseThrow(() -> new IllegalArgumentException("no request with id '" + id + "' was run"));
  }

  private Optional<SequenceTimeline> find(String id) {
    return timelines.stream().filter(t -> t.id().equals(id)).findFirst();
  }

  /** The engine's counters at the end of the run. */
  public EngineStats stats() {
    return stats;
  }

  /** Virtual time when the last step ended. */
  public long endNanos() {
    return endNanos;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "EngineRun{%d requests, %.3f s virtual, %s}", timelines.size(),
        endNanos / 1e9, stats);
  }
}
