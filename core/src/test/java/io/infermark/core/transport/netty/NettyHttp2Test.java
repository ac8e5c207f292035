package io.infermark.core.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.transport.Cancellation;
import io.infermark.core.transport.OutboundRequest;
import io.infermark.core.transport.RecordingHandler;
import io.infermark.core.transport.Timeouts;
import io.infermark.testfixtures.MockServers;
import io.infermark.testfixtures.TestCertificate;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import okhttp3.Protocol;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The event-loop transport's HTTP/2 mode: multiplexing, stream limits, milestones, ALPN. */
class NettyHttp2Test {

  private static final String STREAM = "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n";

  @TempDir
  static Path tls;

  private static TestCertificate certificate;

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  @BeforeAll
  static void makeASelfSignedCertificate() {
    certificate = TestCertificate.create(tls);
  }

  private MockWebServer server(List<Protocol> protocols, boolean https) {
    MockServers.Builder b = MockServers.builder().protocols(protocols);
    if (https) {
      b.tls(certificate);
    }
    MockWebServer s = b.start();
    open.add(s);
    return s;
  }

  private NettyTransport transport(NettyTransport.Builder b) {
    NettyTransport t = b.build();
    open.add(t);
    return t;
  }

  private static OutboundRequest post(URI url) {
    return new OutboundRequest("POST", url, List.of(new OutboundRequest.Header("Authorization", "Bearer k")),
        "{\"stream\":true}".getBytes(StandardCharsets.UTF_8), "application/json", Timeouts.DEFAULT);
  }

  private static MockResponse sse(long headersDelayMillis) {
    return new MockResponse.Builder().addHeader("Content-Type", "text/event-stream").body(STREAM)
        .headersDelay(headersDelayMillis, TimeUnit.MILLISECONDS).build();
  }

