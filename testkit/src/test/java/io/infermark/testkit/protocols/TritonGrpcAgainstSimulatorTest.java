package io.infermark.testkit.protocols;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.TimeoutPhase;
import io.infermark.core.capture.TokenCountSource;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.TritonGrpcTarget;
import io.infermark.core.protocol.TritonGrpcTarget.Convention;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.testkit.simulator.Fault;
import io.infermark.testkit.simulator.ServerTimeline;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import io.infermark.testkit.simulator.SimulatorProtocol;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The gRPC target against the simulator's gRPC service ({@code ModelStreamInfer} on its h2c port):
 * what the client measured equals what the server wrote, within the run's own floor, for both tensor
 * conventions; every way a call can fail ends as its category with the server's message.
 */
class TritonGrpcAgainstSimulatorTest {

  private static final Prompt PROMPT = Prompt.user("Tell me about latency.");
  private static final GenerationParams EIGHT = GenerationParams.builder().maxTokens(8).build();

  private static SimulatorConfig.Builder config() {
    return SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(5)).interTokenInterval(Duration.ofMillis(1))
        .tokensPerChunk(1).outputTokensBetween(6, 12).seed(7);
  }

  private static TritonGrpcTarget target(Simulator sim, UnaryOperator<TritonGrpcTarget.Builder> options) {
    return options.apply(TritonGrpcTarget.streamInfer(sim.baseUrl(), sim.config().model())).build();
  }

  private static RunResult run(TritonGrpcTarget target, GenerationParams params, int requests) {
    return Benchmark.target(target).preflight(false).prompts(PROMPT).params(params)
        .load(LoadProfile.concurrency(2).requests(requests)).run();
  }

  @ParameterizedTest
  @EnumSource(Convention.class)
  void streamedResponsesArriveNoSoonerThanTheServerWroteThemAndCountItsTokens(Convention convention) {
    try (Simulator sim = Simulator.start(config().reasoningTokens(0).build(), SimulatorProtocol.H2C);
        TritonGrpcTarget target = target(sim, b -> b.convention(convention))) {
      RunResult run = run(target, GenerationParams.builder().maxTokens(10).build(), 6);

      assertThat(run.records()).hasSize(6).allMatch(RequestRecord::succeeded);
      double floor = run.clientHealth().floorMillis();
      java.util.List<Double> lateness = new java.util.ArrayList<>();
      for (RequestRecord r : run.records()) {
        ServerTimeline server = sim.timeline(r.requestId()).orElseThrow();
        int tokens = server.tokenCount();
        assertThat(tokens).isBetween(6, 10);
        assertThat(r.outputTokens()).as("output tokens of %s", r).isEqualTo(tokens);
        // the vLLM backend's convention asks for each response's num_output_tokens; TensorRT-LLM's does not
        assertThat(r.outputTokensSource()).isEqualTo(convention == Convention.VLLM ? TokenCountSource.CHUNK_TOKENS
            : TokenCountSource.CHUNK_COUNT);
        long send = run.originNanos() + r.sendNanos();
        assertThat(send).isLessThanOrEqualTo(server.arrivalNanos());
        ChunkTimeline.Cursor c = r.chunks().cursor();
        int i = 0;
        while (c.next()) {
          if (c.kind().isTokenBearing()) {
            assertThat(send + c.offsetNanos()).as("token %d", i).isGreaterThanOrEqualTo(server.tokenNanos(i));
            lateness.add((send + c.offsetNanos() - server.tokenNanos(i)) / 1e6);
            i++;
          }
        }
        assertThat(i).isEqualTo(tokens);
        // what the client adds to the server's TTFT is bounded by the run's own floor
        long firstError = send + r.chunks().firstTokenOffsetNanos().getAsLong() - server.firstTokenNanos().getAsLong();
        assertThat(firstError / 1e6).isLessThan(50 + 2 * floor);
      }
      // and so is the typical token's: a stall of either side's thread on a loaded machine may delay one token
      // past the floor the client measured, not the median
      java.util.Collections.sort(lateness);
      assertThat(lateness.get(lateness.size() / 2)).isLessThan(50 + 2 * floor);
      // the run says what it ran on: h2c, keepalive, and what the server announced in its SETTINGS
      assertThat(run.target()).contains("ModelStreamInfer", "h2c", "keepalive off", "max_concurrent_streams=100");
    }
  }

  /**
   * A server that sends several tokens in one response (here 8, and 1 for contrast): with
   * {@code num_output_tokens} asked for (the vLLM convention's default, TensorRT-LLM's by option) the
   * record's count is the server's, each response carries its tokens, stamped together at the read that
   * completed it, no sooner than the server wrote them.
   */
  @ParameterizedTest
  @CsvSource({"1, VLLM", "8, VLLM", "1, TENSORRT_LLM", "8, TENSORRT_LLM"})
  void everyTokenOfAResponseThatCarriesSeveralIsCountedAsTheServerSentIt(int perResponse, Convention convention) {
    try (Simulator sim = Simulator.start(config().tokensPerChunk(perResponse).outputTokensBetween(17, 30).build(),
        SimulatorProtocol.H2C);
        TritonGrpcTarget target = target(sim, b -> convention == Convention.VLLM ? b.convention(convention)
            : b.returnNumOutputTokens(true))) {
      RunResult run = run(target, GenerationParams.builder().maxTokens(30).build(), 4);

      assertThat(run.records()).hasSize(4).allMatch(RequestRecord::succeeded);
      ChunkTokens.assertCountedAsTheServerSentThem(run, sim, perResponse, "response");
    }
  }

  @Test
  void aCallThatDoesNotStreamCountsTheTokensOfItsOneResponse() {
    try (Simulator sim = Simulator.start(config().build(), SimulatorProtocol.H2C);
        TritonGrpcTarget target = target(sim, b -> b.convention(Convention.VLLM))) {
      RequestRecord r = run(target, GenerationParams.builder().maxTokens(10).stream(false).build(), 1).records().get(0);
      assertThat(r.succeeded()).as("%s", r).isTrue();
      assertThat(r.chunks().size()).isEqualTo(1);
      assertThat(r.outputTokens()).isEqualTo(sim.timeline(r.requestId()).orElseThrow().tokenCount()).isBetween(6, 10);
      assertThat(r.outputTokensSource()).isEqualTo(TokenCountSource.CHUNK_TOKENS);
    }
  }

  @Test
  void aCallThatDoesNotStreamIsOneResponse() {
    try (Simulator sim = Simulator.start(config().build(), SimulatorProtocol.H2C);
        TritonGrpcTarget target = target(sim, b -> b)) {
      RequestRecord r = run(target, GenerationParams.builder().maxTokens(8).stream(false).build(), 1).records().get(0);
      assertThat(r.succeeded()).as("%s", r).isTrue();
      assertThat(r.chunks().size()).isEqualTo(1);
    }
  }

  @Test
  void keepAlivePingsAreAnsweredAndRecorded() {
    try (Simulator sim = Simulator.start(config().interTokenInterval(Duration.ofMillis(30)).build(),
        SimulatorProtocol.H2C);
        TritonGrpcTarget target = target(sim, b -> b.keepAlive(Duration.ofMillis(10), Duration.ofSeconds(5)))) {
      RunResult run = run(target, EIGHT, 2);
      assertThat(run.records()).allMatch(RequestRecord::succeeded);
      assertThat(run.target()).contains("keepalive 10 ms/5000 ms");
    }
  }

  private static Failure failureOf(SimulatorConfig config, UnaryOperator<TritonGrpcTarget.Builder> options,
      GenerationParams params) {
    try (Simulator sim = Simulator.start(config, SimulatorProtocol.H2C);
        TritonGrpcTarget target = target(sim, options)) {
      RequestRecord r = run(target, params, 1).records().get(0);
      return r.failure().orElseThrow(() -> new AssertionError("expected a failure: " + r));
    }
  }

  @Test
  void grpcStatusesAreClassifiedLikeTheHttpErrorsTheyStandFor() {
    Failure unavailable = failureOf(config().faultOnRequests(Fault.unavailable(Duration.ofSeconds(1)), 0).build(),
        b -> b, EIGHT);
    assertThat(unavailable.category()).isEqualTo(ErrorCategory.HTTP_STATUS);
    assertThat(unavailable.httpStatus()).isEqualTo(503);
    assertThat(unavailable.message()).startsWith("gRPC UNAVAILABLE (status 14)");

    Failure limited = failureOf(config().faultOnRequests(Fault.rateLimited(Duration.ofSeconds(1)), 0).build(),
        b -> b, EIGHT);
    assertThat(limited.httpStatus()).isEqualTo(429);
    assertThat(limited.message()).startsWith("gRPC RESOURCE_EXHAUSTED (status 8)").contains("Injected rate limit");

    Failure invalid = failureOf(config().maxModelLength(64).build(), b -> b,
        GenerationParams.builder().maxTokens(100).build());
    assertThat(invalid.httpStatus()).isEqualTo(400);
    assertThat(invalid.message()).startsWith("gRPC INVALID_ARGUMENT (status 3)").contains("maximum context length");

    Failure unknownModel;
    try (Simulator sim = Simulator.start(config().build(), SimulatorProtocol.H2C);
        TritonGrpcTarget target = TritonGrpcTarget.streamInfer(sim.baseUrl(), "no-such-model").build()) {
      unknownModel = run(target, EIGHT, 1).records().get(0).failure().orElseThrow();
    }
    assertThat(unknownModel.httpStatus()).isEqualTo(404);
    assertThat(unknownModel.message()).startsWith("gRPC NOT_FOUND (status 5)").contains("no-such-model");
  }

  @Test
  void aDeadlineThatPassesIsACallTimeoutReportedByTheServer() {
    Failure late = failureOf(config().timeToFirstToken(Duration.ofMillis(400)).build(),
        b -> b.deadline(Duration.ofMillis(50)), EIGHT);
    assertThat(late.category()).isEqualTo(ErrorCategory.TIMEOUT);
    assertThat(late.timeoutPhase()).isEqualTo(TimeoutPhase.CALL);
    assertThat(late.message()).startsWith("gRPC DEADLINE_EXCEEDED (status 4)");
  }

  @Test
  void aStreamCutMidWayIsAReset() {
    Failure cut = failureOf(config().faultOnRequests(Fault.disconnect(2), 0).build(), b -> b, EIGHT);
    assertThat(cut.category()).isEqualTo(ErrorCategory.RESET);
    assertThat(cut.message()).contains("RST_STREAM");
  }

  @Test
  void anErrorInsideTheStreamIsAStreamErrorAndABrokenMessageMalformed() {
    Failure error = failureOf(config().faultOnRequests(Fault.streamError(2), 0).build(), b -> b, EIGHT);
    assertThat(error.category()).isEqualTo(ErrorCategory.STREAM_ERROR);
    assertThat(error.message()).contains("Injected generation error");

    Failure malformed = failureOf(config().faultOnRequests(Fault.malformedChunk(2), 0).build(), b -> b, EIGHT);
    assertThat(malformed.category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(malformed.message()).contains("not valid protobuf");
  }
}
