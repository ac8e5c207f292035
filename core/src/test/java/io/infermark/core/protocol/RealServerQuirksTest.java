package io.infermark.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.RequestRecord;
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
import io.infermark.core.transport.netty.NettyTransport;
import io.infermark.core.workload.WorkloadTags;
import io.infermark.testfixtures.RawServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What OpenAI-compatible servers really send (docs/protocols.md, "what servers really send"), each seen on a
 * server infermark did not write (Jlama 0.8.4 in {@code shared/realserver}, llama.cpp, Ollama), replayed byte for
 * byte by a raw socket server, on both transports and both OpenAI-shaped targets (chat and legacy completions):
 * each is parsed, classified or recorded as that table says.
 */
@ParameterizedClass(name = "{0} {1}")
@MethodSource("cases")
class RealServerQuirksTest {

  static Stream<Arguments> cases() {
    List<Arguments> all = new ArrayList<>();
    for (Named<Supplier<Transport>> t : List.<Named<Supplier<Transport>>>of(
        Named.of("netty", NettyTransport::create), Named.of("okhttp", OkHttpTransport::create))) {
      for (OpenAiTarget.Endpoint e : OpenAiTarget.Endpoint.values()) {
        all.add(Arguments.of(t, e));
      }
    }
    return all.stream();
  }

  @Parameter(0)
  Supplier<Transport> transport;

  @Parameter(1)
  OpenAiTarget.Endpoint endpoint;

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  /** How a server writes its stream. */
  private static final class Style {
    String prefix = "data: ";
    String eol = "\n";
    boolean done = true;
    boolean indexCountsChunks;
    boolean nulls;
    boolean finishChunk = true;
    String usage = "";

    Style jlama() {
      prefix = "data:";
      done = false;
      indexCountsChunks = true;
      nulls = true;
      return this;
    }
  }

  /** A chat or completions stream of the given tokens, one per event, in the given style. */
  private String stream(Style s, String... tokens) {
    StringBuilder b = new StringBuilder();
    boolean chat = endpoint == OpenAiTarget.Endpoint.CHAT;
    String tail = s.nulls ? ",\"created\":null,\"model\":null,\"object\":null,\"usage\":null}"
        : ",\"created\":1733000000,\"model\":\"m\",\"object\":\"" + (chat ? "chat.completion.chunk" : "text_completion")
            + "\"}";
    for (int i = 0; i < tokens.length; i++) {
      String piece = chat ? "\"delta\":{\"content\":\"" + tokens[i] + "\"" + (s.nulls ? ",\"role\":null,\"tool_calls\":null" : "")
          + "}" : "\"text\":\"" + tokens[i] + "\"";
      b.append(s.prefix).append("{\"id\":\"x\",\"choices\":[{").append(piece).append(",\"finish_reason\":null,\"index\":")
          .append(s.indexCountsChunks ? i : 0).append("}]").append(tail).append(s.eol).append(s.eol);
    }
    if (s.finishChunk) {
      String piece = chat ? "\"delta\":{\"content\":\"\"}" : "\"text\":\"\"";
      b.append(s.prefix).append("{\"id\":\"x\",\"choices\":[{").append(piece).append(",\"finish_reason\":\"stop\",\"index\":")
          .append(s.indexCountsChunks ? "null" : "0").append("}]").append(tail).append(s.eol).append(s.eol);
    }
    if (!s.usage.isEmpty()) {
      b.append(s.prefix).append("{\"id\":\"x\",\"choices\":[],\"usage\":").append(s.usage).append('}').append(s.eol)
          .append(s.eol);
    }
    if (s.done) {
      b.append(s.prefix).append("[DONE]").append(s.eol).append(s.eol);
    }
    return b.toString();
  }

  /** Serves {@code body} as a chunked event stream (in two writes, split mid-event) and closes. */
  private RawServer serving(String body) throws IOException {
    RawServer server = new RawServer((socket, i) -> {
      RawServer.readRequest(socket.getInputStream());
      RawServer.write(socket.getOutputStream(), RawServer.SSE_HEAD);
      int half = body.length() / 2;
      for (String piece : new String[] {body.substring(0, half), body.substring(half)}) {
        if (!piece.isEmpty()) { // an empty chunk would end the body
          RawServer.writeChunk(socket.getOutputStream(), piece);
        }
      }
      RawServer.write(socket.getOutputStream(), "0\r\n\r\n");
      socket.getOutputStream().flush();
    });
    open.add(server);
    return server;
  }

