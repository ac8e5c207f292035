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
  private static final ConnectionPhases NONE = new ConnectionPhases(0, new byte[0]);

  static {
    if (PHASES.length > Integer.SIZE) {
      throw new ExceptionInInitializerError("Phase outgrew the " + Integer.SIZE + "-bit presence mask");
    }
  }

  /**
   * Which phases happened, bit {@link Phase#ordinal()}; their offsets follow in {@link #data} in ordinal
   * order, each a variable-length integer (three or four bytes for the milliseconds a phase usually takes):
   * a record keeps its milestones in about 40 bytes instead of a long for every phase.
   */
  private final int mask;
  private final byte[] data;

  private ConnectionPhases(int mask, byte[] data) {
    this.mask = mask;
    this.data = data;
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
    int mask = 0;
    byte[] buf = new byte[offsetsByPhase.length * 10];
    int len = 0;
    for (int i = 0; i < offsetsByPhase.length; i++) {
      long v = offsetsByPhase[i];
      if (v < 0) {
        continue;
      }
      mask |= 1 << i;
      while ((v & ~0x7FL) != 0) {
        buf[len++] = (byte) ((v & 0x7F) | 0x80);
        v >>>= 7;
      }
      buf[len++] = (byte) v;
    }
    return mask == 0 ? NONE : new ConnectionPhases(mask, Arrays.copyOf(buf, len));
  }

  static long[] absentArray() {
    long[] a = new long[PHASES.length];
    Arrays.fill(a, -1);
    return a;
  }

  /** The offset of the phase with this ordinal, -1 when absent. */
  private long get(int ordinal) {
    int bit = 1 << ordinal;
    if ((mask & bit) == 0) {
      return -1;
    }
    int pos = 0;
    for (int skip = Integer.bitCount(mask & (bit - 1)); skip > 0; skip--) {
      while ((data[pos++] & 0x80) != 0) {
        // skip one variable-length integer
      }
    }
    long v = 0;
    for (int shift = 0; ; shift += 7) {
      byte b = data[pos++];
      v |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return v;
      }
    }
  }

  /** Nanoseconds from send to the milestone, if it happened. */
  public OptionalLong offsetNanos(Phase phase) {
    long v = get(phase.ordinal());
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
    long settings = get(Phase.SETTINGS_RECEIVED.ordinal());
    if (settings < 0) {
      return OptionalLong.empty();
    }
    long from = get(Phase.CONNECT_END.ordinal());
    if (from < 0) {
      from = get(Phase.SECURE_CONNECT_END.ordinal());
    }
    if (from < 0) {
      from = get(Phase.CONNECT_START.ordinal());
    }
    return from < 0 ? OptionalLong.empty() : OptionalLong.of(settings - from);
  }

  /** Time from the request being fully written to the first byte of the response headers. */
  public OptionalLong waitingNanos() {
    return between(Phase.REQUEST_SENT, Phase.RESPONSE_HEADERS_START);
  }

  /** True when a connection was acquired without being established for this request. */
  public boolean connectionReused() {
    return get(Phase.CONNECTION_ACQUIRED.ordinal()) >= 0 && get(Phase.CONNECT_START.ordinal()) < 0;
  }

  /** Offsets indexed by {@link Phase#ordinal()}, -1 for absent; a copy. */
  public long[] toArray() {
    long[] a = absentArray();
    for (int i = 0; i < a.length; i++) {
      a[i] = get(i);
    }
    return a;
  }

  private OptionalLong between(Phase start, Phase end) {
    long a = get(start.ordinal());
    long b = get(end.ordinal());
    return a < 0 || b < 0 ? OptionalLong.empty() : OptionalLong.of(b - a);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ConnectionPhases p && p.mask == mask && Arrays.equals(p.data, data);
  }

  @Override
  public int hashCode() {
    return 31 * mask + Arrays.hashCode(data);
  }

  @Override
  public String toString() {
    StringJoiner j = new StringJoiner(", ", "ConnectionPhases[", "]");
    for (Phase p : PHASES) {
      long v = get(p.ordinal());
      if (v >= 0) {
        j.add(p.name().toLowerCase(java.util.Locale.ROOT) + "=" + String.format("%.3fms", v / 1e6));
      }
    }
    return j.toString();
  }
}
