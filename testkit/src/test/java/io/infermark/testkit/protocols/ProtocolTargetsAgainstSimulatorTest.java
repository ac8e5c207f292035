package io.infermark.testkit.protocols;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.TokenCountSource;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.AnthropicTarget;
import io.infermark.core.protocol.HttpTarget;
import io.infermark.core.protocol.LlamaCppTarget;
import io.infermark.core.protocol.OllamaTarget;
import io.infermark.core.protocol.OpenAiResponsesTarget;
import io.infermark.core.protocol.TgiTarget;
import io.infermark.core.protocol.TritonTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.transport.OkHttpTransport;
import io.infermark.core.transport.Transport;
import io.infermark.core.transport.netty.HttpVersionPolicy;
import io.infermark.core.transport.netty.NettyTransport;
import io.infermark.metrics.LatencyMetric;
import io.infermark.testkit.TokenDelays;
import io.infermark.testkit.simulator.Fault;
import io.infermark.testkit.simulator.ServerTimeline;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import io.infermark.testkit.simulator.SimulatorProtocol;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every protocol's target against the simulator serving that protocol, over HTTP, on both
 * transports and over h2c: what the client measured is checked against what the server really wrote (one JVM,
 * one clock), and every error shape must end as the right {@link ErrorCategory}.
 */
@ParameterizedClass(name = "{0} over {1}")
@MethodSource("protocols")
class ProtocolTargetsAgainstSimulatorTest {

  /** How a protocol's target is made for a simulator, and what the protocol reports. */
  record Protocol(Factory factory, boolean namesModel, boolean reportsUsage, boolean errorsInsideStream) {
    HttpTarget target(Simulator sim, Transport transport) {
      return factory.make(sim.baseUrl(), sim.config().model(), transport);
    }
  }

  /** Makes a protocol's target. */
  interface Factory {
    HttpTarget make(String baseUrl, String model, Transport transport);
  }

  static Stream<Arguments> protocols() {
    List<Named<Protocol>> protocols = List.of(
        Named.of("anthropic", new Protocol((u, m, t) -> AnthropicTarget.messages(u, m).apiKey("sk-ant-x")
            .transport(t).build(), true, true, false)),
        Named.of("ollama-chat", new Protocol((u, m, t) -> OllamaTarget.chat(u, m).transport(t).build(),
            true, true, false)),
        Named.of("ollama-generate", new Protocol((u, m, t) -> OllamaTarget.generate(u, m).transport(t)
            .build(), true, true, false)),
        Named.of("tgi", new Protocol((u, m, t) -> TgiTarget.generate(u).transport(t).build(), false, true, true)),
        Named.of("llama.cpp", new Protocol((u, m, t) -> LlamaCppTarget.completion(u).transport(t).build(), false,
            true, false)),
        Named.of("triton", new Protocol((u, m, t) -> TritonTarget.generate(u, m).transport(t).build(),
            true, false, false)),
        Named.of("responses", new Protocol((u, m, t) -> OpenAiResponsesTarget.responses(u, m)
            .transport(t).build(), true, true, false)));
    List<Named<Supplier<Transport>>> transports = List.of(Named.of("netty", NettyTransport::create),
        Named.of("okhttp", OkHttpTransport::create),
        Named.of("netty-h2c", () -> NettyTransport.builder().httpVersion(HttpVersionPolicy.HTTP_2).build()));
    List<Arguments> all = new ArrayList<>();
    for (Named<Protocol> p : protocols) {
      for (Named<Supplier<Transport>> t : transports) {
        all.add(Arguments.of(p, t));
      }
    }
    return all.stream();
  }

  @Parameter(0)
  Protocol protocol;

  @Parameter(1)
  Supplier<Transport> transport;

  /** The simulator, speaking h2c when the transport under test speaks HTTP/2. */
  private Simulator start(SimulatorConfig config) {
    try (Transport t = transport.get()) {
      boolean h2 = t instanceof NettyTransport n && n.httpVersion() == HttpVersionPolicy.HTTP_2;
      return Simulator.start(config, h2 ? SimulatorProtocol.H2C : SimulatorProtocol.HTTP_1_1);
    }
  }

  private static final Prompt PROMPT = Prompt.user("Tell me about latency.");

  /** Slack for a duration read in whole nanoseconds and shown in double milliseconds: a thousandth of a nanosecond. */
  private static final double ROUNDING_MS = 1e-9;

