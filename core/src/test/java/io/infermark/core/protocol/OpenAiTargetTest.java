package io.infermark.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.TimeoutPhase;
import io.infermark.core.capture.TokenCountSource;
import io.infermark.core.capture.TokenTimeline;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import io.infermark.core.time.Clock;
import io.infermark.core.transport.Cancellation;
import io.infermark.core.transport.OkHttpTransport;
import io.infermark.core.transport.Transport;
import io.infermark.core.transport.netty.HttpVersionPolicy;
import io.infermark.core.transport.netty.NettyTransport;
import io.infermark.testfixtures.MockServers;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/** Every behaviour on every transport: the protocol must not depend on which one moves its bytes. */
@ParameterizedClass(name = "{0}")
@MethodSource("transports")
class OpenAiTargetTest {

  static Stream<Named<Supplier<Transport>>> transports() {
    return Stream.of(Named.of("netty", NettyTransport::create), Named.of("okhttp", OkHttpTransport::create),
        Named.of("netty-h2c", () -> NettyTransport.builder().httpVersion(HttpVersionPolicy.HTTP_2).build()));
  }

  /** True when the transport under test speaks HTTP/2: the server then speaks h2c with prior knowledge. */
  private boolean http2() {
    try (Transport t = transport.get()) {
      return t instanceof NettyTransport n && n.httpVersion() == HttpVersionPolicy.HTTP_2;
    }
  }

