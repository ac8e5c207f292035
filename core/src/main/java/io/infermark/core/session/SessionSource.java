package io.infermark.core.session;

import java.util.List;
import java.util.OptionalLong;

/**
 * Where a run's sessions come from: session {@code i} is a function of {@code i} alone (so runs are
 * reproducible), generated ({@link SyntheticSessions}) or read from a session trace.
 */
public interface SessionSource {

  /** Session {@code index}, from 0. */
  Session session(long index);

  /** How many sessions there are, or empty when the source generates as many as asked. */
  OptionalLong size();

  /**
   * The most calls one session has in flight at once (its widest fan-out), so the engine sizes the
   * transport's connection pool for concurrent sessions times this; 1 unless the source says otherwise.
   */
  default int maxParallelCalls() {
    return 1;
  }

  /** A fixed list of sessions, session {@code i} being {@code sessions.get(i)}. */
  static SessionSource of(List<Session> sessions) {
    List<Session> copy = List.copyOf(sessions);
    if (copy.isEmpty()) {
      throw new IllegalArgumentException("no sessions");
    }
    return new SessionSource() {
      @Override
      public Session session(long index) {
        return copy.get((int) (index % copy.size()));
      }

      @Override
      public OptionalLong size() {
        return OptionalLong.of(copy.size());
      }

      @Override
      public String toString() {
        return copy.size() + " sessions";
      }
    };
  }
}