  private RequestRecord send(RawServer server, GenerationParams params) {
    String url = server.url(endpoint == OpenAiTarget.Endpoint.CHAT ? "/chat/completions" : "/completions").toString();
    OpenAiTarget target = OpenAiTarget.at(url, "m").transport(transport.get()).readTimeout(Duration.ofSeconds(10))
        .build();
    open.add(target);
    TokenTimeline timeline = TokenTimeline.builder(Clock.system()).requestId("r").captureText(true).build();
    target.execute(new InferenceRequest("r", Prompt.chat(Message.user("Hi")), params), timeline, new Cancellation());
    return timeline.record().orElseThrow();
  }

  private RequestRecord send(String body) throws IOException {
    return send(serving(body), GenerationParams.defaults());
  }

  @Test
  void noUsageCountsOutputsFromTheStreamAndSaysSo() throws IOException {
    RequestRecord r = send(stream(new Style(), " a", " b", " c"));

    assertThat(r.succeeded()).isTrue();
    assertThat(r.outputTokens()).isEqualTo(3);
    assertThat(r.outputTokensSource()).isEqualTo(TokenCountSource.CHUNK_COUNT);
    assertThat(r.usage().promptTokens()).isEmpty();
    assertThat(r.text()).contains(" a b c");
  }

  @Test
  void noDoneAfterAFinishReasonIsAComplete() throws IOException {
    Style s = new Style();
    s.done = false;
    RequestRecord r = send(stream(s, " a", " b"));

    assertThat(r.succeeded()).isTrue();
    assertThat(r.finishReason()).contains("stop");
    assertThat(r.outputTokens()).isEqualTo(2);
  }

