package io.infermark.testkit.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.testkit.simulator.ServerTimeline.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every fault, end to end: infermark's {@link Benchmark} and {@link OpenAiTarget} against a
 * simulator that injects the fault into the second of two requests, checking how the client
 * classified each request against what the simulator says it did.
 */
class FaultsEndToEndTest {

  private static final long TTFT_MS = 5;
  private static final long ITL_MS = 2;
  private static final int TOKENS = 8;

  /** Both sides of a two-request run: the first request is clean, the second suffers the fault. */
  private record Run(SimulatorConfig config, RequestRecord clean, RequestRecord faulted, ServerTimeline server,
      long sendNanos) {}

  private static Run run(Fault fault) {
    SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(TTFT_MS))
        .interTokenInterval(Duration.ofMillis(ITL_MS)).seed(3).faultOnRequests(fault, 1).build();
    try (Simulator sim = Simulator.start(config);
        OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", config.model()).build()) {
      // No pre-flight request: the fault is on the server's request 1, the run's second.
      RunResult result = Benchmark.target(target).preflight(false).prompts(Prompt.user("Fail me, gently."))
          .params(GenerationParams.builder().maxTokens(TOKENS).ignoreEos(true).build())
          .load(LoadProfile.concurrency(1).requests(2)).run();
      RequestRecord clean = result.records().get(0);
      RequestRecord faulted = result.records().get(1);
      assertThat(clean.succeeded()).as("the request without a fault: %s", clean).isTrue();
      ServerTimeline server = sim.timeline(faulted.requestId()).orElseThrow();
      assertThat(server.sequence()).isEqualTo(1);
      assertThat(server.fault()).hasValue(fault);
      return new Run(config, clean, faulted, server, result.originNanos() + faulted.sendNanos());
    }
  }

  private static Failure failure(Run run) {
    return run.faulted().failure().orElseThrow(() -> new AssertionError("expected a failure: " + run.faulted()));
  }

  @Test
  void rateLimitedIsHttpStatus429() {
    Run run = run(Fault.rateLimited(Duration.ofSeconds(2)));

    assertThat(failure(run).category()).isEqualTo(ErrorCategory.HTTP_STATUS);
    assertThat(failure(run).httpStatus()).isEqualTo(429);
    assertThat(failure(run).message()).contains("Injected rate limit");
    assertThat(run.server().outcome()).isEqualTo(Outcome.REJECTED);
    assertThat(run.server().engine()).isEmpty();
  }

  @Test
  void unavailableIsHttpStatus503() {
    Run run = run(Fault.unavailable(Duration.ofMillis(1500)));

    assertThat(failure(run).category()).isEqualTo(ErrorCategory.HTTP_STATUS);
    assertThat(failure(run).httpStatus()).isEqualTo(503);
    assertThat(run.server().status()).hasValue(503);
  }

  @Test
  void serverErrorIsHttpStatus500WithTheErrorMessage() {
    Run run = run(Fault.serverError());

    assertThat(failure(run).category()).isEqualTo(ErrorCategory.HTTP_STATUS);
    assertThat(failure(run).httpStatus()).isEqualTo(500);
    assertThat(failure(run).message()).contains("Injected server error");
    assertThat(run.server().outcome()).isEqualTo(Outcome.SERVER_ERROR);
  }

  @Test
  void slowdownSucceedsWithEveryTokenAtItsStretchedTime() {
    Fault fault = Fault.slowdown(1.8, Duration.ofMillis(200));
    Run run = run(fault);

    assertThat(run.faulted().succeeded()).isTrue();
    assertThat(run.faulted().outputTokens()).isEqualTo(TOKENS);
    ServerTimeline t = run.server();
    long jitter = FaultPolicy.of(run.config()).jitterNanos(1, 200_000_000L);
    long admitted = t.admissionNanos().getAsLong();
    for (int i = 0; i < TOKENS; i++) {
      long ready = admitted + (TTFT_MS + i * ITL_MS) * 1_000_000;
      long stretched = t.arrivalNanos() + Math.round((ready - t.arrivalNanos()) * 1.8) + jitter;
      assertThat(t.tokenNanos(i)).as("token %d", i).isGreaterThanOrEqualTo(stretched);
    }
    // The client saw it: its TTFT is at least the stretched TTFT plus the jitter, and matches the server's.
    long clientFirst = run.sendNanos() + run.faulted().chunks().firstTokenOffsetNanos().getAsLong();
    assertThat(run.faulted().chunks().firstTokenOffsetNanos().getAsLong())
        .isGreaterThanOrEqualTo(Math.round(TTFT_MS * 1_000_000 * 1.8) + jitter);
    assertThat(clientFirst).isGreaterThanOrEqualTo(t.firstTokenNanos().getAsLong());
  }

  @Test
  void slowdownWritesNothingSoonerThanItsFloorAfterArrival() {
    // 1.8 × (5 ms + 2 ms per token) and no jitter would write every token within 34 ms; the floor
    // (100 ms by default, seed 002 §2.5's model) holds each of them to at least 100 ms after arrival.
    Run run = run(Fault.slowdown(1.8, Duration.ZERO));

    assertThat(run.faulted().succeeded()).isTrue();
    ServerTimeline t = run.server();
    for (int i = 0; i < TOKENS; i++) {
      assertThat(t.tokenNanos(i) - t.arrivalNanos()).as("token %d", i).isGreaterThanOrEqualTo(100_000_000L);
    }
    assertThat(run.faulted().chunks().firstTokenOffsetNanos().getAsLong()).isGreaterThanOrEqualTo(100_000_000L);
  }

  @Test
  void stallLeavesOneLongGapAfterTheChosenToken() {
    Run run = run(Fault.stall(3, Duration.ofMillis(300)));

    assertThat(run.faulted().succeeded()).isTrue();
    List<Long> gaps = gaps(run.faulted().chunks());
    assertThat(gaps).hasSize(TOKENS - 1);
    ServerTimeline t = run.server();
    assertThat(t.tokenNanos(3) - t.tokenNanos(2)).isGreaterThanOrEqualTo(300_000_000L);
    // The client sees the stall too; it can only shorten it by how late it read token 3, which this run
    // measured on the same clock (client stamp minus the server's write of that token).
    long token3Late = run.sendNanos() + tokenOffsets(run.faulted().chunks()).get(2) - t.tokenNanos(2);
    assertThat(token3Late).isNotNegative();
    assertThat(gaps.get(2)).as("gap between token 3 and 4").isGreaterThanOrEqualTo(300_000_000L - token3Late);
    assertThat(t.outcome()).isEqualTo(Outcome.COMPLETED);
  }

  @Test
  void disconnectIsResetWithTheTokensSentBeforeIt() {
    Run run = run(Fault.disconnect(3));

    assertThat(failure(run).category()).isEqualTo(ErrorCategory.RESET);
    assertThat(run.faulted().chunks().tokenChunkCount()).isEqualTo(3);
    assertThat(run.server().outcome()).isEqualTo(Outcome.DISCONNECTED);
  }

  @Test
  void malformedChunkIsMalformedStream() {
    Run run = run(Fault.malformedChunk(2));

    assertThat(failure(run).category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(run.faulted().chunks().tokenChunkCount()).isEqualTo(2);
    assertThat(run.server().outcome()).isEqualTo(Outcome.MALFORMED_CHUNK);
    assertThat(run.server().tokenCount()).isEqualTo(2);
  }

  @Test
  void slowHeadersSucceedWithLateHeadersAndTtftIncludingThem() {
    Run run = run(Fault.slowHeaders(Duration.ofMillis(300)));

    assertThat(run.faulted().succeeded()).isTrue();
    long headers = run.faulted().phases().offsetNanos(Phase.RESPONSE_HEADERS_START).orElseThrow();
    assertThat(headers).isGreaterThanOrEqualTo(300_000_000L);
    assertThat(run.faulted().chunks().firstTokenOffsetNanos().getAsLong()).isGreaterThanOrEqualTo(300_000_000L);
    assertThat(run.clean().phases().offsetNanos(Phase.RESPONSE_HEADERS_START).orElseThrow())
        .isLessThan(300_000_000L);
  }

  @Test
  void errorObjectMidStreamIsStreamError() {
    Run run = run(Fault.streamError(2));

    assertThat(failure(run).category()).isEqualTo(ErrorCategory.STREAM_ERROR);
    assertThat(failure(run).message()).contains("Injected generation error");
    assertThat(run.faulted().chunks().tokenChunkCount()).isEqualTo(2);
    assertThat(run.server().outcome()).isEqualTo(Outcome.STREAM_ERROR);
  }

  private static List<Long> tokenOffsets(ChunkTimeline chunks) {
    List<Long> offsets = new ArrayList<>();
    ChunkTimeline.Cursor c = chunks.cursor();
    while (c.next()) {
      if (c.kind().isTokenBearing()) {
        offsets.add(c.offsetNanos());
      }
    }
    return offsets;
  }

  private static List<Long> gaps(ChunkTimeline chunks) {
    List<Long> offsets = tokenOffsets(chunks);
    List<Long> gaps = new ArrayList<>();
    for (int i = 1; i < offsets.size(); i++) {
      gaps.add(offsets.get(i) - offsets.get(i - 1));
    }
    return gaps;
  }
}