  private static SimulatorConfig.Builder config() {
    return SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(5)).interTokenInterval(Duration.ofMillis(1))
        .tokensPerChunk(1).outputTokensBetween(6, 12).seed(7);
  }

  private RunResult run(HttpTarget target, GenerationParams params, int requests) {
    // No pre-flight request: faults are placed on the server's request numbers, from 0.
    return Benchmark.target(target).preflight(false).prompts(PROMPT).params(params)
        .load(LoadProfile.concurrency(1).requests(requests)).run();
  }

  @Test
  void streamedTokensArriveNoSoonerThanTheServerWroteThemWithTheServersUsage() {
    try (Simulator sim = start(config().reasoningTokens(0).build());
        HttpTarget target = protocol.target(sim, transport.get())) {
      RunResult run = run(target, GenerationParams.builder().maxTokens(10).build(), 4);

      assertThat(run.records()).hasSize(4).allMatch(RequestRecord::succeeded);
      for (RequestRecord r : run.records()) {
        ServerTimeline server = sim.timeline(r.requestId()).orElseThrow();
        int tokens = server.tokenCount();
        assertThat(tokens).isBetween(6, 10);
        assertThat(r.outputTokens()).as("output tokens of %s", r).isEqualTo(tokens);
        if (protocol.reportsUsage()) {
          assertThat(r.outputTokensSource()).isEqualTo(TokenCountSource.SERVER_USAGE);
          assertThat(r.usage().promptTokens()).isEqualTo(server.promptTokens());
          assertThat(r.tokenCountsDisagree()).as("%s", r).isFalse();
          assertThat(r.finishReason()).isPresent();
        }
        // One token per chunk: the i-th token-bearing chunk is the i-th token, read after it was written.
        long send = run.originNanos() + r.sendNanos();
        assertThat(send).isLessThanOrEqualTo(server.arrivalNanos());
        ChunkTimeline.Cursor c = r.chunks().cursor();
        int i = 0;
        while (c.next()) {
          if (c.kind().isTokenBearing()) {
            assertThat(send + c.offsetNanos()).as("token %d", i).isGreaterThanOrEqualTo(server.tokenNanos(i));
            i++;
          }
        }
        assertThat(i).isGreaterThanOrEqualTo(tokens - 1); // TGI's EOS token shows no text
        // TTFT is the server's plus what this request itself took on the way there (send -> arrival) and back (the
        // first token's write -> read), both measured here against the simulator's ground truth on the one clock and
        // never negative: exact per request, where a whole-run percentile (the client floor) is exceeded by chance
        // by one slow read on a busy machine.
        long upload = server.arrivalNanos() - send; // >= 0: asserted above
        TokenDelays delays = TokenDelays.of(run, r, server.firstTokenNanos().getAsLong(), server.tokenNanos(i - 1));
        assertThat(LatencyMetric.TTFT.valuesMillis(r)).as("TTFT of %s (upload %d ns, %s)", r, upload, delays)
            .containsExactly(new double[] {
                (upload + server.timeToFirstTokenNanos().getAsLong() + delays.firstNanos()) / 1e6}, within(ROUNDING_MS));
      }
    }
  }

  @Test
  void aRequestThatDoesNotStreamIsOneChunkWithTheServersCount() {
    try (Simulator sim = start(config().build());
        HttpTarget target = protocol.target(sim, transport.get())) {
      RunResult run = run(target, GenerationParams.builder().maxTokens(8).stream(false).build(), 1);
      RequestRecord r = run.records().get(0);
      assertThat(r.succeeded()).as("%s", r).isTrue();
      assertThat(r.chunks().size()).isEqualTo(1);
      if (protocol.reportsUsage()) {
        assertThat(r.outputTokens()).isEqualTo(sim.timeline(r.requestId()).orElseThrow().tokenCount());
      }
    }
  }

  private Failure failureOf(SimulatorConfig config, GenerationParams params, boolean wrongModel) {
    try (Simulator sim = start(config);
        HttpTarget target = wrongModel ? protocol.factory().make(sim.baseUrl(), "no-such-model", transport.get())
            : protocol.target(sim, transport.get())) {
      RequestRecord r = run(target, params, 1).records().get(0);
      return r.failure().orElseThrow(() -> new AssertionError("expected a failure: " + r));
    }
  }

  private static final GenerationParams EIGHT = GenerationParams.builder().maxTokens(8).build();

  @Test
  void everyErrorShapeEndsAsItsCategory() {
    ErrorCategory beforeStream = protocol.errorsInsideStream() ? ErrorCategory.STREAM_ERROR : ErrorCategory.HTTP_STATUS;
    // Rejected on arrival: 429 in the protocol's error shape (TGI's generate_stream: an error event).
    Failure limited = failureOf(config().faultOnRequests(Fault.rateLimited(Duration.ofSeconds(1)), 0).build(), EIGHT,
        false);
    assertThat(limited.category()).isEqualTo(beforeStream);
    assertThat(limited.message()).contains("Injected rate limit");
    // Invalid: more tokens than the context holds.
    Failure invalid = failureOf(config().maxModelLength(64).build(),
        GenerationParams.builder().maxTokens(100).build(), false);
    assertThat(invalid.category()).isEqualTo(beforeStream);
    assertThat(invalid.message()).contains("maximum context length");
    // Inside the stream: an error event, and a cut-off event.
    Failure midStream = failureOf(config().faultOnRequests(Fault.streamError(2), 0).build(), EIGHT, false);
    assertThat(midStream.category()).isEqualTo(ErrorCategory.STREAM_ERROR);
    assertThat(midStream.message()).contains("Injected generation error");
    Failure malformed = failureOf(config().faultOnRequests(Fault.malformedChunk(2), 0).build(), EIGHT, false);
    assertThat(malformed.category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    if (protocol.namesModel()) {
      Failure unknown = failureOf(config().build(), EIGHT, true);
      assertThat(unknown.category()).isEqualTo(ErrorCategory.HTTP_STATUS);
      assertThat(unknown.httpStatus()).isEqualTo(404);
      assertThat(unknown.message()).contains("no-such-model");
    }
  }
}
