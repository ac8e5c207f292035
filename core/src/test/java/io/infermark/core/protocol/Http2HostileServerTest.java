package io.infermark.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.TimeoutPhase;
import io.infermark.core.capture.TokenTimeline;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import io.infermark.core.time.Clock;
import io.infermark.core.transport.Cancellation;
import io.infermark.core.transport.netty.HttpVersionPolicy;
import io.infermark.core.transport.netty.NettyTransport;
import io.infermark.testfixtures.RawH2;
import io.infermark.testfixtures.RawServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * HTTP/2 servers that break the protocol on purpose, written frame by frame on raw sockets (h2c with
 * prior knowledge): each request ends as one record with the category its failure deserves, within
 * the short timeouts configured here.
 */
@Tag("hostile")
class Http2HostileServerTest {

  private static final String EVENT = "data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"}}]}\n\n";
  private static final String STREAM = EVENT
      + "data: {\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":1,\"total_tokens\":8}}\n\n"
      + "data: [DONE]\n\n";

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

  private OpenAiTarget target(RawServer server) {
    OpenAiTarget t = OpenAiTarget.chat(server.url("/v1").toString(), "m")
        .transport(NettyTransport.builder().httpVersion(HttpVersionPolicy.HTTP_2).build())
        .connectTimeout(Duration.ofSeconds(5)).readTimeout(Duration.ofMillis(500)).callTimeout(Duration.ofSeconds(30))
        .build();
    open.add(t);
    return t;
  }

  private static RequestRecord execute(OpenAiTarget target) {
    TokenTimeline timeline = TokenTimeline.builder(Clock.system()).requestId("r").build();
    target.execute(new InferenceRequest("r", Prompt.chat(Message.user("Hi")), GenerationParams.defaults()), timeline,
        new Cancellation());
    return timeline.record().orElseThrow();
  }

  private static void sseHead(OutputStream out, int stream) throws IOException {
    RawH2.writeHeaders(out, stream, 200, false, "content-type", "text/event-stream");
  }

  @Test
  void rstStreamMidStreamIsAResetNamingTheErrorCode() throws Exception {
    RawServer server = server((s, i) -> {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      RawH2.handshake(in, out);
      int id = RawH2.readRequest(in);
      sseHead(out, id);
      RawH2.writeData(out, id, EVENT, false);
      RawH2.writeRst(out, id, 2); // INTERNAL_ERROR
      RawServer.readUntilClosed(in);
    });
    RequestRecord r = execute(target(server));
    Failure f = r.failure().orElseThrow();
    assertThat(f.category()).as("%s", r).isEqualTo(ErrorCategory.RESET);
    assertThat(f.message()).contains("RST_STREAM INTERNAL_ERROR").contains("before the response ended");
    assertThat(r.httpStatus()).isEqualTo(200);
    assertThat(r.chunks().tokenChunkCount()).isEqualTo(1);
  }

  @Test
  void goAwayThenCloseWithTheStreamInFlightIsAReset() throws Exception {
    RawServer server = server((s, i) -> {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      RawH2.handshake(in, out);
      int id = RawH2.readRequest(in);
      sseHead(out, id);
      RawH2.writeData(out, id, EVENT, false);
      RawH2.writeGoAway(out, id, 0); // graceful for this stream... then the server goes away anyway
      out.flush();
      // Closed with a FIN, not an RST: an RST may reach the client before the GOAWAY it follows is read,
      // and the kernel then drops the unread GOAWAY, which made the record's message depend on the race.
    });
    RequestRecord r = execute(target(server));
    Failure f = r.failure().orElseThrow();
    assertThat(f.category()).as("%s", r).isEqualTo(ErrorCategory.RESET);
    assertThat(f.message()).contains("GOAWAY NO_ERROR");
    assertThat(r.retries()).isZero();
  }

  @Test
  void aStreamAboveTheGoAwaysLastStreamWasNotProcessedAndIsRetriedOnceOnANewConnection() throws Exception {
    RawServer server = server((s, i) -> {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      RawH2.handshake(in, out);
      int id = RawH2.readRequest(in);
      if (i == 0) {
        RawH2.writeGoAway(out, 0, 0); // shutting down: stream 1 was never processed
        RawServer.readUntilClosed(in);
        return;
      }
      sseHead(out, id);
      RawH2.writeData(out, id, STREAM, true);
      RawServer.readUntilClosed(in);
    });
    RequestRecord r = execute(target(server));
    assertThat(r.succeeded()).as("%s", r).isTrue();
    assertThat(r.retries()).isEqualTo(1);
    assertThat(server.connections()).isEqualTo(2);
  }

  @Test
  void aServerThatNeverOpensItsWindowIsAWriteTimeout() throws Exception {
    RawServer server = server((s, i) -> {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      RawH2.handshake(in, out, RawH2.SETTINGS_INITIAL_WINDOW_SIZE, 0); // no request body may be sent...
      RawH2.readRequestHeaders(in);
      RawServer.readUntilClosed(in); // ...and no WINDOW_UPDATE ever comes
    });
    RequestRecord r = execute(target(server));
    Failure f = r.failure().orElseThrow();
    assertThat(f.category()).as("%s", r).isEqualTo(ErrorCategory.TIMEOUT);
    assertThat(f.timeoutPhase()).isEqualTo(TimeoutPhase.WRITE);
    assertThat(f.message()).contains("WINDOW_UPDATE");
    assertThat(r.phases().offsetNanos(Phase.REQUEST_HEADERS_SENT)).isPresent();
    assertThat(r.phases().offsetNanos(Phase.REQUEST_SENT)).isEmpty();
  }

  @Test
  void responseHeadersOverTheLimitAreAMalformedStream() throws Exception {
    RawServer server = server((s, i) -> {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      RawH2.handshake(in, out);
      int id = RawH2.readRequest(in);
      RawH2.writeHeaders(out, id, 200, false, "content-type", "text/event-stream", "x-padding", "p".repeat(80 * 1024));
      RawH2.writeData(out, id, STREAM, true);
      RawServer.readUntilClosed(in);
    });
    RequestRecord r = execute(target(server));
    Failure f = r.failure().orElseThrow();
    assertThat(f.category()).as("%s", r).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(f.message()).containsIgnoringCase("header");
  }

  @Test
  void aResponseWithoutStatusIsAMalformedStream() throws Exception {
    RawServer server = server((s, i) -> {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      RawH2.handshake(in, out);
      int id = RawH2.readRequest(in);
      RawH2.writeHeaders(out, id, 999_999, false, "content-type", "text/event-stream");
      RawServer.readUntilClosed(in);
    });
    RequestRecord r = execute(target(server));
    assertThat(r.failure().orElseThrow().category()).as("%s", r).isEqualTo(ErrorCategory.MALFORMED_STREAM);
  }
}
