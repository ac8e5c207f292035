package io.infermark.core.session;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One session: an id, its turns in order, and (for trace replay in open loop) its start offset from the
 * run's origin. Each turn's prompt is the session's real history, every message sent and every reply the
 * server actually gave, followed by the turn's new message.
 *
 * @param id the session's id, put on every record as the {@code session} tag
 * @param turns the turns, at least one
 * @param start when the session starts, from the run's origin (trace replay), or empty
 */
public record Session(String id, List<Turn> turns, Optional<Duration> start) {

  /** Validates and copies. */
  public Session {
    Objects.requireNonNull(id, "id");
    turns = List.copyOf(Objects.requireNonNull(turns, "turns"));
    Objects.requireNonNull(start, "start");
    if (turns.isEmpty()) {
      throw new IllegalArgumentException("session " + id + " has no turns");
    }
    start.ifPresent(s -> {
      if (s.isNegative()) {
        throw new IllegalArgumentException("session " + id + " starts before the run: " + s);
      }
    });
  }

  /** A session without a start offset. */
  public static Session of(String id, List<Turn> turns) {
    return new Session(id, turns, Optional.empty());
  }

  /** This session starting at {@code offset} from the run's origin. */
  public Session startingAt(Duration offset) {
    return new Session(id, turns, Optional.of(offset));
  }

  /** This session with another id. */
  public Session withId(String newId) {
    return new Session(newId, turns, start);
  }

  @Override
  public String toString() {
    return "Session[" + id + ", " + turns.size() + " turns" + start.map(s -> ", at " + s).orElse("") + "]";
  }
}
