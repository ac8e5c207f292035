package io.infermark.testkit.protocols;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.TokenCountSource;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.protocol.TritonGrpcTarget;
import io.infermark.core.protocol.TritonTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import io.infermark.testkit.simulator.SimulatorProtocol;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Triton's HTTP {@code generate_stream} against the simulator: each event's {@code num_output_tokens}
 * (asked for by default) is what the record counts, as the server sent it; a model that refuses
 * {@code return_num_output_tokens} fails with a message saying to turn it off, over HTTP and gRPC.
 */
class TritonGenerateAgainstSimulatorTest {

  private static final Prompt PROMPT = Prompt.user("Tell me about latency.");
  private static final GenerationParams THIRTY = GenerationParams.builder().maxTokens(30).build();
  private static final String HINT = "the model does not take return_num_output_tokens: turn it off";

  private static SimulatorConfig.Builder config() {
    return SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(5)).interTokenInterval(Duration.ofMillis(1))
        .tokensPerChunk(1).outputTokensBetween(17, 30).seed(11);
  }

  private static RunResult run(Target target, GenerationParams params, int requests) {
    return Benchmark.target(target).preflight(false).prompts(PROMPT).params(params)
        .load(LoadProfile.concurrency(2).requests(requests)).run();
  }

  /**
   * A server that sends several tokens in one event (8, and 1 for contrast): the record's count is the
   * server's, each event one chunk carrying its tokens, stamped at the read that completed it, no sooner than
   * the server wrote the last of them.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 8})
  void everyTokenOfAnEventIsCountedAsTheServerSentIt(int perEvent) {
    try (Simulator sim = Simulator.start(config().tokensPerChunk(perEvent).build());
        TritonTarget target = TritonTarget.generate(sim.baseUrl(), sim.config().model()).build()) {
      assertThat(target.returnsNumOutputTokens()).as("on by default").isTrue();
      RunResult run = run(target, THIRTY, 4);

      assertThat(run.records()).hasSize(4).allMatch(RequestRecord::succeeded);
      ChunkTokens.assertCountedAsTheServerSentThem(run, sim, perEvent, "event");
    }
  }

  @Test
  void turnedOffEachEventCountsOneTokenAsBefore() {
    try (Simulator sim = Simulator.start(config().tokensPerChunk(8).build());
        TritonTarget target = TritonTarget.generate(sim.baseUrl(), sim.config().model())
            .returnNumOutputTokens(false).build()) {
      RequestRecord r = run(target, THIRTY, 1).records().get(0);
      assertThat(r.succeeded()).as("%s", r).isTrue();
      int tokens = sim.timeline(r.requestId()).orElseThrow().tokenCount();
      assertThat(r.outputTokensSource()).isEqualTo(TokenCountSource.CHUNK_COUNT);
      assertThat(r.outputTokens()).isEqualTo((tokens + 7) / 8);
    }
  }

  @Test
  void aRequestThatDoesNotStreamCountsTheTokensOfItsOneResponse() {
    try (Simulator sim = Simulator.start(config().build());
        TritonTarget target = TritonTarget.generate(sim.baseUrl(), sim.config().model()).build()) {
      RequestRecord r = run(target, GenerationParams.builder().maxTokens(30).stream(false).build(), 1)
          .records().get(0);
      assertThat(r.succeeded()).as("%s", r).isTrue();
      assertThat(r.chunks().size()).isEqualTo(1);
      assertThat(r.outputTokens()).isEqualTo(sim.timeline(r.requestId()).orElseThrow().tokenCount())
          .isBetween(17, 30);
      assertThat(r.outputTokensSource()).isEqualTo(TokenCountSource.CHUNK_TOKENS);
    }
  }

  @Test
  void aModelThatRefusesTheInputOverHttpFailsSayingToTurnItOff() {
    try (Simulator sim = Simulator.start(config().tritonTokenCounts(false).build());
        TritonTarget asking = TritonTarget.generate(sim.baseUrl(), sim.config().model()).build();
        TritonTarget off = TritonTarget.generate(sim.baseUrl(), sim.config().model())
            .returnNumOutputTokens(false).build()) {
      Failure f = run(asking, THIRTY, 1).records().get(0).failure().orElseThrow();
      assertThat(f.category()).isEqualTo(ErrorCategory.HTTP_STATUS);
      assertThat(f.httpStatus()).isEqualTo(400);
      assertThat(f.message()).contains("unexpected inference input 'return_num_output_tokens'")
          .contains(HINT).contains("returnNumOutputTokens(false)", "--triton-token-counts off")
          .doesNotContain("\n");

      RequestRecord r = run(off, THIRTY, 1).records().get(0);
      assertThat(r.succeeded()).as("%s", r).isTrue();
      assertThat(r.outputTokensSource()).isEqualTo(TokenCountSource.CHUNK_COUNT);
    }
  }

  @Test
  void aModelThatRefusesTheInputOverGrpcFailsSayingToTurnItOff() {
    try (Simulator sim = Simulator.start(config().tritonTokenCounts(false).build(), SimulatorProtocol.H2C);
        TritonGrpcTarget vllm = TritonGrpcTarget.streamInfer(sim.baseUrl(), sim.config().model())
            .convention(TritonGrpcTarget.Convention.VLLM).build();
        TritonGrpcTarget stockEnsemble = TritonGrpcTarget.streamInfer(sim.baseUrl(), sim.config().model()).build()) {
      Failure f = run(vllm, THIRTY, 1).records().get(0).failure().orElseThrow();
      assertThat(f.httpStatus()).isEqualTo(400);
      assertThat(f.message()).startsWith("gRPC INVALID_ARGUMENT (status 3)")
          .contains("unexpected inference input 'return_num_output_tokens'").contains(HINT);

      // TensorRT-LLM's convention does not ask by default: the stock ensemble runs
      assertThat(run(stockEnsemble, THIRTY, 1).records().get(0).succeeded()).isTrue();
    }
  }
}
