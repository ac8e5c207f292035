package io.infermark.attribution.phase;

import static io.infermark.attribution.phase.PhaseRecords.at;
import static io.infermark.attribution.phase.PhaseRecords.content;
import static io.infermark.attribution.phase.PhaseRecords.ms;
import static io.infermark.attribution.phase.PhaseRecords.record;
import static io.infermark.core.capture.ChunkTimeline.UNKNOWN_TOKENS;
import static io.infermark.core.capture.Phase.CONNECTION_ACQUIRED;
import static io.infermark.core.capture.Phase.CONNECT_END;
import static io.infermark.core.capture.Phase.CONNECT_START;
import static io.infermark.core.capture.Phase.DNS_END;
import static io.infermark.core.capture.Phase.DNS_START;
import static io.infermark.core.capture.Phase.REQUEST_SENT;
import static io.infermark.core.capture.Phase.RESPONSE_HEADERS_END;
import static io.infermark.core.capture.Phase.RESPONSE_HEADERS_START;
import static io.infermark.core.capture.Phase.SECURE_CONNECT_END;
import static io.infermark.core.capture.Phase.SETTINGS_RECEIVED;
import static io.infermark.core.capture.Phase.SECURE_CONNECT_START;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ConnectionPhases;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.LatencyMetric;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RequestPhasesTest {

  /** A new TLS connection, a streamed response, sent 5 ms late. Every phase is non-zero. */
  private static RequestRecord tlsStreamed() {
    return RequestRecord.builder().index(3).intendedNanos(ms(100)).sendNanos(ms(105))
        .phases(PhaseRecords.milestones(at(DNS_START, 0.1, DNS_END, 1, CONNECT_START, 1, SECURE_CONNECT_START, 3,
            SECURE_CONNECT_END, 8, CONNECT_END, 8.2, CONNECTION_ACQUIRED, 8.3, REQUEST_SENT, 9,
            RESPONSE_HEADERS_START, 50, RESPONSE_HEADERS_END, 50.5)))
        .httpStatus(200)
        .chunks(ChunkTimeline.builder()
            .add(ms(51), ChunkKind.ROLE, UNKNOWN_TOKENS)
            .add(ms(60), ChunkKind.CONTENT, UNKNOWN_TOKENS)
            .add(ms(70), ChunkKind.CONTENT, UNKNOWN_TOKENS)
            .add(ms(80), ChunkKind.CONTENT, UNKNOWN_TOKENS)
            .add(ms(81), ChunkKind.USAGE, UNKNOWN_TOKENS)
            .build())
        .endOffsetNanos(ms(82)).build();
  }

  @Test
  void newTlsConnectionSplitsIntoEveryPhaseByHand() {
    RequestPhases p = RequestPhases.of(tlsStreamed(), LatencyBasis.SERVICE_TIME);

    // connect: send -> TLS start 3; tls 3 -> 8; no SETTINGS (HTTP/1.1); request write 8 -> 9 (connect end,
    // acquisition, writing);
    // waiting 9 -> 50; first byte -> first token 50 -> 60; decode 60 -> 80.
    assertThat(p.nanos()).containsExactly(ms(3), ms(5), 0, ms(1), ms(41), ms(10), ms(20));
    assertThat(p.millis()).containsExactly(3.0, 5.0, 0.0, 1.0, 41.0, 10.0, 20.0);
    assertThat(p.totalNanos()).isEqualTo(ms(80));
    assertThat(p.millis(LatencyPhase.WAITING)).isEqualTo(41.0);
    assertThat(p.phases()).containsExactly(LatencyPhase.CONNECT, LatencyPhase.TLS, LatencyPhase.SETTINGS,
        LatencyPhase.REQUEST_WRITE, LatencyPhase.WAITING, LatencyPhase.FIRST_BYTE_TO_FIRST_TOKEN, LatencyPhase.DECODE);
    assertThat(p.index()).isEqualTo(3);
  }

  @Test
  void responseTimeAddsTheScheduleLagAsClientQueue() {
    RequestPhases p = RequestPhases.of(tlsStreamed(), LatencyBasis.RESPONSE_TIME);

    assertThat(p.nanos()).containsExactly(ms(5), ms(3), ms(5), 0, ms(1), ms(41), ms(10), ms(20));
    assertThat(p.totalNanos()).isEqualTo(ms(85));
    assertThat(p.millis(LatencyPhase.CLIENT_QUEUE)).isEqualTo(5.0);
  }

  @Test
  void serviceTimeHasNoClientQueue() {
    RequestPhases p = RequestPhases.of(tlsStreamed(), LatencyBasis.SERVICE_TIME);

    assertThatThrownBy(() -> p.nanos(LatencyPhase.CLIENT_QUEUE)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("SERVICE_TIME has no phase CLIENT_QUEUE");
  }

  @Test
  void totalsEqualTheMetricsModulesE2eOnBothBases() {
    RequestRecord r = tlsStreamed();

    assertThat(RequestPhases.of(r, LatencyBasis.SERVICE_TIME).totalMillis())
        .isEqualTo(LatencyMetric.E2E.valuesMillis(r)[0]);
    assertThat(RequestPhases.of(r, LatencyBasis.RESPONSE_TIME).totalMillis())
        .isEqualTo(LatencyMetric.E2E_FROM_INTENDED.valuesMillis(r)[0]);
    assertThat(LatencyBasis.SERVICE_TIME.metric()).isEqualTo(LatencyMetric.E2E);
    assertThat(LatencyBasis.RESPONSE_TIME.metric()).isEqualTo(LatencyMetric.E2E_FROM_INTENDED);
  }

  @Test
  void pooledConnectionHasZeroConnectAndTlsAndAcquisitionCountsAsRequestWrite() {
    // A non-streamed response on a reused connection: one content chunk when the body arrives.
    RequestRecord r = record(0, 0, 0, at(CONNECTION_ACQUIRED, 0.2, REQUEST_SENT, 0.5, RESPONSE_HEADERS_START, 30,
        RESPONSE_HEADERS_END, 30.1), content(30.4));

    RequestPhases p = RequestPhases.of(r, LatencyBasis.SERVICE_TIME);

    assertThat(p.nanos()).containsExactly(0, 0, 0, ms(0.5), ms(29.5), ms(0.4), 0);
    assertThat(p.totalNanos()).isEqualTo(ms(30.4));
  }

  @Test
  void anHttp2ConnectionPutsTheSettingsRoundTripInItsOwnPhase() {
    // h2 over TLS: TCP 0 -> 3, TLS 3 -> 8, connection established at 8 (the preface goes out), the server's
    // SETTINGS at 10.5, the stream opened and written by 11, headers at 40
    RequestRecord r = record(0, 0, 0, at(CONNECT_START, 0, SECURE_CONNECT_START, 3, SECURE_CONNECT_END, 8,
        CONNECT_END, 8, SETTINGS_RECEIVED, 10.5, CONNECTION_ACQUIRED, 10.6, REQUEST_SENT, 11,
        RESPONSE_HEADERS_START, 40), content(45, 60));

    RequestPhases p = RequestPhases.of(r, LatencyBasis.SERVICE_TIME);
    assertThat(p.nanos()).containsExactly(ms(3), ms(5), ms(2.5), ms(0.5), ms(29), ms(5), ms(15));
    assertThat(p.millis(LatencyPhase.SETTINGS)).isEqualTo(2.5);
    assertThat(r.phases().settingsNanos()).hasValue(ms(2.5));
  }

  @Test
  void plainHttpConnectionHasConnectButNoTls() {
    RequestRecord r = record(0, 0, 0, at(CONNECT_START, 0.5, CONNECT_END, 2, CONNECTION_ACQUIRED, 2.1,
        REQUEST_SENT, 2.5, RESPONSE_HEADERS_START, 10), content(15, 25));

    assertThat(RequestPhases.of(r, LatencyBasis.SERVICE_TIME).nanos())
        .containsExactly(ms(2), 0, 0, ms(0.5), ms(7.5), ms(5), ms(10));
  }

  @Test
  void missingHeaderMilestoneGivesZeroWaitingAndTheTimeToTheNextPhase() {
    // A host-side target that reports only the request write: time to first byte cannot be told apart.
    RequestRecord r = record(0, 0, 0, at(REQUEST_SENT, 1), content(20, 30));

    assertThat(RequestPhases.of(r, LatencyBasis.SERVICE_TIME).nanos())
        .containsExactly(0, 0, 0, ms(1), 0, ms(19), ms(10));
  }

  @Test
  void noMilestonesAtAllPutsSendToFirstTokenInFirstByteToFirstToken() {
    RequestRecord r = record(0, 0, 0, Map.of(), content(12, 40));

    assertThat(RequestPhases.of(r, LatencyBasis.SERVICE_TIME).nanos()).containsExactly(0, 0, 0, 0, 0, ms(12), ms(28));
  }

  @Test
  void outOfOrderMilestoneIsMovedUpToThePreviousBoundary() {
    // The server answered before the upload finished: headers at 10, first token at 11, request written at 12.
    RequestRecord r = record(0, 0, 0, at(REQUEST_SENT, 12, RESPONSE_HEADERS_START, 10), content(11, 20));

    RequestPhases p = RequestPhases.of(r, LatencyBasis.SERVICE_TIME);

    // request_write keeps 0 -> 12; waiting and first byte -> first token collapse to zero; decode 12 -> 20.
    assertThat(p.nanos()).containsExactly(0, 0, 0, ms(12), 0, 0, ms(8));
    assertThat(Arrays.stream(p.nanos()).sum()).isEqualTo(ms(20));
  }

  @Test
  void milestoneAfterTheLastTokenIsMovedBackToIt() {
    RequestRecord r = record(0, 0, 0, at(REQUEST_SENT, 1, RESPONSE_HEADERS_START, 25), content(5, 20));

    assertThat(RequestPhases.of(r, LatencyBasis.SERVICE_TIME).nanos()).containsExactly(0, 0, 0, ms(1), ms(19), 0, 0);
  }

  @Test
  void requestSentEarlyHasZeroQueueAndStartsAtTheIntendedTime() {
    // Sent 1 ms before its intended time: response time is E2E - 1 ms, and the phases still add up to it.
    RequestRecord r = record(0, 200, 199, at(REQUEST_SENT, 0.5, RESPONSE_HEADERS_START, 10), content(15, 20));

    RequestPhases p = RequestPhases.of(r, LatencyBasis.RESPONSE_TIME);

    assertThat(p.nanos()).containsExactly(0, 0, 0, 0, 0, ms(9), ms(5), ms(5));
    assertThat(p.totalMillis()).isEqualTo(LatencyMetric.E2E_FROM_INTENDED.valuesMillis(r)[0]).isEqualTo(19.0);
  }

  @Test
  void phasesSumExactlyToE2eWhateverTheMilestones() {
    SplittableRandom random = new SplittableRandom(7);
    Phase[] all = Phase.values();
    for (int trial = 0; trial < 2000; trial++) {
      long[] offsets = new long[all.length];
      for (int i = 0; i < all.length; i++) {
        offsets[i] = random.nextInt(3) == 0 ? -1 : random.nextLong(0, 400_000_000L);
      }
      ChunkTimeline.Builder chunks = ChunkTimeline.builder();
      long t = random.nextLong(0, 400_000_000L);
      int n = random.nextInt(1, 6);
      for (int i = 0; i < n; i++) {
        chunks.add(t, ChunkKind.CONTENT, UNKNOWN_TOKENS);
        t += random.nextLong(0, 50_000_000L);
      }
      long send = 1_000_000_000L;
      long lag = random.nextInt(4) == 0 ? -random.nextLong(0, 1_000_000L) : random.nextLong(0, 300_000_000L);
      RequestRecord r = RequestRecord.builder().intendedNanos(send - lag).sendNanos(send)
          .phases(ConnectionPhases.of(offsets)).chunks(chunks.build()).endOffsetNanos(t).build();

      for (LatencyBasis basis : LatencyBasis.values()) {
        RequestPhases p = RequestPhases.of(r, basis);
        long last = r.chunks().lastTokenOffsetNanos().getAsLong();
        long expected = basis.metric() == LatencyMetric.E2E_FROM_INTENDED ? last + lag : last;
        assertThat(Arrays.stream(p.nanos()).sum()).as("trial %d %s", trial, basis).isEqualTo(expected);
        assertThat(p.totalNanos()).isEqualTo(expected);
        if (expected >= 0) { // the documented promise: no negative phase unless the end precedes the origin
          assertThat(Arrays.stream(p.nanos()).min().getAsLong()).as("trial %d %s", trial, basis).isNotNegative();
        }
      }
    }
  }

  @Test
  void failedAndTokenlessRequestsHaveNoSplit() {
    RequestRecord failed = RequestRecord.builder().index(4).chunks(content(5))
        .failure(Optional.of(Failure.of(ErrorCategory.RESET, "connection reset"))).build();
    RequestRecord tokenless = RequestRecord.builder().index(5)
        .chunks(ChunkTimeline.builder().add(ms(2), ChunkKind.ROLE, UNKNOWN_TOKENS).build()).build();

    assertThat(RequestPhases.isDecomposable(failed)).isFalse();
    assertThat(RequestPhases.tryOf(tokenless, LatencyBasis.SERVICE_TIME)).isEmpty();
    assertThatThrownBy(() -> RequestPhases.of(failed, LatencyBasis.SERVICE_TIME))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("request #4 failed");
    assertThatThrownBy(() -> RequestPhases.of(tokenless, LatencyBasis.SERVICE_TIME))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("request #5 has no token-bearing chunk");
  }

  @Test
  void extractorGivesMillisInLabelOrder() {
    var extract = RequestPhases.extractor(LatencyBasis.RESPONSE_TIME);

    assertThat(extract.apply(tlsStreamed())).containsExactly(5.0, 3.0, 5.0, 0.0, 1.0, 41.0, 10.0, 20.0);
    assertThat(LatencyBasis.RESPONSE_TIME.labels()).containsExactly("client_queue", "connect", "tls", "settings",
        "request_write", "waiting", "first_byte_to_first_token", "decode");
  }

  @Test
  void toStringIsOneLineWithEveryPhase() {
    assertThat(RequestPhases.of(tlsStreamed(), LatencyBasis.SERVICE_TIME).toString()).isEqualTo(
        "RequestPhases[#3 service_time 80.000 ms: connect 3.000, tls 5.000, settings 0.000, request_write 1.000, "
            + "waiting 41.000, first_byte_to_first_token 10.000, decode 20.000]");
  }
}
