package io.infermark.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.TimeoutPhase;
import io.infermark.core.capture.TokenTimeline;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import io.infermark.core.stream.StreamLimits;
import io.infermark.core.time.Clock;
import io.infermark.core.transport.Cancellation;
import io.infermark.core.transport.OkHttpTransport;
import io.infermark.core.transport.Transport;
import io.infermark.core.transport.netty.NettyTransport;
import io.infermark.testfixtures.RawServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Servers that misbehave on purpose, on raw sockets on 127.0.0.1, against the whole protocol stack on
 * every transport: each ends its request as one record with the expected category, within the
 * timeouts configured here (short, so a hang is a failed assertion rather than a stuck build), and
 * within bounded memory: the build runs this class in its own JVM with {@code -Xmx256m}, and the
 * endless servers below would fill any heap if a buffer were unbounded.
 */
@Tag("hostile")
@ParameterizedClass(name = "{0}")
@MethodSource("transports")
class HostileServerTest {

  static Stream<Named<Supplier<Transport>>> transports() {
    return Stream.of(Named.of("netty", NettyTransport::create), Named.of("okhttp", OkHttpTransport::create));
  }

  @Parameter
  Supplier<Transport> transport;

  private static final String KEY = "sk-hostile-key-0123456789";
  private static final String STREAM = ""
      + "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"}}]}\n\n"
      + "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" world\"},\"finish_reason\":\"length\"}]}\n\n"
      + "data: {\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":2,\"total_tokens\":9}}\n\n"
      + "data: [DONE]\n\n";
  private static final byte[] FILLER = "a".repeat(64 * 1024).getBytes(StandardCharsets.US_ASCII);

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  private RawServer server(RawServer.Script script) throws IOException {
    RawServer s = new RawServer(script);
    open.add(s);
    return s;
  }

  /** Short connect and read timeouts, a call timeout long enough for megabytes on loopback. */
  private OpenAiTarget.Builder chat(RawServer server) {
    return OpenAiTarget.chat(server.url("/v1").toString(), "m").apiKey(KEY).transport(transport.get())
        .connectTimeout(Duration.ofSeconds(5)).readTimeout(Duration.ofSeconds(5)).callTimeout(Duration.ofSeconds(60));
  }

  private RequestRecord execute(OpenAiTarget target, GenerationParams params) {
    open.add(target);
    TokenTimeline timeline = TokenTimeline.builder(Clock.system()).requestId("r").build();
    target.execute(new InferenceRequest("r", Prompt.chat(Message.user("Hi")), params), timeline, new Cancellation());
    return timeline.record().orElseThrow();
  }

  private RequestRecord execute(OpenAiTarget target) {
    return execute(target, GenerationParams.defaults());
  }

  /** Writes chunks of filler until the client goes away. */
  private static void endless(OutputStream out) {
    try {
      while (true) {
        out.write((Integer.toHexString(FILLER.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(FILLER);
        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
      }
    } catch (IOException gone) {
      // the client closed the connection: what it should do
    }
  }

  private static String ok(String contentType, String body) {
    return "HTTP/1.1 200 OK\r\nContent-Type: " + contentType + "\r\nContent-Length: "
        + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
  }

  // ---- bounded memory ----

  @Test
  void anEndlessLineEndsAtTheDefaultLineLimitAsAMalformedStream() throws Exception {
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      RawServer.write(s.getOutputStream(), RawServer.SSE_HEAD);
      RawServer.writeChunk(s.getOutputStream(), "data: {\"choices\":[{\"delta\":{\"content\":\"");
      endless(s.getOutputStream());
    });
    Failure f = execute(chat(server).build()).failure().orElseThrow();
    assertThat(f.category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(f.message()).isEqualTo("line exceeds " + StreamLimits.DEFAULT.maxLineBytes() + " bytes");
  }

  @Test
  void anEndlessNonStreamedBodyEndsAtMaxBodyBytesAsAMalformedStream() throws Exception {
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      RawServer.write(s.getOutputStream(), "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
          + "Transfer-Encoding: chunked\r\n\r\n");
      RawServer.writeChunk(s.getOutputStream(), "{\"choices\":[{\"message\":{\"content\":\"");
      endless(s.getOutputStream());
    });
    Failure f = execute(chat(server).maxBodyBytes(4 << 20).build(), GenerationParams.builder().stream(false).build())
        .failure().orElseThrow();
    assertThat(f.category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(f.message()).contains("exceeds " + (4 << 20) + " bytes");
  }

  @Test
  void anEndlessErrorBodyIsReadOnlyForItsExcerpt() throws Exception {
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      RawServer.write(s.getOutputStream(), "HTTP/1.1 503 Service Unavailable\r\nTransfer-Encoding: chunked\r\n\r\n");
      endless(s.getOutputStream());
    });
    RequestRecord r = execute(chat(server).build());
    assertThat(r.failure().orElseThrow().category()).isEqualTo(ErrorCategory.HTTP_STATUS);
    assertThat(r.httpStatus()).isEqualTo(503);
    assertThat(r.failure().orElseThrow().message().length()).isLessThan(4096);
  }

  // ---- no hangs ----

  @Test
  void silenceAfterTheHeadersIsAReadTimeout() throws Exception {
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      RawServer.write(s.getOutputStream(), RawServer.SSE_HEAD);
      RawServer.readUntilClosed(s.getInputStream());
    });
    // 1.5 s: long enough that a busy machine's stall before the server writes its headers (300 ms was once too
    // short at load 14) is not taken for the silence after them.
    RequestRecord r = execute(chat(server).readTimeout(Duration.ofMillis(1500)).build());
    Failure f = r.failure().orElseThrow();
    assertThat(f.category()).isEqualTo(ErrorCategory.TIMEOUT);
    assertThat(f.timeoutPhase()).isEqualTo(TimeoutPhase.READ);
    assertThat(r.httpStatus()).isEqualTo(200);
  }

  @Test
  void aBodyThatGoesOnForeverAfterDoneEndsTheRequestAtDone() throws Exception {
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      RawServer.write(s.getOutputStream(), RawServer.SSE_HEAD);
      RawServer.writeChunk(s.getOutputStream(), STREAM);
      endless(s.getOutputStream());
    });
    // were the body read to its (never coming) end, the request would end at the call timeout
    RequestRecord r = execute(chat(server).callTimeout(Duration.ofSeconds(30)).build());
    assertThat(r.succeeded()).as("%s", r).isTrue();
    assertThat(r.outputTokens()).isEqualTo(2);
  }

  // ---- broken connections and bodies ----

  @Test
  void aResetInsideAChunkIsAReset() throws Exception {
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      RawServer.write(s.getOutputStream(), RawServer.SSE_HEAD);
      RawServer.writeChunk(s.getOutputStream(), "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\n");
      RawServer.write(s.getOutputStream(), "40\r\ndata: {\"choi"); // a chunk of 64 bytes, cut after 15
      s.setSoLinger(true, 0); // close with RST
    });
    RequestRecord r = execute(chat(server).build());
    assertThat(r.failure().orElseThrow().category()).as("%s", r).isEqualTo(ErrorCategory.RESET);
    assertThat(r.chunks().tokenChunkCount()).isEqualTo(1);
  }

  @Test
  void aCorruptGzipBodyIsAMalformedStreamNotTheHostsFault() throws Exception {
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      RawServer.write(s.getOutputStream(), "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
          + "Content-Encoding: gzip\r\nContent-Length: 12\r\n\r\n\u001f\u008b\u0008garbage!!");
      RawServer.readUntilClosed(s.getInputStream());
    });
    Failure f = execute(chat(server).build()).failure().orElseThrow();
    assertThat(f.category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(f.message()).contains("gzip");
  }

  @Test
  void anIdleConnectionClosedWithoutNoticeIsRetriedOnceAndTheRecordSaysSo() throws Exception {
    RawServer server = server((s, i) -> {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      RawServer.readRequest(in);
      RawServer.write(out, ok("text/event-stream", STREAM)); // keep-alive: no Connection: close
      if (i == 0) {
        RawServer.readRequest(in); // the next request reaches a connection the server is done with
        return;
      }
      RawServer.readUntilClosed(in);
    });
    try (OpenAiTarget target = chat(server).build()) {
      RequestRecord first = execute(target);
      RequestRecord second = execute(target);

      assertThat(first.succeeded()).isTrue();
      assertThat(first.retries()).isZero();
      assertThat(second.succeeded()).as("%s", second).isTrue();
      assertThat(second.retries()).isEqualTo(1);
      assertThat(second.toString()).contains("retried 1");
      assertThat(server.connections()).isEqualTo(2);
    }
  }

  // ---- redirects ----

  private RawServer redirecting(int status, List<RawServer.Request> seen) throws IOException {
    return server((s, i) -> {
      InputStream in = s.getInputStream();
      RawServer.Request req;
      while ((req = RawServer.readRequest(in)) != null) {
        seen.add(req);
        if (req.requestLine().startsWith("POST /v1/chat/completions ")) {
          RawServer.write(s.getOutputStream(), "HTTP/1.1 " + status + " Moved\r\nLocation: /v2/chat/completions?sig=QUERYSECRET"
              + "\r\nContent-Length: 5\r\n\r\nmoved");
        } else {
          RawServer.write(s.getOutputStream(), ok("text/event-stream", STREAM));
        }
      }
    });
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(ints = {301, 302, 307})
  void redirectsAreNotFollowedByDefault(int status) throws Exception {
    List<RawServer.Request> seen = new CopyOnWriteArrayList<>();
    RawServer server = redirecting(status, seen);
    RequestRecord r = execute(chat(server).build());

    Failure f = r.failure().orElseThrow();
    assertThat(f.category()).isEqualTo(ErrorCategory.HTTP_STATUS);
    assertThat(r.httpStatus()).isEqualTo(status);
    assertThat(f.message()).contains("not followed").contains("followRedirects").doesNotContain("QUERYSECRET");
    assertThat(r.redirects()).isZero();
    assertThat(seen).hasSize(1);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(ints = {301, 302, 307, 308})
  void followedRedirectsKeepMethodAndBodyAndAreOnTheRecord(int status) throws Exception {
    List<RawServer.Request> seen = new CopyOnWriteArrayList<>();
    RawServer server = redirecting(status, seen);
    RequestRecord r = execute(chat(server).followRedirects(true).build());

    assertThat(r.succeeded()).as("%s", r).isTrue();
    assertThat(r.httpStatus()).isEqualTo(200);
    assertThat(r.redirects()).isEqualTo(1);
    assertThat(r.finalUrl()).contains("http://127.0.0.1:" + server.port() + "/v2/chat/completions");
    assertThat(seen).hasSize(2);
    assertThat(seen.get(1).requestLine()).startsWith("POST /v2/chat/completions?sig=QUERYSECRET ");
    assertThat(seen.get(1).body()).isEqualTo(seen.get(0).body());
    assertThat(seen.get(1).header("authorization")).isEqualTo("Bearer " + KEY);
  }

  @Test
  void aRedirectToAnotherOriginCarriesNoCredentials() throws Exception {
    List<RawServer.Request> there = new CopyOnWriteArrayList<>();
    RawServer other = server((s, i) -> {
      RawServer.Request req = RawServer.readRequest(s.getInputStream());
      there.add(req);
      RawServer.write(s.getOutputStream(), ok("text/event-stream", STREAM));
      RawServer.readUntilClosed(s.getInputStream());
    });
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      RawServer.write(s.getOutputStream(), "HTTP/1.1 307 Temporary Redirect\r\nLocation: "
          + other.url("/v1/chat/completions") + "\r\nContent-Length: 0\r\n\r\n");
      RawServer.readUntilClosed(s.getInputStream());
    });
    RequestRecord r = execute(chat(server).followRedirects(true).build(),
        GenerationParams.builder().header("Cookie", "session=COOKIESECRET").build());

    assertThat(r.succeeded()).as("%s", r).isTrue();
    assertThat(r.finalUrl()).contains(other.url("/v1/chat/completions").toString());
    assertThat(there).hasSize(1);
    assertThat(there.get(0).header("authorization")).isNull();
    assertThat(there.get(0).header("cookie")).isNull();
    assertThat(there.get(0).body()).isNotEmpty();
  }

  @Test
  void aRedirectLoopStopsAfterTheLimitAsAnHttpStatus() throws Exception {
    List<RawServer.Request> seen = new CopyOnWriteArrayList<>();
    RawServer server = server((s, i) -> {
      InputStream in = s.getInputStream();
      RawServer.Request req;
      while ((req = RawServer.readRequest(in)) != null) {
        seen.add(req);
        RawServer.write(s.getOutputStream(), "HTTP/1.1 302 Found\r\nLocation: /v1/chat/completions\r\n"
            + "Content-Length: 0\r\n\r\n");
      }
    });
    RequestRecord r = execute(chat(server).followRedirects(true).build());

    Failure f = r.failure().orElseThrow();
    assertThat(f.category()).isEqualTo(ErrorCategory.HTTP_STATUS);
    assertThat(f.message()).contains("more than " + OpenAiTarget.MAX_REDIRECTS + " redirects");
    assertThat(r.redirects()).isEqualTo(OpenAiTarget.MAX_REDIRECTS);
    assertThat(seen).hasSize(OpenAiTarget.MAX_REDIRECTS + 1);
  }

  @Test
  void seeOtherIsNotFollowedSinceItWouldDropTheBody() throws Exception {
    List<RawServer.Request> seen = new CopyOnWriteArrayList<>();
    RawServer server = redirecting(303, seen);
    RequestRecord r = execute(chat(server).followRedirects(true).build());

    assertThat(r.failure().orElseThrow().category()).isEqualTo(ErrorCategory.HTTP_STATUS);
    assertThat(r.httpStatus()).isEqualTo(303);
    assertThat(r.failure().orElseThrow().message()).contains("303 asks for a GET");
    assertThat(seen).hasSize(1);
  }
}
