package io.infermark.core.capture;

import java.util.Arrays;
import java.util.OptionalLong;
import java.util.StringJoiner;

/**
 * When each connection milestone ({@link Phase}) of one request happened, as nanoseconds since the
 * request was sent. Milestones that did not happen (DNS on a pooled connection, TLS on plain HTTP)
 * are absent.
 */
public final class ConnectionPhases {

  private static final Phase[] PHASES = Phase.values();
  private static final ConnectionPhases NONE = new ConnectionPhases(absentArray());

  private final long[] offsets;

  private ConnectionPhases(long[] offsets) {
    this.offsets = offsets;
  }

  /** No milestones recorded. */
  public static ConnectionPhases none() {
    return NONE;
  }

  /** Builds from offsets indexed by {@link Phase#ordinal()}; negative entries mean absent. */
  public static ConnectionPhases of(long[] offsetsByPhase) {
    if (offsetsByPhase.length != PHASES.length) {
      throw new IllegalArgumentException("expected " + PHASES.length + " offsets, got " + offsetsByPhase.length);
    }
    long[] copy = offsetsByPhase.clone();
    for (int i = 0; i < copy.length; i++) {
      if (copy[i] < 0) {
        copy[i] = -1;
      }
    }
    return new ConnectionPhases(copy);
  }

  static long[] absentArray() {
    long[] a = new long[PHASES.length];
    Arrays.fill(a, -1);
    return a;
  }

  /** Nanoseconds from send to the milestone, if it happened. */
  public OptionalLong offsetNanos(Phase phase) {
    long v = offsets[phase.ordinal()];
    return v < 0 ? OptionalLong.empty() : OptionalLong.of(v);
  }

  /** Duration of a pipeline's retrieval stage, if the target had one. */
  public OptionalLong retrievalNanos() {
    return between(Phase.RETRIEVAL_START, Phase.RETRIEVAL_END);
  }

  /** Duration of name resolution, if it happened. */
  public OptionalLong dnsNanos() {
    return between(Phase.DNS_START, Phase.DNS_END);
  }

  /** Duration of connection establishment including TLS, if a new connection was made. */
  public OptionalLong connectNanos() {
    return between(Phase.CONNECT_START, Phase.CONNECT_END);
  }

  /** Duration of the TLS handshake, if there was one. */
  public OptionalLong tlsNanos() {
    return between(Phase.SECURE_CONNECT_START, Phase.SECURE_CONNECT_END);
  }

  /**
   * Duration of the HTTP/2 SETTINGS exchange: from the connection being established
   * ({@link Phase#CONNECT_END}: TCP, and TLS when there is TLS), when the client's preface goes out, to
   * the server's SETTINGS, if a new HTTP/2 connection was made.
   */
  public OptionalLong settingsNanos() {
    long settings = offsets[Phase.SETTINGS_RECEIVED.ordinal()];
    if (settings < 0) {
      return OptionalLong.empty();
    }
    long from = offsets[Phase.CONNECT_END.ordinal()];
    if (from < 0) {
      from = offsets[Phase.SECURE_CONNECT_END.ordinal()];
    }
    if (from < 0) {
      from = offsets[Phase.CONNECT_START.ordinal()];
    }
    return from < 0 ? OptionalLong.empty() : OptionalLong.of(settings - from);
  }

  /** Time from the request being fully written to the first byte of the response headers. */
  public OptionalLong waitingNanos() {
    return between(Phase.REQUEST_SENT, Phase.RESPONSE_HEADERS_START);
  }

  /** True when a connection was acquired without being established for this request. */
  public boolean connectionReused() {
    return offsets[Phase.CONNECTION_ACQUIRED.ordinal()] >= 0 && offsets[Phase.CONNECT_START.ordinal()] < 0;
  }

  /** Offsets indexed by {@link Phase#ordinal()}, -1 for absent; a copy. */
  public long[] toArray() {
    return offsets.clone();
  }

  private OptionalLong between(Phase start, Phase end) {
    long a = offsets[start.ordinal()];
    long b = offsets[end.ordinal()];
    return a < 0 || b < 0 ? OptionalLong.empty() : OptionalLong.of(b - a);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ConnectionPhases p && Arrays.equals(p.offsets, offsets);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(offsets);
  }

  @Override
  public String toString() {
    StringJoiner j = new StringJoiner(", ", "ConnectionPhases[", "]");
    for (Phase p : PHASES) {
      long v = offsets[p.ordinal()];
      if (v >= 0) {
        j.add(p.name().toLowerCase(java.util.Locale.ROOT) + "=" + String.format("%.3fms", v / 1e6));
      }
    }
    return j.toString();
  }
}