  private static List<RecordingHandler> startAll(NettyTransport t, URI url, int n) {
    List<RecordingHandler> handlers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      RecordingHandler h = new RecordingHandler();
      handlers.add(h);
      t.start(post(url), h, new Cancellation());
    }
    for (RecordingHandler h : handlers) {
      assertThat(h.awaitTerminal().kind()).as("%s", h).isEqualTo(RecordingHandler.Kind.END);
      h.assertContract();
    }
    return handlers;
  }

  @Test
  void unresolvableHostFailsAsConnectAfterDnsStartAndLeavesNoConnection() {
    NettyTransport t = transport(NettyTransport.builder().httpVersion(HttpVersionPolicy.HTTP_2));
    RecordingHandler h = new RecordingHandler();
    t.start(post(URI.create("http://no-such-host.invalid:8080/v1")), h, new Cancellation());

    Failure f = h.awaitFailure();
    assertThat(f.category()).isEqualTo(ErrorCategory.CONNECT);
    assertThat(f.message()).contains("cannot resolve no-such-host.invalid:8080");
    assertThat(h.phases()).containsExactly(Phase.DNS_START);
    assertThat(t.openHttp2Connections()).isZero();
    h.assertContract();
  }

  @Test
  void concurrentRequestsShareOneConnectionAsStreams() throws Exception {
    MockWebServer server = server(List.of(Protocol.H2_PRIOR_KNOWLEDGE), false);
    for (int i = 0; i < 6; i++) {
      server.enqueue(sse(200));
    }
    NettyTransport t = transport(NettyTransport.builder().httpVersion(HttpVersionPolicy.HTTP_2));
    List<RecordingHandler> handlers = startAll(t, server.url("/v1/chat").uri(), 6);

    assertThat(t.openHttp2Connections()).isEqualTo(1);
    long opened = handlers.stream().filter(h -> h.phases().contains(Phase.CONNECT_START)).count();
    assertThat(opened).isEqualTo(1);
    for (RecordingHandler h : handlers) {
      assertThat(h.status()).isEqualTo(200);
      assertThat(h.body()).isEqualTo(STREAM);
      assertThat(h.phases()).contains(Phase.CONNECTION_ACQUIRED, Phase.REQUEST_HEADERS_SENT, Phase.REQUEST_SENT,
          Phase.RESPONSE_HEADERS_START, Phase.RESPONSE_HEADERS_END, Phase.RESPONSE_BODY_START);
      assertThat(h.stamp(Phase.RESPONSE_BODY_START)).isGreaterThanOrEqualTo(h.stamp(Phase.RESPONSE_HEADERS_END));
    }
    RecordedRequest r = server.takeRequest(5, TimeUnit.SECONDS);
    assertThat(r.getHeaders().get("authorization")).isEqualTo("Bearer k");
    assertThat(r.getHeaders().get("content-type")).isEqualTo("application/json");
    assertThat(r.getBody().utf8()).isEqualTo("{\"stream\":true}");
    assertThat(t.http2Settings()).singleElement().satisfies(s -> assertThat(s.authority())
        .isEqualTo(server.getHostName() + ":" + server.getPort()));
  }

  @Test
  void theOpeningRequestCarriesTheConnectionsMilestonesInOrder() throws Exception {
    MockWebServer server = server(List.of(Protocol.H2_PRIOR_KNOWLEDGE), false);
    server.enqueue(sse(0));
    server.enqueue(sse(0));
    NettyTransport t = transport(NettyTransport.builder().httpVersion(HttpVersionPolicy.HTTP_2));
    RecordingHandler first = startAll(t, server.url("/v1").uri(), 1).get(0);
    RecordingHandler second = startAll(t, server.url("/v1").uri(), 1).get(0);

    assertThat(first.phases()).containsSubsequence(Phase.CONNECT_START, Phase.CONNECT_END, Phase.SETTINGS_RECEIVED,
        Phase.CONNECTION_ACQUIRED, Phase.REQUEST_HEADERS_SENT, Phase.REQUEST_SENT, Phase.RESPONSE_HEADERS_START);
    assertThat(first.stamp(Phase.SETTINGS_RECEIVED)).isGreaterThanOrEqualTo(first.stamp(Phase.CONNECT_END));
    assertThat(first.stamp(Phase.CONNECT_END)).isGreaterThanOrEqualTo(first.stamp(Phase.CONNECT_START));
    // the second request is a stream on the established connection: no connection milestones
    assertThat(second.phases()).doesNotContain(Phase.CONNECT_START, Phase.SETTINGS_RECEIVED)
        .contains(Phase.CONNECTION_ACQUIRED, Phase.REQUEST_SENT);
    assertThat(t.openHttp2Connections()).isEqualTo(1);
  }

  @Test
  void streamsPerConnectionBoundsTheStreamsOnEachConnection() throws Exception {
    MockWebServer server = server(List.of(Protocol.H2_PRIOR_KNOWLEDGE), false);
    for (int i = 0; i < 6; i++) {
      server.enqueue(sse(300));
    }
    NettyTransport t = transport(NettyTransport.builder().httpVersion(HttpVersionPolicy.HTTP_2).streamsPerConnection(2));
    List<RecordingHandler> handlers = startAll(t, server.url("/v1").uri(), 6);

    assertThat(t.openHttp2Connections()).isEqualTo(3);
    assertThat(handlers.stream().filter(h -> h.phases().contains(Phase.CONNECT_START)).count()).isEqualTo(3);
  }

  @Test
  void h2OverTlsIsNegotiatedByAlpn() throws Exception {
    MockWebServer server = server(List.of(Protocol.HTTP_2, Protocol.HTTP_1_1), true);
    server.enqueue(sse(0));
    NettyTransport t = transport(NettyTransport.builder().httpVersion(HttpVersionPolicy.HTTP_2).insecureTls(true));
    RecordingHandler h = startAll(t, server.url("/v1").uri(), 1).get(0);

    assertThat(h.phases()).containsSubsequence(Phase.CONNECT_START, Phase.SECURE_CONNECT_START,
        Phase.SECURE_CONNECT_END, Phase.CONNECT_END, Phase.SETTINGS_RECEIVED);
    assertThat(server.takeRequest(5, TimeUnit.SECONDS).getHandshake()).isNotNull();
    assertThat(t.openHttp2Connections()).isEqualTo(1);
  }

  @Test
  void http2OnlyAgainstAnHttp11TlsServerFailsAsConnectNamingAuto() throws Exception {
    MockWebServer server = server(List.of(Protocol.HTTP_1_1), true);
    NettyTransport t = transport(NettyTransport.builder().httpVersion(HttpVersionPolicy.HTTP_2).insecureTls(true));
    RecordingHandler h = new RecordingHandler();
    t.start(post(server.url("/v1").uri()), h, new Cancellation());

    assertThat(h.awaitFailure().category()).isEqualTo(ErrorCategory.CONNECT);
    assertThat(h.awaitFailure().message()).contains("did not choose HTTP/2").contains("AUTO");
    h.assertContract();
  }

  @Test
  void autoFallsBackToHttp11WhenTheTlsServerChoosesIt() throws Exception {
    MockWebServer server = server(List.of(Protocol.HTTP_1_1), true);
    server.enqueue(sse(0));
    server.enqueue(sse(0));
    NettyTransport t = transport(NettyTransport.builder().httpVersion(HttpVersionPolicy.AUTO).insecureTls(true));
    RecordingHandler first = startAll(t, server.url("/v1").uri(), 1).get(0);
    RecordingHandler second = startAll(t, server.url("/v1").uri(), 1).get(0);

    assertThat(first.body()).isEqualTo(STREAM);
    assertThat(second.body()).isEqualTo(STREAM);
    assertThat(second.phases()).doesNotContain(Phase.SETTINGS_RECEIVED);
    assertThat(t.openHttp2Connections()).isZero();
  }
}
