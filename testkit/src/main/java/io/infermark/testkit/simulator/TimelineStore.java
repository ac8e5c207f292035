package io.infermark.testkit.simulator;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The finished timelines of a simulator, by request id and in arrival order. A request id a
 * client reuses maps to its latest request; {@link #all()} keeps every one.
 */
final class TimelineStore {

  private final Map<String, ServerTimeline> byId = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<ServerTimeline> all = new ConcurrentLinkedQueue<>();

  void publish(ServerTimeline timeline) {
    all.add(timeline);
    byId.merge(timeline.requestId(), timeline,
        (old, fresh) -> fresh.sequence() >= old.sequence() ? fresh : old);
  }

  Optional<ServerTimeline> byId(String requestId) {
    return Optional.ofNullable(byId.get(requestId));
  }

  List<ServerTimeline> all() {
    List<ServerTimeline> list = new ArrayList<>(all);
    list.sort(Comparator.comparingLong(ServerTimeline::sequence));
    return List.copyOf(list);
  }
}
