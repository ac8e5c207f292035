package io.infermark.testkit.simulator;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The finished timelines of a simulator, by request id and in arrival order, keeping at most
 * {@code retention} of them: the oldest published is dropped first, so a long-running simulator's
 * memory stays bounded. A request id a client reuses maps to its latest request.
 */
final class TimelineStore {

  private final int retention;
  private final ArrayDeque<ServerTimeline> kept = new ArrayDeque<>();
  private final Map<String, ServerTimeline> byId = new HashMap<>();
  private long dropped;

  TimelineStore(int retention) {
    this.retention = retention;
  }

  synchronized void publish(ServerTimeline timeline) {
    if (kept.size() == retention) {
      ServerTimeline oldest = kept.pollFirst();
      byId.remove(oldest.requestId(), oldest);
      dropped++;
    }
    kept.addLast(timeline);
    byId.merge(timeline.requestId(), timeline, (old, fresh) -> fresh.sequence() >= old.sequence() ? fresh : old);
  }

  synchronized Optional<ServerTimeline> byId(String requestId) {
    return Optional.ofNullable(byId.get(requestId));
  }

  /** The kept timelines in arrival order. */
  List<ServerTimeline> all() {
    List<ServerTimeline> list;
    synchronized (this) {
      list = new ArrayList<>(kept);
    }
    list.sort(Comparator.comparingLong(ServerTimeline::sequence));
    return List.copyOf(list);
  }

  /** The kept timelines of requests numbered {@code sequence} or later, in arrival order. */
  List<ServerTimeline> since(long sequence) {
    List<ServerTimeline> list = new ArrayList<>();
    synchronized (this) {
      for (ServerTimeline t : kept) {
        if (t.sequence() >= sequence) {
          list.add(t);
        }
      }
    }
    list.sort(Comparator.comparingLong(ServerTimeline::sequence));
    return List.copyOf(list);
  }

  /** Timelines dropped to respect the retention limit. */
  synchronized long dropped() {
    return dropped;
  }
}