  @Test
  void noDoneAndNoFinishReasonIsACutStream() throws IOException {
    Style s = new Style();
    s.done = false;
    s.finishChunk = false;
    RequestRecord r = send(stream(s, " a", " b"));

    assertThat(r.failure().orElseThrow().category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(r.failure().orElseThrow().message()).contains("stream ended before [DONE]");
    assertThat(r.chunks().tokenChunkCount()).isEqualTo(2); // what did arrive is kept
  }

  @Test
  void dataWithoutASpaceIsParsed() throws IOException {
    Style s = new Style();
    s.prefix = "data:";
    RequestRecord r = send(stream(s, " a", " b"));

    assertThat(r.succeeded()).isTrue();
    assertThat(r.text()).contains(" a b");
  }

  @Test
  void aChoiceIndexThatCountsChunksIsStillOneChoice() throws IOException {
    Style s = new Style();
    s.indexCountsChunks = true;
    s.usage = "{\"prompt_tokens\":9,\"completion_tokens\":4,\"total_tokens\":13}";
    RequestRecord r = send(stream(s, " a", " b", " c", " d"));

    assertThat(r.succeeded()).isTrue();
    assertThat(r.text()).contains(" a b c d");
    assertThat(r.outputTokens()).isEqualTo(4);
    assertThat(r.outputTokensSource()).isEqualTo(TokenCountSource.SERVER_USAGE);
    assertThat(r.tokenCountsDisagree()).isFalse();
    assertThat(r.usage().promptTokens()).hasValue(9);
  }

  @Test
  void modelCreatedObjectAndUsageNullAreParsed() throws IOException {
    Style s = new Style();
    s.nulls = true;
    RequestRecord r = send(stream(s, " a", " b"));

    assertThat(r.succeeded()).isTrue();
    assertThat(r.outputTokens()).isEqualTo(2);
    assertThat(r.usage().isEmpty()).isTrue();
  }

  @Test
  void crlfLineEndsAreParsed() throws IOException {
    Style s = new Style();
    s.eol = "\r\n";
    RequestRecord r = send(stream(s, " a", " b", " c"));

    assertThat(r.succeeded()).isTrue();
    assertThat(r.chunks().tokenChunkCount()).isEqualTo(3);
    assertThat(r.text()).contains(" a b c");
  }

  @Test
  void jlamasWholeShapeIsParsed() throws IOException {
    Style s = new Style().jlama();
    s.eol = "\r\n";
    RequestRecord r = send(stream(s, " parts", " object", " offer"));

    assertThat(r.succeeded()).isTrue();
    assertThat(r.outputTokens()).isEqualTo(3);
    assertThat(r.text()).contains(" parts object offer");
  }

  @Test
  void anEmpty200StreamIsAnEmptyResponseFailure() throws IOException {
    RequestRecord onlyFinish = send(stream(new Style().jlama()));
    Style doneOnly = new Style();
    doneOnly.finishChunk = false;
    RequestRecord onlyDone = send(stream(doneOnly));

    for (RequestRecord r : List.of(onlyFinish, onlyDone)) {
      assertThat(r.succeeded()).isFalse();
      assertThat(r.failure().orElseThrow().category()).isEqualTo(ErrorCategory.EMPTY_RESPONSE);
      assertThat(r.failure().orElseThrow().httpStatus()).isEqualTo(200);
      assertThat(r.chunks().firstTokenOffsetNanos()).isEmpty();
    }
    assertThat(onlyFinish.failure().orElseThrow().message())
        .isEqualTo("the reply ended without a single token (1 chunk, finish reason stop)");
  }

  @Test
  void aStreamThatClosesWithNothingAtAllIsACutStream() throws IOException {
    RequestRecord r = send("");

    assertThat(r.failure().orElseThrow().category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
  }

  @Test
  void maxTokensReadAsATotalIsOnTheRecordForTheSummariesToWarn() throws IOException {
    // asked for 8 with ignore_eos; the server counted the prompt in and stopped after 3
    RequestRecord r = send(serving(stream(new Style().jlama(), " a", " b", " c")),
        GenerationParams.builder().maxTokens(8).ignoreEos(true).build());

    assertThat(r.succeeded()).isTrue();
    assertThat(r.outputTokens()).isEqualTo(3);
    assertThat(r.tags()).containsEntry(WorkloadTags.OUTPUT_TOKENS_REQUESTED, "8");
  }

  @Test
  void withoutIgnoreEosNoExactLengthIsClaimed() throws IOException {
    RequestRecord r = send(serving(stream(new Style(), " a")), GenerationParams.builder().maxTokens(8).build());

    assertThat(r.tags()).doesNotContainKey(WorkloadTags.OUTPUT_TOKENS_REQUESTED);
  }

  @Test
  void aNonStreamedReplyWithNullsIsParsedAndAnEmptyOneFails() throws IOException {
    boolean chat = endpoint == OpenAiTarget.Endpoint.CHAT;
    String answer = chat
        ? "{\"id\":\"x\",\"choices\":[{\"finish_reason\":\"stop\",\"index\":null,\"message\":{\"content\":\"%s\","
            + "\"tool_calls\":null,\"role\":null}}],\"created\":null,\"model\":null,\"object\":null,\"usage\":null}"
        : "{\"id\":\"x\",\"choices\":[{\"finish_reason\":\"stop\",\"index\":null,\"text\":\"%s\"}],\"created\":null,"
            + "\"model\":null,\"object\":null,\"usage\":null}";
    RequestRecord full = send(json(String.format(answer, " go been v")), GenerationParams.builder().stream(false).build());
    RequestRecord empty = send(json(String.format(answer, "")), GenerationParams.builder().stream(false).build());

    assertThat(full.succeeded()).isTrue();
    assertThat(full.text()).contains(" go been v");
    assertThat(empty.failure().orElseThrow().category()).isEqualTo(ErrorCategory.EMPTY_RESPONSE);
  }

  private RawServer json(String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    RawServer server = new RawServer((socket, i) -> {
      RawServer.readRequest(socket.getInputStream());
      RawServer.write(socket.getOutputStream(), "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
          + bytes.length + "\r\nConnection: close\r\n\r\n" + body);
    });
    open.add(server);
    return server;
  }
}
