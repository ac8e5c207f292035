package io.infermark.attribution.phase;

import io.infermark.core.capture.ConnectionPhases;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.LatencyMetric;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.function.Function;

/**
 * One request's end-to-end latency split into consecutive {@link LatencyPhase phases} that add up
 * exactly, in integer nanoseconds, to its E2E: {@link io.infermark.metrics.LatencyMetric#E2E} for
 * {@link LatencyBasis#SERVICE_TIME}, {@link io.infermark.metrics.LatencyMetric#E2E_FROM_INTENDED} for
 * {@link LatencyBasis#RESPONSE_TIME}.
 *
 * <h2>How the split is made</h2>
 *
 * <p>The phases telescope: phase {@code i} runs from boundary {@code i−1} to boundary {@code i};
 * boundary {@code −1} is the origin (intended send or send) and the last boundary is the last
 * token-bearing chunk. Each other boundary is the milestone that ends its phase:
 * <table>
 * <caption>Phase end milestones (offsets from send, as the record stores them)</caption>
 * <tr><th>phase</th><th>ends at</th></tr>
 * <tr><td>client_queue</td><td>send (offset 0)</td></tr>
 * <tr><td>retrieval (the {@code *_WITH_RETRIEVAL} bases)</td><td>{@link Phase#RETRIEVAL_END}</td></tr>
 * <tr><td>connect</td><td>{@link Phase#SECURE_CONNECT_START} when present, else {@link Phase#CONNECT_END}</td></tr>
 * <tr><td>tls</td><td>{@link Phase#SECURE_CONNECT_END}</td></tr>
 * <tr><td>settings</td><td>{@link Phase#SETTINGS_RECEIVED} (HTTP/2 only)</td></tr>
 * <tr><td>request_write</td><td>{@link Phase#REQUEST_SENT}</td></tr>
 * <tr><td>waiting</td><td>{@link Phase#RESPONSE_HEADERS_START}</td></tr>
 * <tr><td>first_byte_to_first_token</td><td>the first token-bearing chunk</td></tr>
 * <tr><td>decode</td><td>the last token-bearing chunk (E2E's end)</td></tr>
 * </table>
 *
 * <p>Each boundary is its milestone clamped into {@code [previous boundary, end]}, which keeps every
 * phase non-negative (when the end is not before the origin) and makes the sum exactly
 * {@code end − origin} whatever the record holds:
 * <ul>
 *   <li>An <b>absent</b> milestone is taken to coincide with the previous boundary: its phase has zero
 *       width and its time goes to the next phase whose milestone is present. A pooled connection has
 *       no DNS, connect, TLS or SETTINGS milestones, so connect, TLS and SETTINGS are zero and acquiring the pooled
 *       connection counts as request_write; a target that reports no response-header milestone puts
 *       the server's time to first byte into first_byte_to_first_token.
 *   <li>An <b>out-of-order</b> milestone (earlier than a boundary before it) is moved up to that
 *       boundary: its phase is zero and the time stays with the phase before. A milestone after the
 *       last token is moved back to it, and later phases are zero.
 *   <li>A request sent <b>before</b> its intended time (negative schedule lag) has a zero client queue
 *       and its response time starts at the intended send; the few nanoseconds between send and
 *       intended send are in no phase, exactly as they are in no response time.
 * </ul>
 *
 * <p>Only successful requests with at least one token-bearing chunk have an E2E and so a split
 * ({@link #isDecomposable(RequestRecord)}); warmup and cooldown records can be split (the run-level
 * {@link PhaseDecomposition} skips them). Non-streamed responses arrive as one chunk, so their decode
 * phase is zero.
 *
 * <p>Milliseconds ({@link #millis()}) are each phase's nanoseconds divided by 10^6; their double sum
 * can differ from {@link #totalMillis()} by floating-point rounding, the nanoseconds never do.
 */
public final class RequestPhases {

  private final LatencyBasis basis;
  private final long index;
  private final long[] nanos;
  private final long totalNanos;

  private RequestPhases(LatencyBasis basis, long index, long[] nanos, long totalNanos) {
    this.basis = basis;
    this.index = index;
    this.nanos = nanos;
    this.totalNanos = totalNanos;
  }

  /**
   * Splits one request's latency.
   *
   * @throws IllegalArgumentException if the request failed or carried no token-bearing chunk, so it has
   *     no E2E to split
   */
  public static RequestPhases of(RequestRecord record, LatencyBasis basis) {
    Objects.requireNonNull(record, "record");
    Objects.requireNonNull(basis, "basis");
    if (!record.succeeded()) {
      throw new IllegalArgumentException("request #" + record.index() + " failed (" + record.failure().orElseThrow()
          + "); failed requests have no E2E to split into phases");
    }
    if (record.chunks().tokenChunkCount() == 0) {
      throw new IllegalArgumentException("request #" + record.index()
          + " has no token-bearing chunk, so no E2E to split into phases");
    }
    return split(record, basis);
  }

  /** The split of one request, or empty when it has none (failed, or no token-bearing chunk). */
  public static Optional<RequestPhases> tryOf(RequestRecord record, LatencyBasis basis) {
    Objects.requireNonNull(basis, "basis");
    return isDecomposable(record) ? Optional.of(split(record, basis)) : Optional.empty();
  }

  /** True when the request succeeded and carried a token-bearing chunk, so it has an E2E to split. */
  public static boolean isDecomposable(RequestRecord record) {
    return record.succeeded() && record.chunks().tokenChunkCount() > 0;
  }

