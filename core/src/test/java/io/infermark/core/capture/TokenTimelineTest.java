package io.infermark.core.capture;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TokenTimelineTest {

  /** A clock the test sets by hand. */
  private static final class ManualClock implements Clock {
    long now;

    @Override
    public long nanoTime() {
      return now;
    }
  }

  private final ManualClock clock = new ManualClock();

  private TokenTimeline timeline(List<RequestRecord> done) {
    clock.now = 1_000_000;
    return TokenTimeline.builder(clock).index(7).requestId("r-7").tags(Map.of("class", "A")).warmup(false)
        .originNanos(0).intendedNanos(900_000).sendNanos(1_000_000).onDone(done::add).build();
  }

  @Test
  void reportedSendMovesTheSendTimeSoClientDelayIsScheduleLagNotLatency() {
    List<RequestRecord> done = new ArrayList<>();
    TokenTimeline t = timeline(done); // intended 0.9 ms, handed to the target at 1.0 ms
    t.onSend(1_400_000); // the first byte reached the socket 0.4 ms later
    t.onPhase(Phase.REQUEST_SENT, 1_450_000);
    t.onResponseHeaders(200, 1_600_000);
    t.onChunk(2_400_000, ChunkKind.CONTENT, 1);
    t.onSend(2_500_000); // a late or repeated report changes nothing
    t.onComplete(2_500_000);

    RequestRecord r = t.record().orElseThrow();
    assertThat(r.sendNanos()).isEqualTo(1_400_000);
    assertThat(r.scheduleLagNanos()).isEqualTo(500_000);
    assertThat(r.phases().offsetNanos(Phase.REQUEST_SENT)).hasValue(50_000);
    assertThat(r.phases().offsetNanos(Phase.RESPONSE_HEADERS_END)).hasValue(200_000);
    assertThat(r.chunks().firstTokenOffsetNanos()).hasValue(1_000_000);
    assertThat(r.endOffsetNanos()).isEqualTo(1_100_000);
  }

  @Test
  void aSendReportedBeforeTheTimelineWasBuiltNeverMovesTheSendEarlier() {
    List<RequestRecord> done = new ArrayList<>();
    TokenTimeline t = timeline(done);
    t.onSend(950_000);
    t.onChunk(2_000_000, ChunkKind.CONTENT, 1);
    t.onComplete(2_000_000);
    assertThat(t.record().orElseThrow().sendNanos()).isEqualTo(1_000_000);
  }

  @Test
  void recordHoldsOffsetsFromSendAndTimesFromOrigin() {
    List<RequestRecord> done = new ArrayList<>();
    TokenTimeline t = timeline(done);
    t.onPhase(Phase.CONNECT_START, 1_000_100);
    t.onPhase(Phase.CONNECT_END, 1_000_600);
    t.onResponseHeaders(200, 1_500_000);
    t.onChunk(2_000_000, ChunkKind.ROLE, 0);
    t.onChunk(3_000_000, ChunkKind.CONTENT, 1);
    t.onChunk(4_000_000, ChunkKind.CONTENT, 1);
    t.onUsage(Usage.builder().promptTokens(9).build());
    t.onUsage(Usage.builder().completionTokens(2).totalTokens(11).build());
    t.onFinishReason("stop");
    t.onServerTiming("eval_duration", 123.0);
    t.onComplete(4_100_000);

    RequestRecord r = t.record().orElseThrow();
    assertThat(done).containsExactly(r);
    assertThat(r.index()).isEqualTo(7);
    assertThat(r.requestId()).isEqualTo("r-7");
    assertThat(r.tags()).containsEntry("class", "A");
    assertThat(r.intendedNanos()).isEqualTo(900_000);
    assertThat(r.sendNanos()).isEqualTo(1_000_000);
    assertThat(r.scheduleLagNanos()).isEqualTo(100_000);
    assertThat(r.phases().connectNanos()).hasValue(500);
    assertThat(r.phases().offsetNanos(Phase.RESPONSE_HEADERS_END)).hasValue(500_000);
    assertThat(r.phases().dnsNanos()).isEmpty();
    assertThat(r.httpStatus()).isEqualTo(200);
    assertThat(r.chunks().firstTokenOffsetNanos()).hasValue(2_000_000);
    assertThat(r.chunks().lastTokenOffsetNanos()).hasValue(3_000_000);
    assertThat(r.usage().promptTokens()).hasValue(9);
    assertThat(r.usage().completionTokens()).hasValue(2);
    assertThat(r.outputTokens()).isEqualTo(2);
    assertThat(r.outputTokensSource()).isEqualTo(TokenCountSource.SERVER_USAGE);
    assertThat(r.tokenCountsDisagree()).isFalse();
    assertThat(r.finishReason()).contains("stop");
    assertThat(r.serverTimings()).containsEntry("eval_duration", 123.0);
    assertThat(r.endOffsetNanos()).isEqualTo(3_100_000);
    assertThat(r.succeeded()).isTrue();
    assertThat(r.text()).isEmpty();
  }

  @Test
  void firstTerminalEventWinsAndLaterEventsAreIgnored() {
    List<RequestRecord> done = new ArrayList<>();
    TokenTimeline t = timeline(done);
    t.onChunk(2_000_000, ChunkKind.CONTENT, 1);
    t.onFailure(Failure.of(ErrorCategory.RESET, "connection reset"), 2_500_000);
    t.onChunk(3_000_000, ChunkKind.CONTENT, 1);
    t.onComplete(3_100_000);
    t.onFailure(Failure.of(ErrorCategory.CANCELLED, "late"), 3_200_000);

    assertThat(done).hasSize(1);
    RequestRecord r = done.get(0);
    assertThat(r.failure()).get().extracting(Failure::category).isEqualTo(ErrorCategory.RESET);
    assertThat(r.chunks().size()).isEqualTo(1);
    assertThat(r.endOffsetNanos()).isEqualTo(1_500_000);
  }

  @Test
  void aReplyThatEndsWellWithoutATokenIsAnEmptyResponseFailure() {
    List<RequestRecord> done = new ArrayList<>();
    TokenTimeline t = timeline(done);
    t.onResponseHeaders(200, 1_500_000);
    t.onChunk(2_000_000, ChunkKind.ROLE, ChunkTimeline.UNKNOWN_TOKENS);
    t.onChunk(2_100_000, ChunkKind.EMPTY, ChunkTimeline.UNKNOWN_TOKENS);
    t.onFinishReason("stop");
    t.onComplete(2_200_000);

    RequestRecord r = done.get(0);
    assertThat(r.succeeded()).isFalse();
    Failure f = r.failure().orElseThrow();
    assertThat(f.category()).isEqualTo(ErrorCategory.EMPTY_RESPONSE);
    assertThat(f.httpStatus()).isEqualTo(200);
    assertThat(f.message()).isEqualTo("the reply ended without a single token (2 chunks, finish reason stop)");
    assertThat(r.chunks().size()).isEqualTo(2); // what did arrive is kept
    assertThat(r.outputTokens()).isZero();
  }

  @Test
  void aReplyWithOneTokenIsASuccessAndAFailureStaysItsOwnCategory() {
    List<RequestRecord> done = new ArrayList<>();
    TokenTimeline ok = timeline(done);
    ok.onChunk(2_000_000, ChunkKind.CONTENT, 1);
    ok.onComplete(2_100_000);
    TokenTimeline cut = timeline(done);
    cut.onFailure(Failure.of(ErrorCategory.RESET, "connection reset"), 2_000_000);

    assertThat(done.get(0).succeeded()).isTrue();
    assertThat(done.get(1).failure().orElseThrow().category()).isEqualTo(ErrorCategory.RESET);
  }

  @Test
  void failureAfterHeadersCarriesTheHttpStatus() {
    TokenTimeline t = timeline(new ArrayList<>());
    t.onResponseHeaders(200, 1_100_000);
    t.onFailure(Failure.of(ErrorCategory.STREAM_ERROR, "engine died"), 1_200_000);
    assertThat(t.record().orElseThrow().failure().orElseThrow().httpStatus()).isEqualTo(200);
  }

  @Test
  void withoutServerUsageTheCountComesFromTheStream() {
    TokenTimeline counted = timeline(new ArrayList<>());
    counted.onChunk(2_000_000, ChunkKind.CONTENT, 2);
    counted.onChunk(3_000_000, ChunkKind.CONTENT, 3);
    counted.onComplete(3_000_000);
    RequestRecord withTokens = counted.record().orElseThrow();
    assertThat(withTokens.outputTokens()).isEqualTo(5);
    assertThat(withTokens.outputTokensSource()).isEqualTo(TokenCountSource.CHUNK_TOKENS);

    TokenTimeline unknown = timeline(new ArrayList<>());
    unknown.onChunk(2_000_000, ChunkKind.CONTENT, ChunkTimeline.UNKNOWN_TOKENS);
    unknown.onChunk(3_000_000, ChunkKind.CONTENT, ChunkTimeline.UNKNOWN_TOKENS);
    unknown.onChunk(3_000_000, ChunkKind.USAGE, 0);
    unknown.onComplete(3_000_000);
    RequestRecord byCount = unknown.record().orElseThrow();
    assertThat(byCount.outputTokens()).isEqualTo(2);
    assertThat(byCount.outputTokensSource()).isEqualTo(TokenCountSource.CHUNK_COUNT);
  }

  @Test
  void serverAndStreamCountsThatDifferAreFlagged() {
    TokenTimeline t = timeline(new ArrayList<>());
    t.onChunk(2_000_000, ChunkKind.CONTENT, ChunkTimeline.UNKNOWN_TOKENS);
    t.onUsage(Usage.of(3, 4)); // four tokens in one chunk, e.g. a speculative-decoding burst
    t.onComplete(2_000_000);
    RequestRecord r = t.record().orElseThrow();
    assertThat(r.outputTokens()).isEqualTo(4);
    assertThat(r.streamedTokens()).isEqualTo(1);
    assertThat(r.tokenCountsDisagree()).isTrue();
  }

  @Test
  void textIsKeptOnlyWhenAskedAndOnlyForContent() {
    clock.now = 0;
    TokenTimeline t = TokenTimeline.builder(clock).captureText(true).build();
    assertThat(t.wantsText()).isTrue();
    t.onChunk(1, ChunkKind.REASONING, 1);
    t.onText(ChunkKind.REASONING, "thinking");
    t.onChunk(2, ChunkKind.CONTENT, 1);
    t.onText(ChunkKind.CONTENT, "Hello");
    t.onChunk(3, ChunkKind.CONTENT, 1);
    t.onText(ChunkKind.CONTENT, " world");
    t.onComplete(4);
    assertThat(t.record().orElseThrow().text()).contains("Hello world");
  }

  @Test
  void chunkTimesNeverGoBackwardsEvenIfReadingsDo() {
    TokenTimeline t = timeline(new ArrayList<>());
    t.onChunk(3_000_000, ChunkKind.CONTENT, 1);
    t.onChunk(2_999_000, ChunkKind.CONTENT, 1); // read on another core, a hair earlier
    t.onComplete(3_000_000);
    ChunkTimeline chunks = t.record().orElseThrow().chunks();
    assertThat(chunks.firstTokenOffsetNanos()).hasValue(2_000_000);
    assertThat(chunks.lastTokenOffsetNanos()).hasValue(2_000_000);
  }

  @Test
  void startStampsOriginIntendedAndSendWithTheSameReading() {
    clock.now = 42;
    TokenTimeline t = TokenTimeline.start(clock);
    clock.now = 50;
    t.onChunk(50, ChunkKind.CONTENT, 1);
    t.onComplete(60);
    RequestRecord r = t.record().orElseThrow();
    assertThat(r.sendNanos()).isZero();
    assertThat(r.intendedNanos()).isZero();
    assertThat(r.chunks().firstTokenOffsetNanos()).hasValue(8);
    assertThat(r.endOffsetNanos()).isEqualTo(18);
  }
}