  @Parameter
  Supplier<Transport> transport;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SECRET = "sk-test-SECRET-do-not-leak";
  private static final String STREAM = ""
      + "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n"
      + "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"}}]}\n\n"
      + "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" world\"},\"finish_reason\":\"length\"}]}\n\n"
      + "data: {\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":2,\"total_tokens\":9}}\n\n"
      + "data: [DONE]\n\n";

  private MockWebServer server;

  @BeforeEach
  void start() throws IOException {
    server = http2() ? MockServers.h2c() : MockServers.builder().start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private OpenAiTarget.Builder chat() {
    return OpenAiTarget.chat(server.url("/v1").toString(), "test-model").apiKey(SECRET).transport(transport.get());
  }

  private static RequestRecord execute(OpenAiTarget target, InferenceRequest request) {
    TokenTimeline timeline = TokenTimeline.builder(Clock.system()).requestId(request.id()).captureText(true).build();
    target.execute(request, timeline, new Cancellation());
    return timeline.record().orElseThrow();
  }

  private static InferenceRequest request(GenerationParams params) {
    return new InferenceRequest("req-1", Prompt.chat(Message.system("Be brief."), Message.user("Hi")), params);
  }

  private static MockResponse sse(String body) {
    return new MockResponse.Builder().addHeader("Content-Type", "text/event-stream").body(body).build();
  }

  @Test
  void retryAfterOfA429OrA503IsKeptRawOnTheRecordAndOfOtherStatusesIgnored() throws Exception {
    server.enqueue(new MockResponse.Builder().code(429).addHeader("Retry-After", "17").body("{\"error\":\"slow down\"}")
        .build());
    server.enqueue(new MockResponse.Builder().code(503).addHeader("Retry-After", "Wed, 21 Oct 2026 07:28:00 GMT")
        .body("busy").build());
    server.enqueue(new MockResponse.Builder().code(500).addHeader("Retry-After", "5").body("oops").build());
    try (OpenAiTarget target = chat().build()) {
      RequestRecord tooMany = execute(target, request(GenerationParams.defaults()));
      RequestRecord unavailable = execute(target, request(GenerationParams.defaults()));
      RequestRecord error = execute(target, request(GenerationParams.defaults()));

      assertThat(tooMany.httpStatus()).isEqualTo(429);
      assertThat(tooMany.retryAfter()).contains("17");
      assertThat(tooMany.toString()).contains("Retry-After 17");
      assertThat(unavailable.retryAfter()).contains("Wed, 21 Oct 2026 07:28:00 GMT");
      assertThat(error.retryAfter()).isEmpty();
    }
  }

  @Test
  void streamedChatIsCapturedWithKindsUsageAndText() throws Exception {
    server.enqueue(sse(STREAM));
    try (OpenAiTarget target = chat().build()) {
      RequestRecord r = execute(target, request(GenerationParams.defaults()));

      assertThat(r.succeeded()).isTrue();
      assertThat(r.httpStatus()).isEqualTo(200);
      assertThat(r.chunks().size()).isEqualTo(4);
      assertThat(r.chunks().tokenChunkCount()).isEqualTo(2);
      assertThat(r.outputTokens()).isEqualTo(2);
      assertThat(r.outputTokensSource()).isEqualTo(TokenCountSource.SERVER_USAGE);
      assertThat(r.usage().promptTokens()).hasValue(7);
      assertThat(r.finishReason()).contains("length");
      assertThat(r.text()).contains("Hello world");
      assertThat(r.phases().offsetNanos(Phase.CONNECT_END)).isPresent();
      assertThat(r.phases().offsetNanos(Phase.REQUEST_SENT)).isPresent();
      assertThat(r.phases().offsetNanos(Phase.RESPONSE_HEADERS_START)).isPresent();
      assertThat(r.chunks().firstTokenOffsetNanos().getAsLong())
          .isGreaterThanOrEqualTo(r.phases().offsetNanos(Phase.RESPONSE_HEADERS_END).getAsLong());
    }
  }

  @Test
  void chatBodyCarriesModelMessagesStreamOptionsAndParameters() throws Exception {
    server.enqueue(sse(STREAM));
    GenerationParams params = GenerationParams.builder().maxTokens(64).temperature(0.5).ignoreEos(true)
        .extraBody("top_k", 5).extraBody("stream_options", Map.of("include_usage", true, "x", 1))
        .header("X-Tenant", "t1").build();
    try (OpenAiTarget target = chat().build()) {
      execute(target, request(params));
    }
    RecordedRequest recorded = server.takeRequest(5, TimeUnit.SECONDS);
    JsonNode body = JSON.readTree(recorded.getBody().utf8());

    assertThat(recorded.getUrl().encodedPath()).isEqualTo("/v1/chat/completions");
    assertThat(body.get("model").asText()).isEqualTo("test-model");
    assertThat(body.get("messages").get(0).get("role").asText()).isEqualTo("system");
    assertThat(body.get("messages").get(1).get("content").asText()).isEqualTo("Hi");
    assertThat(body.get("stream").asBoolean()).isTrue();
    assertThat(body.get("max_tokens").asInt()).isEqualTo(64);
    assertThat(body.get("temperature").asDouble()).isEqualTo(0.5);
    assertThat(body.get("ignore_eos").asBoolean()).isTrue();
    assertThat(body.get("top_k").asInt()).isEqualTo(5);
    assertThat(body.get("stream_options").get("x").asInt()).isEqualTo(1); // extra body wins
    assertThat(recorded.getHeaders().get("Authorization")).isEqualTo("Bearer " + SECRET);
    assertThat(recorded.getHeaders().get("X-Request-Id")).isEqualTo("req-1");
    assertThat(recorded.getHeaders().get("X-Tenant")).isEqualTo("t1");
    assertThat(recorded.getHeaders().get("Accept")).isEqualTo("text/event-stream, application/json;q=0.9");
  }

  @Test
  void defaultBodyAsksForUsageAndOmitsUnsetParameters() throws Exception {
    server.enqueue(sse(STREAM));
    try (OpenAiTarget target = chat().build()) {
      execute(target, request(GenerationParams.defaults()));
    }
    JsonNode body = JSON.readTree(server.takeRequest(5, TimeUnit.SECONDS).getBody().utf8());
    assertThat(body.get("stream_options").get("include_usage").asBoolean()).isTrue();
    assertThat(body.has("stream_options.continuous_usage_stats")).isFalse();
    assertThat(body.has("max_tokens")).isFalse();
    assertThat(body.has("temperature")).isFalse();
    assertThat(body.has("ignore_eos")).isFalse();
  }

  @Test
  void completionsEndpointSendsPlainPromptAndMaxCompletionTokensIsOptIn() throws Exception {
    server.enqueue(sse("data: {\"choices\":[{\"index\":0,\"text\":\" John\",\"finish_reason\":\"length\"}]}\n\n"
        + "data: [DONE]\n\n"));
    server.enqueue(sse(STREAM));
    OpenAiTarget completions = OpenAiTarget.completions(server.url("/v1/").toString(), "m")
        .transport(transport.get()).build();
    RequestRecord r = execute(completions, new InferenceRequest("c", Prompt.text("My name is"),
        GenerationParams.builder().maxTokens(5).build()));
    OpenAiTarget chat = chat().useMaxCompletionTokens(true).continuousUsageStats(true).textAsContentParts(true).build();
    execute(chat, request(GenerationParams.builder().maxTokens(5).build()));

    RecordedRequest first = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(first.getUrl().encodedPath()).isEqualTo("/v1/completions");
    assertThat(JSON.readTree(first.getBody().utf8()).get("prompt").asText()).isEqualTo("My name is");
    assertThat(r.chunks().tokenChunkCount()).isEqualTo(1);
    JsonNode second = JSON.readTree(server.takeRequest(5, TimeUnit.SECONDS).getBody().utf8());
    assertThat(second.get("max_completion_tokens").asInt()).isEqualTo(5);
    assertThat(second.has("max_tokens")).isFalse();
    assertThat(second.get("stream_options").get("continuous_usage_stats").asBoolean()).isTrue();
    JsonNode content = second.get("messages").get(0).get("content");
    assertThat(content.isArray()).as("vLLM's content form: a list of parts").isTrue();
    assertThat(content.get(0).get("type").asText()).isEqualTo("text");
    assertThat(content.get(0).get("text").asText()).isNotEmpty();
    completions.close();
    chat.close();
  }

  @Test
  void baseUrlWithoutPathGetsV1() {
    assertThat(OpenAiTarget.chat("http://localhost:8000", "m").build().url())
        .isEqualTo("http://localhost:8000/v1/chat/completions");
    assertThat(OpenAiTarget.completions("http://localhost:8000/v1/", "m").build().url())
        .isEqualTo("http://localhost:8000/v1/completions");
    assertThatThrownBy(() -> OpenAiTarget.chat("localhost:8000", "m")).hasMessageContaining("not an http(s) URL");
    assertThatThrownBy(() -> OpenAiTarget.chat("http://h/v1", " ")).hasMessageContaining("model");
  }

  @Test
  void anEndpointUrlIsPostedToExactlyAsGivenAtTheRootUnderV1OrAnyPrefix() throws Exception {
    String root = server.url("/").toString();
    for (String path : List.of("/chat/completions", "/v1/chat/completions", "/team/llm/v1/chat/completions",
        "/completions", "/openai/v1/completions")) {
      server.enqueue(sse(STREAM));
      String url = root.substring(0, root.length() - 1) + path;
      try (OpenAiTarget target = OpenAiTarget.at(url, "test-model").transport(transport.get()).build()) {
        assertThat(target.url()).isEqualTo(url);
        assertThat(target.endpoint()).isEqualTo(path.endsWith("chat/completions")
            ? OpenAiTarget.Endpoint.CHAT : OpenAiTarget.Endpoint.COMPLETIONS);
        RequestRecord r = execute(target, request(GenerationParams.defaults()));
        assertThat(r.succeeded()).isTrue();
        assertThat(server.takeRequest(5, TimeUnit.SECONDS).getTarget()).isEqualTo(path);
      }
    }
    assertThatThrownBy(() -> OpenAiTarget.at(root + "v1/models", "m"))
        .hasMessageContaining("ends in /chat/completions or /completions");
    assertThatThrownBy(() -> OpenAiTarget.at("http://user:pw@h/v1", "m")).hasMessageNotContaining("pw");
  }

  @Test
  void aNotFoundWithNoBodySaysWhichPathWasAskedForAndThatTheBodyWasEmpty() {
    // Spring Boot (Jlama) answers an event-stream request for a path it does not serve with 404 and no body
    server.enqueue(new MockResponse.Builder().code(404).build());
    try (OpenAiTarget target = chat().build()) {
      Failure f = execute(target, request(GenerationParams.defaults())).failure().orElseThrow();
      assertThat(f.httpStatus()).isEqualTo(404);
      assertThat(f.message()).isEqualTo("HTTP 404: POST /v1/chat/completions: (empty body)");
    }
  }

  @Test
  void aSpringErrorPageKeepsItsMessageAndPath() {
    server.enqueue(new MockResponse.Builder().code(404).addHeader("Content-Type", "application/json")
        .body("{\"timestamp\":\"2026-12-02T08:10:51.158+00:00\",\"status\":404,\"error\":\"Not Found\","
            + "\"path\":\"/v1/chat/completions\"}").build());
    try (OpenAiTarget target = chat().build()) {
      Failure f = execute(target, request(GenerationParams.defaults())).failure().orElseThrow();
      assertThat(f.message()).isEqualTo("HTTP 404: POST /v1/chat/completions: Not Found (path /v1/chat/completions)");
    }
  }

  @Test
  void httpErrorIsClassifiedWithAnExcerptAndNoSecret() {
    server.enqueue(new MockResponse.Builder().code(401).addHeader("Content-Type", "application/json")
        .body("{\"error\":{\"message\":\"Unauthorized\",\"type\":\"invalid_request_error\"}}").build());
    try (OpenAiTarget target = chat().build()) {
      RequestRecord r = execute(target, request(GenerationParams.defaults()));

      Failure f = r.failure().orElseThrow();
      assertThat(f.category()).isEqualTo(ErrorCategory.HTTP_STATUS);
      assertThat(f.httpStatus()).isEqualTo(401);
      assertThat(f.message()).contains("Unauthorized").doesNotContain(SECRET);
      assertThat(r.httpStatus()).isEqualTo(401);
      assertThat(target.toString()).doesNotContain(SECRET).contains("api key ***");
    }
  }

  @Test
  void keyEchoedInAnErrorBodyIsRedacted() {
    server.enqueue(new MockResponse.Builder().code(401).addHeader("Content-Type", "application/json")
        .body("{\"error\":{\"message\":\"Incorrect API key provided: " + SECRET + "\",\"type\":\"invalid_request_error\"}}")
        .build());
    try (OpenAiTarget target = chat().build()) {
      Failure f = execute(target, request(GenerationParams.defaults())).failure().orElseThrow();
      assertThat(f.message()).contains("Incorrect API key provided: ***").doesNotContain(SECRET);
    }
  }

  @Test
  void serverErrorStatusIsClassified() {
    server.enqueue(new MockResponse.Builder().code(503).body("overloaded").build());
    try (OpenAiTarget target = chat().build()) {
      Failure f = execute(target, request(GenerationParams.defaults())).failure().orElseThrow();
      assertThat(f.category()).isEqualTo(ErrorCategory.HTTP_STATUS);
      assertThat(f.httpStatus()).isEqualTo(503);
      assertThat(f.message()).contains("overloaded");
    }
  }

  @Test
  void refusedConnectionIsAConnectFailure() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    try (OpenAiTarget target = OpenAiTarget.chat("http://127.0.0.1:" + port + "/v1", "m").transport(transport.get())
        .build()) {
      Failure f = execute(target, request(GenerationParams.defaults())).failure().orElseThrow();
      assertThat(f.category()).isEqualTo(ErrorCategory.CONNECT);
      assertThat(f.httpStatus()).isZero();
    }
  }

  @Test
  void silenceLongerThanTheReadTimeoutIsAReadTimeout() {
    server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/event-stream")
        .body(STREAM).bodyDelay(2, TimeUnit.SECONDS).build());
    try (OpenAiTarget target = chat().readTimeout(Duration.ofMillis(100)).build()) {
      Failure f = execute(target, request(GenerationParams.defaults())).failure().orElseThrow();
      assertThat(f.category()).isEqualTo(ErrorCategory.TIMEOUT);
      assertThat(f.timeoutPhase()).isEqualTo(TimeoutPhase.READ);
    }
  }

  @Test
  void aStreamThatNeverFallsSilentForTheReadTimeoutCompletesAlthoughItTakesLonger() {
    // 64 bytes every 40 ms: the whole stream (keep-alive comments first) takes about 1.6 s, longer
    // than the 1 s read timeout, but no silence comes near it (a busy machine may stall the server's
    // writes for tens of milliseconds, not for a second), so the watchdog must see every read.
    server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/event-stream")
        .body(": keep-alive\n\n".repeat(150) + STREAM).throttleBody(64, 40, TimeUnit.MILLISECONDS)
        .build());
    try (OpenAiTarget target = chat().readTimeout(Duration.ofSeconds(1)).build()) {
      RequestRecord r = execute(target, request(GenerationParams.defaults()));
      assertThat(r.failure()).isEmpty();
      assertThat(r.endOffsetNanos()).isGreaterThan(TimeUnit.SECONDS.toNanos(1));
    }
  }

  @Test
  void aNonStreamedBodyLateByMoreThanTheReadTimeoutIsAReadTimeout() {
    server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "application/json")
        .body("{\"choices\":[]}").bodyDelay(2, TimeUnit.SECONDS).build());
    try (OpenAiTarget target = chat().readTimeout(Duration.ofMillis(100)).build()) {
      Failure f = execute(target, request(GenerationParams.builder().stream(false).build())).failure().orElseThrow();
      assertThat(f.timeoutPhase()).isEqualTo(TimeoutPhase.READ);
      assertThat(f.message()).contains("100 ms");
    }
  }

  @Test
  void aStreamStillFlowingAtTheCallDeadlineIsACallTimeout() {
    // 64 bytes every 50 ms: never silent for the read timeout, but far slower than the call deadline.
    server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/event-stream")
        .body(STREAM).throttleBody(64, 50, TimeUnit.MILLISECONDS).build());
    try (OpenAiTarget target = chat().readTimeout(Duration.ofSeconds(5)).callTimeout(Duration.ofMillis(300))
        .build()) {
      RequestRecord r = execute(target, request(GenerationParams.defaults()));
      Failure f = r.failure().orElseThrow();
      assertThat(f.category()).isEqualTo(ErrorCategory.TIMEOUT);
      assertThat(f.timeoutPhase()).isEqualTo(TimeoutPhase.CALL);
      // The deadline runs from the call's start; the send is stamped later, at the first network action.
      assertThat(r.sendNanos() + r.endOffsetNanos()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(300));
    }
  }

  @Test
  void connectionDroppedDuringTheBodyIsAReset() {
    server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/event-stream")
        .body(STREAM).onResponseBody(SocketEffect.ShutdownConnection.INSTANCE).build());
    try (OpenAiTarget target = chat().build()) {
      RequestRecord r = execute(target, request(GenerationParams.defaults()));
      assertThat(r.failure().orElseThrow().category()).isEqualTo(ErrorCategory.RESET);
    }
  }

  @Test
  void streamCutBeforeDoneIsMalformed() {
    String truncated = STREAM.substring(0, STREAM.indexOf("data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" world"));
    server.enqueue(sse(truncated));
    try (OpenAiTarget target = chat().build()) {
      RequestRecord r = execute(target, request(GenerationParams.defaults()));
      assertThat(r.failure().orElseThrow().category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
      assertThat(r.chunks().tokenChunkCount()).isEqualTo(1);
    }
  }

  @Test
  void invalidJsonChunkIsMalformed() {
    server.enqueue(sse("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {not json\n\ndata: [DONE]\n\n"));
    try (OpenAiTarget target = chat().build()) {
      Failure f = execute(target, request(GenerationParams.defaults())).failure().orElseThrow();
      assertThat(f.category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    }
  }

  @Test
  void errorObjectMidStreamIsAStreamError() {
    server.enqueue(sse("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"
        + "data: {\"error\": {\"message\": \"EngineCore encountered an issue.\", \"type\": \"BadRequestError\"}}\n\n"
        + "data: [DONE]\n\n"));
    try (OpenAiTarget target = chat().build()) {
      RequestRecord r = execute(target, request(GenerationParams.defaults()));
      Failure f = r.failure().orElseThrow();
      assertThat(f.category()).isEqualTo(ErrorCategory.STREAM_ERROR);
      assertThat(f.message()).contains("EngineCore");
      assertThat(f.httpStatus()).isEqualTo(200);
      assertThat(r.chunks().tokenChunkCount()).isEqualTo(1);
    }
  }

  @Test
  void nonStreamingResponseBecomesOneChunk() throws Exception {
    server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "application/json")
        .body("{\"id\":\"x\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Hi there\"},"
            + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,\"total_tokens\":5}}")
        .build());
    try (OpenAiTarget target = chat().build()) {
      RequestRecord r = execute(target, request(GenerationParams.builder().stream(false).build()));
      assertThat(r.succeeded()).isTrue();
      assertThat(r.chunks().size()).isEqualTo(1);
      assertThat(r.outputTokens()).isEqualTo(2);
      assertThat(r.text()).contains("Hi there");
    }
    JsonNode body = JSON.readTree(server.takeRequest(5, TimeUnit.SECONDS).getBody().utf8());
    assertThat(body.has("stream")).isFalse();
    assertThat(body.has("stream_options")).isFalse();
  }

  @Test
  void cancellationAbortsTheCallAndIsClassified() throws Exception {
    server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/event-stream")
        .body(STREAM).bodyDelay(10, TimeUnit.SECONDS).build());
    try (OpenAiTarget target = chat().build()) {
      TokenTimeline timeline = TokenTimeline.start(Clock.system());
      Cancellation cancellation = new Cancellation();
      Thread canceller = new Thread(() -> {
        // Cancel once the request has reached the server, without sleeping for it.
        try {
          server.takeRequest(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        cancellation.cancel();
      });
      canceller.start();
      target.execute(request(GenerationParams.defaults()), timeline, cancellation);
      canceller.join();
      assertThat(timeline.record().orElseThrow().failure().orElseThrow().category())
          .isEqualTo(ErrorCategory.CANCELLED);
    }
  }

  @Test
  void pooledConnectionsAreReusedAndThePhasesSaySo() {
    for (int i = 0; i < 10; i++) {
      server.enqueue(sse(STREAM));
    }
    try (OpenAiTarget target = chat().build()) {
      List<RequestRecord> records = new java.util.ArrayList<>();
      for (int i = 0; i < 10; i++) {
        records.add(execute(target, request(GenerationParams.defaults())));
      }
      assertThat(records.get(0).phases().connectionReused()).isFalse();
      // A request started the moment [DONE] arrived can beat the end of the HTTP message to the pool (the
      // event-loop transport looks again after that read, but the end may come in a later one), so not
      // every request reuses; each says truthfully whether it did.
      assertThat(records).filteredOn(r -> r.phases().connectionReused()).isNotEmpty();
      assertThat(records).allSatisfy(r ->
          assertThat(r.phases().connectNanos().isPresent()).isEqualTo(!r.phases().connectionReused()));
    }
  }

  @Test
  void aSecretEchoedInsideTheStreamIsRedacted() {
    server.enqueue(sse("data: {\"error\":{\"message\":\"key " + SECRET + " revoked\"}}\n\n"));
    try (OpenAiTarget target = chat().build()) {
      Failure f = execute(target, request(GenerationParams.defaults())).failure().orElseThrow();
      assertThat(f.category()).isEqualTo(ErrorCategory.STREAM_ERROR);
      assertThat(f.message()).contains("key *** revoked").doesNotContain(SECRET);
    }
  }

  @Test
  void sensitiveHeaderValuesAndUrlPasswordsAreRedactedFromFailures() {
    String headerSecret = "hdr-secret-0123456789";
    server.enqueue(new MockResponse.Builder().code(403).body("bad x-api-key " + headerSecret + " for user:pw-9876")
        .build());
    String url = server.url("/v1").toString().replace("http://", "http://user:pw-9876@");
    try (OpenAiTarget target = OpenAiTarget.chat(url, "test-model").transport(transport.get()).build()) {
      GenerationParams p = GenerationParams.builder().header("x-api-key", headerSecret).build();
      Failure f = execute(target, request(p)).failure().orElseThrow();
      assertThat(f.message()).contains("bad x-api-key ***").doesNotContain(headerSecret).doesNotContain("pw-9876");
      assertThat(target.toString()).doesNotContain("pw-9876").contains("***@");
      assertThat(target.url()).doesNotContain("pw-9876");
    }
  }

  @Test
  void anEndlessLineEndsTheRequestAsAMalformedStreamWithinItsLimit() {
    server.enqueue(sse("data: {\"choices\":[{\"delta\":{\"content\":\"" + "a".repeat(64 * 1024)));
    try (OpenAiTarget target = chat().streamLimits(new io.infermark.core.stream.StreamLimits(4096, 8192)).build()) {
      Failure f = execute(target, request(GenerationParams.defaults())).failure().orElseThrow();
      assertThat(f.category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
      assertThat(f.message()).isEqualTo("line exceeds 4096 bytes");
    }
  }

  @Test
  void aNonStreamedBodyOverItsLimitIsAMalformedStream() {
    server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "application/json")
        .body("{\"choices\":[{\"message\":{\"content\":\"" + "b".repeat(100_000) + "\"}}]}").build());
    try (OpenAiTarget target = chat().maxBodyBytes(10_000).build()) {
      Failure f = execute(target, request(GenerationParams.builder().stream(false).build())).failure().orElseThrow();
      assertThat(f.category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
      assertThat(f.message()).contains("exceeds 10000 bytes");
    }
  }

  @Test
  void aCompressedBodyThatWasNotAskedForIsAMalformedStreamNotAClientFault() throws InterruptedException {
    server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/event-stream")
        .addHeader("Content-Encoding", "gzip").body("\u001f\u008bnot really gzip").build());
    try (OpenAiTarget target = chat().build()) {
      Failure f = execute(target, request(GenerationParams.defaults())).failure().orElseThrow();
      assertThat(f.category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
      assertThat(f.message()).contains("gzip");
    }
    assertThat(server.takeRequest(5, TimeUnit.SECONDS).getHeaders().get("Accept-Encoding")).isEqualTo("identity");
  }

  @Test
  void aBodyThatGoesOnAfterDoneDoesNotHoldTheRequest() {
    // [DONE], then 1 KB every 200 ms for minutes: the request ends at [DONE], not at EOF or a timeout.
    server.enqueue(new MockResponse.Builder().addHeader("Content-Type", "text/event-stream")
        .body(STREAM + ": still here\n".repeat(100_000)).throttleBody(1024, 200, TimeUnit.MILLISECONDS).build());
    try (OpenAiTarget target = chat().callTimeout(Duration.ofMinutes(5)).build()) {
      RequestRecord r = execute(target, request(GenerationParams.defaults()));
      assertThat(r.succeeded()).isTrue();
      assertThat(r.outputTokens()).isEqualTo(2);
    }
  }

  @Test
  void redirectsAreNotFollowedAndAreRecordedAsTheStatusTheyAre() {
    server.enqueue(new MockResponse.Builder().code(307).addHeader("Location", server.url("/elsewhere")).build());
    try (OpenAiTarget target = chat().build()) {
      RequestRecord r = execute(target, request(GenerationParams.defaults()));
      assertThat(r.failure().orElseThrow().category()).isEqualTo(ErrorCategory.HTTP_STATUS);
      assertThat(r.httpStatus()).isEqualTo(307);
      assertThat(server.getRequestCount()).isEqualTo(1);
    }
  }

  @Test
  void aRunMeasuresItsTransportsHealthProbes() {
    server.enqueue(sse(STREAM));
    try (OpenAiTarget target = chat().build()) {
      io.infermark.core.RunResult run = io.infermark.core.Benchmark.target(target).prompts(Prompt.user("Hi"))
          .preflight(false) // the server has one answer queued, for the run's request
          .load(io.infermark.core.load.LoadProfile.concurrency(1).requests(1)).run();
      List<String> probes = run.clientHealth().measurements().orElseThrow().probes().stream()
          .map(io.infermark.core.health.ProbeReading::name).toList();
      assertThat(probes).isEqualTo(target.healthProbes().stream().map(io.infermark.core.health.Probe::name).toList());
      if (target.isAsync()) {
        assertThat(probes).containsExactly("I/O thread 1 backlog");
      } else {
        assertThat(probes).isEmpty();
      }
    }
  }

  @Test
  void chunkKindsFollowTheStream() {
    server.enqueue(sse(STREAM));
    try (OpenAiTarget target = chat().build()) {
      RequestRecord r = execute(target, request(GenerationParams.defaults()));
      List<ChunkKind> kinds = new java.util.ArrayList<>();
      var c = r.chunks().cursor();
      while (c.next()) {
        kinds.add(c.kind());
      }
      assertThat(kinds).containsExactly(ChunkKind.ROLE, ChunkKind.CONTENT, ChunkKind.CONTENT, ChunkKind.USAGE);
    }
  }
}