  /**
   * A feature extractor for other analyses (Shapley tables, surrogate models): each request's phases
   * in milliseconds, in {@link LatencyBasis#phases()} order, named by {@link LatencyBasis#labels()}.
   * The function throws {@link IllegalArgumentException} for a record {@link #isDecomposable} rejects;
   * filter with it first.
   */
  public static Function<RequestRecord, double[]> extractor(LatencyBasis basis) {
    Objects.requireNonNull(basis, "basis");
    return r -> of(r, basis).millis();
  }

  private static RequestPhases split(RequestRecord r, LatencyBasis basis) {
    ConnectionPhases c = r.phases();
    long end = r.chunks().lastTokenOffsetNanos().getAsLong();
    // Offsets are from the send; the intended send is the schedule lag before it.
    long origin = basis.metric() == LatencyMetric.E2E_FROM_INTENDED ? -r.scheduleLagNanos() : 0;
    List<LatencyPhase> phases = basis.phases();
    long[] out = new long[phases.size()];
    long boundary = origin;
    for (int i = 0; i < out.length; i++) {
      long next = i == out.length - 1 ? end : clamp(milestone(phases.get(i), c, r), boundary, end);
      out[i] = next - boundary;
      boundary = next;
    }
    return new RequestPhases(basis, r.index(), out, end - origin);
  }

  /** The milestone that ends {@code phase} as an offset from send, or {@link Long#MIN_VALUE} when absent. */
  private static long milestone(LatencyPhase phase, ConnectionPhases c, RequestRecord r) {
    return switch (phase) {
      case CLIENT_QUEUE -> 0;
      case RETRIEVAL -> c.offsetNanos(Phase.RETRIEVAL_END).orElse(Long.MIN_VALUE);
      case CONNECT -> c.offsetNanos(Phase.SECURE_CONNECT_START).orElse(c.offsetNanos(Phase.CONNECT_END)
          .orElse(Long.MIN_VALUE));
      case TLS -> c.offsetNanos(Phase.SECURE_CONNECT_END).orElse(Long.MIN_VALUE);
      case SETTINGS -> c.offsetNanos(Phase.SETTINGS_RECEIVED).orElse(Long.MIN_VALUE);
      case REQUEST_WRITE -> c.offsetNanos(Phase.REQUEST_SENT).orElse(Long.MIN_VALUE);
      case WAITING -> c.offsetNanos(Phase.RESPONSE_HEADERS_START).orElse(Long.MIN_VALUE);
      case FIRST_BYTE_TO_FIRST_TOKEN -> r.chunks().firstTokenOffsetNanos().getAsLong();
      case DECODE -> r.chunks().lastTokenOffsetNanos().getAsLong();
    };
  }

  /**
   * An absent milestone ({@code MIN_VALUE}) and one before {@code previous} become {@code previous};
   * one after {@code end} becomes {@code end}. When {@code end < previous} (only when the end precedes
   * the origin), everything collapses onto {@code end}.
   */
  private static long clamp(long milestone, long previous, long end) {
    return Math.min(Math.max(milestone, previous), end);
  }

  /** The basis the split was made on. */
  public LatencyBasis basis() {
    return basis;
  }

  /** The record's position in its run's schedule ({@link RequestRecord#index()}). */
  public long index() {
    return index;
  }

  /** The phases, in order ({@link LatencyBasis#phases()}). */
  public List<LatencyPhase> phases() {
    return basis.phases();
  }

  /**
   * The duration of {@code phase} in nanoseconds.
   *
   * @throws IllegalArgumentException if the basis has no such phase (the client queue in service time)
   */
  public long nanos(LatencyPhase phase) {
    return nanos[checkedIndex(phase)];
  }

  /** The duration of {@code phase} in milliseconds; see {@link #nanos(LatencyPhase)}. */
  public double millis(LatencyPhase phase) {
    return nanos(phase) / 1e6;
  }

  /** Every phase's nanoseconds, in order; a copy. They add up exactly to {@link #totalNanos()}. */
  public long[] nanos() {
    return nanos.clone();
  }

  /** Every phase's milliseconds, in order; a copy. */
  public double[] millis() {
    double[] ms = new double[nanos.length];
    for (int i = 0; i < ms.length; i++) {
      ms[i] = nanos[i] / 1e6;
    }
    return ms;
  }

  /** The latency the phases add up to, in nanoseconds: last token − origin. */
  public long totalNanos() {
    return totalNanos;
  }

  /** The latency the phases add up to, in milliseconds: the value {@link LatencyBasis#metric()} reports. */
  public double totalMillis() {
    return totalNanos / 1e6;
  }

  private int checkedIndex(LatencyPhase phase) {
    int i = basis.indexOf(Objects.requireNonNull(phase, "phase"));
    if (i < 0) {
      throw new IllegalArgumentException(basis + " has no phase " + phase + "; its phases are " + basis.phases());
    }
    return i;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RequestPhases p && p.basis == basis && p.index == index && Arrays.equals(p.nanos, nanos);
  }

  @Override
  public int hashCode() {
    return Objects.hash(basis, index, Arrays.hashCode(nanos));
  }

  @Override
  public String toString() {
    StringJoiner j = new StringJoiner(", ", String.format(Locale.ROOT, "RequestPhases[#%d %s %.3f ms: ", index,
        basis.name().toLowerCase(Locale.ROOT), totalMillis()), "]");
    for (int i = 0; i < nanos.length; i++) {
      j.add(String.format(Locale.ROOT, "%s %.3f", basis.phases().get(i).label(), nanos[i] / 1e6));
    }
    return j.toString();
  }
}
