package io.infermark.attribution.phase;

import io.infermark.metrics.LatencyMetric;
import java.util.List;

/**
 * Where a request's latency starts, and so which phases it splits into. Both end at the last
 * token-bearing chunk, where {@link LatencyMetric#E2E} ends.
 */
public enum LatencyBasis {

  /**
   * From the actual send: the service time, {@link LatencyMetric#E2E}. Seven phases, from
   * {@link LatencyPhase#CONNECT} to {@link LatencyPhase#DECODE}; the client queue is not part of it.
   */
  SERVICE_TIME(LatencyMetric.E2E, List.of(LatencyPhase.CONNECT, LatencyPhase.TLS, LatencyPhase.SETTINGS,
      LatencyPhase.REQUEST_WRITE, LatencyPhase.WAITING, LatencyPhase.FIRST_BYTE_TO_FIRST_TOKEN, LatencyPhase.DECODE)),

  /**
   * From the intended send: the response time a user of the schedule saw, free of coordinated
   * omission, {@link LatencyMetric#E2E_FROM_INTENDED}. Eight phases, starting with
   * {@link LatencyPhase#CLIENT_QUEUE} (the schedule lag).
   */
  RESPONSE_TIME(LatencyMetric.E2E_FROM_INTENDED, List.of(LatencyPhase.CLIENT_QUEUE, LatencyPhase.CONNECT,
      LatencyPhase.TLS, LatencyPhase.SETTINGS, LatencyPhase.REQUEST_WRITE, LatencyPhase.WAITING,
      LatencyPhase.FIRST_BYTE_TO_FIRST_TOKEN, LatencyPhase.DECODE)),

  /**
   * {@link #SERVICE_TIME} for a pipeline target
   * ({@link io.infermark.core.pipeline.RetrievalTarget}): {@link LatencyPhase#RETRIEVAL} first, then
   * the generation request's seven phases. In the plain basis, retrieval time would land in the first
   * generation phase whose milestone is present (connect, or request_write on a reused connection).
   */
  SERVICE_TIME_WITH_RETRIEVAL(LatencyMetric.E2E, List.of(LatencyPhase.RETRIEVAL, LatencyPhase.CONNECT,
      LatencyPhase.TLS, LatencyPhase.SETTINGS, LatencyPhase.REQUEST_WRITE, LatencyPhase.WAITING,
      LatencyPhase.FIRST_BYTE_TO_FIRST_TOKEN, LatencyPhase.DECODE)),

  /** {@link #RESPONSE_TIME} for a pipeline target: the client queue, retrieval, then generation's phases. */
  RESPONSE_TIME_WITH_RETRIEVAL(LatencyMetric.E2E_FROM_INTENDED, List.of(LatencyPhase.values()));

  private final LatencyMetric metric;
  private final List<LatencyPhase> phases;
  private final List<String> labels;

  LatencyBasis(LatencyMetric metric, List<LatencyPhase> phases) {
    this.metric = metric;
    this.phases = phases;
    this.labels = phases.stream().map(LatencyPhase::label).toList();
  }

  /** The latency metric the phases of this basis add up to. */
  public LatencyMetric metric() {
    return metric;
  }

  /** The phases, in the order they happen; unmodifiable. */
  public List<LatencyPhase> phases() {
    return phases;
  }

  /** The phases' {@link LatencyPhase#label() labels} in order: the names of {@link RequestPhases#millis()}'s values. */
  public List<String> labels() {
    return labels;
  }

  /** The position of {@code phase} in {@link #phases()}, or -1 when this basis does not have it. */
  public int indexOf(LatencyPhase phase) {
    return phases.indexOf(phase);
  }
}
