package io.infermark.core.transport.netty;

import static io.infermark.core.transport.RecordingHandler.WAIT_SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.transport.Cancellation;
import io.infermark.core.transport.OutboundRequest;
import io.infermark.core.transport.RecordingHandler;
import io.infermark.core.transport.RecordingHandler.Event;
import io.infermark.core.transport.RecordingHandler.Kind;
import io.infermark.core.transport.Timeouts;
import io.infermark.testfixtures.RawServer;
import io.infermark.testfixtures.TestCertificate;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.Epoll;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import javax.net.ssl.TrustManagerFactory;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What {@link NettyTransport} does beyond the transport contract: its threads, sockets, pool, TLS and drain. */
class NettyTransportTest {

  private static final Timeouts GENEROUS = new Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(30),
      Duration.ofSeconds(60));

  @TempDir
  static Path tls;

  private static TestCertificate certificate;

  private final List<NettyTransport> transports = new ArrayList<>();
  private final List<AutoCloseable> servers = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    transports.forEach(NettyTransport::close);
    for (AutoCloseable s : servers) {
      s.close();
    }
  }

  // ---- threads and sockets ----

  @Test
  void nameSaysWhichIoHandlerRuns() {
    assertThat(open(NettyTransport.builder().nativeTransport(false)).name()).isEqualTo("netty-nio");
    assertThat(open(NettyTransport.builder()).name()).isEqualTo(Epoll.isAvailable() ? "netty-epoll" : "netty-nio");
    assertThat(open(NettyTransport.builder()).blocking()).isFalse();
  }

  @Test
  void exchangesRunOnDaemonIoThreadsNamedInfermarkIo() throws Exception {
    NettyTransport t = open(NettyTransport.builder().ioThreads(2));
    MockWebServer server = mockServer();
    server.enqueue(new MockResponse.Builder().body("ok").build());
    RecordingHandler r = new RecordingHandler();
    t.start(post(url(server, "/")), r, new Cancellation());

    assertThat(r.awaitTerminal().kind()).isEqualTo(Kind.END);
    assertThat(r.events()).allSatisfy(e -> assertThat(e.thread()).matches("infermark-io-\\d+"));
    assertThat(t.group().executorCount()).isEqualTo(2);
    assertThat(t.group().next().submit(() -> Thread.currentThread().isDaemon()).get(WAIT_SECONDS, TimeUnit.SECONDS))
        .isTrue();
  }

  @ParameterizedTest(name = "native {0}")
  @ValueSource(booleans = {false, true})
  void everySocketHasNoDelayAndKeepAlive(boolean nativeTransport) throws Exception {
    NettyTransport t = open(NettyTransport.builder().nativeTransport(nativeTransport));
    MockWebServer server = mockServer();
    server.enqueue(new MockResponse.Builder().body("ok").build());
    RecordingHandler r = new RecordingHandler();
    t.start(post(url(server, "/")), r, new Cancellation());
    assertThat(r.awaitTerminal().kind()).isEqualTo(Kind.END);

    List<Channel> channels = t.openChannels();
    assertThat(channels).hasSize(1);
    for (Channel ch : channels) {
      assertThat(ch.config().getOption(ChannelOption.TCP_NODELAY)).isTrue();
      assertThat(ch.config().getOption(ChannelOption.SO_KEEPALIVE)).isTrue();
    }
  }

  @Test
  void requestCarriesHostLengthAndTypeButNeverAcceptEncoding() throws Exception {
    NettyTransport t = open(NettyTransport.builder());
    MockWebServer server = mockServer();
    server.enqueue(new MockResponse.Builder().body("ok").build());
    OutboundRequest request = new OutboundRequest("POST", url(server, "/v1"),
        List.of(new OutboundRequest.Header("Content-Length", "999"), new OutboundRequest.Header("X-A", "1"),
            new OutboundRequest.Header("X-A", "2")),
        "{}".getBytes(StandardCharsets.UTF_8), "application/json", GENEROUS);
    RecordingHandler r = new RecordingHandler();
    t.start(request, r, new Cancellation());
    assertThat(r.awaitTerminal().kind()).isEqualTo(Kind.END);

    RecordedRequest got = server.takeRequest(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(got.getHeaders().get("Accept-Encoding")).isNull();
    assertThat(got.getHeaders().values("Content-Length")).containsExactly("2");
    assertThat(got.getHeaders().values("X-A")).containsExactly("1", "2");
    assertThat(got.getHeaders().get("Content-Type")).isEqualTo("application/json");
    assertThat(got.getHeaders().get("Host")).isEqualTo(request.url().getHost() + ":" + server.getPort());
  }

  @Test
  void interimResponsesAreSkipped() throws Exception {
    NettyTransport t = open(NettyTransport.builder());
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      RawServer.write(s.getOutputStream(), "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
          + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
      RawServer.readUntilClosed(s.getInputStream());
    });
    RecordingHandler r = new RecordingHandler();
    t.start(post(server.url("/")), r, new Cancellation());

    assertThat(r.awaitTerminal().kind()).isEqualTo(Kind.END);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("ok");
    assertThat(r.events(Kind.RESPONSE)).hasSize(1);
  }

  // ---- the pool ----

  @Test
  void poolNeverThrottlesAndKeepsAtMostTheIdleLimitUntilPrepareRaisesIt() throws Exception {
    NettyTransport t = open(NettyTransport.builder().maxConnectionsPerHost(1));
    AtomicReference<CountDownLatch> together = new AtomicReference<>(new CountDownLatch(3));
    RawServer server = server((s, i) -> {
      InputStream in = s.getInputStream();
      while (RawServer.readRequest(in) != null) {
        CountDownLatch latch = together.get();
        latch.countDown();
        // answers only once three requests are in flight at once: a cap below three would hang here
        if (!latch.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
          throw new AssertionError("fewer than three requests in flight at once");
        }
        RawServer.write(s.getOutputStream(), "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
      }
    });

    runConcurrently(t, server, 3);
    assertThat(server.connections()).isEqualTo(3);
    awaitCondition(() -> t.idleConnections("http", "127.0.0.1", server.port()) == 1, "one idle connection kept");
    awaitCondition(() -> t.openChannels().size() == 1, "the two beyond the limit closed");

    t.prepare(3);
    together.set(new CountDownLatch(3));
    runConcurrently(t, server, 3);
    assertThat(server.connections()).as("one reused, two new").isEqualTo(5);
    awaitCondition(() -> t.idleConnections("http", "127.0.0.1", server.port()) == 3, "three idle connections kept");
  }

  private static void runConcurrently(NettyTransport t, RawServer server, int n) {
    List<RecordingHandler> rs = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      RecordingHandler r = new RecordingHandler();
      rs.add(r);
      t.start(post(server.url("/")), r, new Cancellation());
    }
    for (RecordingHandler r : rs) {
      assertThat(r.awaitTerminal().kind()).as("%s", r).isEqualTo(Kind.END);
    }
  }

  @Test
  void idleConnectionIsClosedWhenItsKeepAliveRunsOut() throws Exception {
    Duration keepAlive = Duration.ofMillis(200);
    NettyTransport t = open(NettyTransport.builder().keepAlive(keepAlive));
    CompletableFuture<Long> responded = new CompletableFuture<>();
    CompletableFuture<Long> closedByClient = new CompletableFuture<>();
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      // Stamped before the write: the client cannot pool the connection (and start its keep-alive) before the
      // response exists, while a stamp after the write could land late on a busy machine (199.3 ms was measured).
      responded.complete(System.nanoTime());
      RawServer.write(s.getOutputStream(), "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
      RawServer.readUntilClosed(s.getInputStream());
      closedByClient.complete(System.nanoTime());
    });
    RecordingHandler r = new RecordingHandler();
    t.start(post(server.url("/")), r, new Cancellation());
    assertThat(r.awaitTerminal().kind()).isEqualTo(Kind.END);

    // the server wrote the response before the client read it and put the connection in the pool
    long closedAt = closedByClient.get(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(closedAt - responded.get()).isGreaterThanOrEqualTo(keepAlive.toNanos());
    assertThat(t.idleConnections("http", "127.0.0.1", server.port())).isZero();
  }

  @Test
  void consumerDoneAtTheEndOfTheMessageLeavesTheConnectionPooled() throws Exception {
    NettyTransport t = open(NettyTransport.builder());
    MockWebServer server = mockServer();
    server.enqueue(new MockResponse.Builder().body("data: [DONE]\n\n").build());
    server.enqueue(new MockResponse.Builder().body("again").build());
    RecordingHandler first = new RecordingHandler().doneWhen(b -> b.contains("[DONE]"));
    t.start(post(url(server, "/")), first, new Cancellation());
    assertThat(first.awaitTerminal().kind()).isEqualTo(Kind.DONE);
    awaitCondition(() -> t.idleConnections("http", url(server, "/").getHost(), server.getPort()) == 1,
        "the connection back in the pool");

    RecordingHandler second = new RecordingHandler();
    t.start(post(url(server, "/")), second, new Cancellation());
    assertThat(second.awaitTerminal().kind()).isEqualTo(Kind.END);
    assertThat(second.phases()).doesNotContain(Phase.CONNECT_START);
    first.assertContract();
    second.assertContract();
  }

  @Test
  void consumerDoneBeforeAShortTailDrainsItAndKeepsTheConnection() throws Exception {
    NettyTransport t = open(NettyTransport.builder());
    RecordingHandler first = new RecordingHandler().doneWhen(b -> b.contains("[DONE]"));
    CompletableFuture<Long> firstDone = first.bodyContains("[DONE]");
    RawServer server = server((s, i) -> {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      RawServer.readRequest(in);
      RawServer.write(out, RawServer.SSE_HEAD);
      RawServer.writeChunk(out, "data: [DONE]\n\n");
      firstDone.get(WAIT_SECONDS, TimeUnit.SECONDS);
      RawServer.writeChunk(out, ": a comment the consumer never sees\n\n");
      RawServer.write(out, "0\r\n\r\n");
      RawServer.readRequest(in);
      RawServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nagain");
      RawServer.readUntilClosed(in);
    });
    t.start(post(server.url("/")), first, new Cancellation());
    assertThat(first.awaitTerminal().kind()).isEqualTo(Kind.DONE);
    awaitCondition(() -> t.idleConnections("http", "127.0.0.1", server.port()) == 1, "the drained connection pooled");

    RecordingHandler second = new RecordingHandler();
    t.start(post(server.url("/")), second, new Cancellation());
    assertThat(second.awaitTerminal().kind()).isEqualTo(Kind.END);
    assertThat(second.body()).isEqualTo("again");
    assertThat(server.connections()).isEqualTo(1);
    assertThat(first.body()).doesNotContain("comment");
    first.assertContract();
  }

  /**
   * A closed loop's next request starts at the previous stream's terminator, before that HTTP message has
   * ended: it waits for the message's end and goes out on the same connection, whenever the end comes.
   */
  @Test
  void requestStartedWhileTheLastResponseDrainsIsSentOnThatConnectionWhenItEnds() throws Exception {
    NettyTransport t = open(NettyTransport.builder());
    RecordingHandler first = new RecordingHandler().doneWhen(b -> b.contains("[DONE]"));
    CompletableFuture<Void> secondStarted = new CompletableFuture<>();
    RawServer server = server((s, i) -> {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      doneBeforeTheMessageEnds(in, out);
      secondStarted.get(WAIT_SECONDS, TimeUnit.SECONDS); // the next request is waiting by now
      RawServer.write(out, "0\r\n\r\n");
      RawServer.readRequest(in);
      RawServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nagain");
      RawServer.readUntilClosed(in);
    });
    RecordingHandler second = new RecordingHandler();
    startWhileTheFirstDrains(t, server, first, second, new Cancellation());
    assertThat(second.events()).as("nothing sent before the drained message ended").isEmpty();
    secondStarted.complete(null);

    assertThat(second.awaitTerminal().kind()).isEqualTo(Kind.END);
    assertThat(second.body()).isEqualTo("again");
    assertThat(server.connections()).isEqualTo(1);
    assertThat(second.events()).extracting(Event::kind).contains(Kind.PHASE);
    assertThat(second.phases()).contains(Phase.CONNECTION_ACQUIRED).doesNotContain(Phase.CONNECT_START);
    first.assertContract();
    second.assertContract();
  }

  @Test
  void requestWaitingForADrainingConnectionThatClosesOpensANewOne() throws Exception {
    NettyTransport t = open(NettyTransport.builder());
    RecordingHandler first = new RecordingHandler().doneWhen(b -> b.contains("[DONE]"));
    CompletableFuture<Void> secondStarted = new CompletableFuture<>();
    RawServer server = server((s, i) -> {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      if (i == 0) {
        doneBeforeTheMessageEnds(in, out);
        secondStarted.get(WAIT_SECONDS, TimeUnit.SECONDS);
        return; // closes mid-message: the waiting request must not be lost
      }
      RawServer.readRequest(in);
      RawServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfresh");
      RawServer.readUntilClosed(in);
    });
    RecordingHandler second = new RecordingHandler();
    startWhileTheFirstDrains(t, server, first, second, new Cancellation());
    secondStarted.complete(null);

    assertThat(second.awaitTerminal().kind()).isEqualTo(Kind.END);
    assertThat(second.body()).isEqualTo("fresh");
    assertThat(server.connections()).isEqualTo(2);
    second.assertContract();
  }

  @Test
  void requestCancelledWhileItWaitsForADrainingConnectionEndsOnceAndLeavesTheConnectionPooled() throws Exception {
    NettyTransport t = open(NettyTransport.builder());
    RecordingHandler first = new RecordingHandler().doneWhen(b -> b.contains("[DONE]"));
    CompletableFuture<Void> cancelled = new CompletableFuture<>();
    RawServer server = server((s, i) -> {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      doneBeforeTheMessageEnds(in, out);
      cancelled.get(WAIT_SECONDS, TimeUnit.SECONDS);
      RawServer.write(out, "0\r\n\r\n");
      RawServer.readUntilClosed(in);
    });
    RecordingHandler second = new RecordingHandler();
    Cancellation cancellation = new Cancellation();
    startWhileTheFirstDrains(t, server, first, second, cancellation);
    cancellation.cancel();
    assertThat(second.awaitTerminal().failure().orElseThrow().category()).isEqualTo(ErrorCategory.CANCELLED);
    cancelled.complete(null);

    awaitCondition(() -> t.idleConnections("http", "127.0.0.1", server.port()) == 1, "the drained connection pooled");
    second.assertContract();
    assertThat(second.events()).extracting(Event::kind).containsOnlyOnce(Kind.FAILURE);
  }

  /** Serves a stream's terminator but not the end of its HTTP message (the chunked body's last chunk). */
  private static void doneBeforeTheMessageEnds(InputStream in, OutputStream out) throws Exception {
    RawServer.readRequest(in);
    RawServer.write(out, RawServer.SSE_HEAD);
    RawServer.writeChunk(out, "data: [DONE]\n\n");
  }

  /**
   * Runs {@code first} to its terminator, then starts {@code second} and returns once the I/O thread has
   * made its choice for it (start() hands the request over; a later task on that thread runs after it).
   */
  private static void startWhileTheFirstDrains(NettyTransport t, RawServer server, RecordingHandler first,
      RecordingHandler second, Cancellation cancellation) throws Exception {
    t.start(post(server.url("/")), first, new Cancellation());
    assertThat(first.awaitTerminal().kind()).isEqualTo(Kind.DONE);
    t.start(post(server.url("/")), second, cancellation);
    t.group().next().submit(() -> { }).get(WAIT_SECONDS, TimeUnit.SECONDS);
  }

  @Test
  void consumerDoneOnAResponseThatNeitherEndsNorSpeaksIsClosedAfterOneSecond() throws Exception {
    NettyTransport t = open(NettyTransport.builder());
    CompletableFuture<Long> closedByClient = new CompletableFuture<>();
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      RawServer.write(s.getOutputStream(), RawServer.SSE_HEAD);
      RawServer.writeChunk(s.getOutputStream(), "data: [DONE]\n\n");
      RawServer.readUntilClosed(s.getInputStream());
      closedByClient.complete(System.nanoTime());
    });
    RecordingHandler r = new RecordingHandler().doneWhen(b -> b.contains("[DONE]"));
    t.start(post(server.url("/")), r, new Cancellation());
    Event done = r.awaitTerminal();

    assertThat(done.kind()).isEqualTo(Kind.DONE);
    assertThat(closedByClient.get(WAIT_SECONDS, TimeUnit.SECONDS) - done.nanoTime())
        .isGreaterThanOrEqualTo(TimeUnit.SECONDS.toNanos(1));
  }

  // ---- outcomes only this transport defines ----

  @Test
  void exceptionFromOnEndStillLeavesAFailureOutcome() throws Exception {
    NettyTransport t = open(NettyTransport.builder());
    MockWebServer server = mockServer();
    server.enqueue(new MockResponse.Builder().body("ok").build());
    RecordingHandler r = new RecordingHandler().throwIn("onEnd");
    t.start(post(url(server, "/")), r, new Cancellation());
    assertThat(r.awaitTerminal().kind()).isEqualTo(Kind.END);

    t.close();
    Event last = r.events().get(r.events().size() - 1);
    assertThat(last.kind()).isEqualTo(Kind.FAILURE);
    assertThat(last.failure().orElseThrow().category()).isEqualTo(ErrorCategory.CLIENT);
    assertThat(last.failure().orElseThrow().message()).contains("onEnd");
  }

  @Test
  void cancelledBeforeItLeavesNothingIsSent() throws Exception {
    NettyTransport t = open(NettyTransport.builder());
    RawServer server = server((s, i) -> RawServer.readUntilClosed(s.getInputStream()));
    Cancellation cancellation = new Cancellation();
    cancellation.cancel();
    RecordingHandler r = new RecordingHandler();
    t.start(post(server.url("/")), r, cancellation);

    assertThat(r.awaitFailure().category()).isEqualTo(ErrorCategory.CANCELLED);
    t.close();
    assertThat(r.events()).hasSize(1);
    assertThat(server.connections()).isZero();
  }

  @Test
  void closeIsIdempotentAndLaterRequestsAreCancelledAtOnce() {
    NettyTransport t = open(NettyTransport.builder());
    t.close();
    t.close();
    RecordingHandler r = new RecordingHandler();
    t.start(post(URI.create("http://127.0.0.1:9/")), r, new Cancellation());

    Event e = r.events().get(0);
    assertThat(e.kind()).isEqualTo(Kind.FAILURE);
    assertThat(e.failure().orElseThrow().category()).isEqualTo(ErrorCategory.CANCELLED);
    assertThat(e.thread()).isEqualTo(Thread.currentThread().getName());
  }

  @Test
  void builderRejectsNonsenseWithItsReason() {
    assertThatThrownBy(() -> NettyTransport.builder().ioThreads(0)).hasMessageContaining("ioThreads must be >= 1");
    assertThatThrownBy(() -> NettyTransport.builder().keepAlive(Duration.ZERO)).hasMessageContaining("keepAlive");
    assertThatThrownBy(() -> NettyTransport.builder().maxConnectionsPerHost(0))
        .hasMessageContaining("maxConnectionsPerHost must be >= 1");
    NettyTransport t = open(NettyTransport.builder());
    assertThatThrownBy(() -> t.prepare(0)).hasMessageContaining("maxInFlight");
  }

  // ---- TLS ----

  @BeforeAll
  static void makeAServerCertificateForLocalhost() {
    certificate = TestCertificate.create(tls);
  }

  private static TrustManagerFactory trustingTheTestCertificate() {
    return certificate.trustManagerFactory();
  }

  private RawServer tlsServer() throws Exception {
    RawServer s = new RawServer(certificate.serverSocketFactory(), (socket, i) -> {
      InputStream in = socket.getInputStream();
      while (RawServer.readRequest(in) != null) {
        RawServer.write(socket.getOutputStream(), "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nsecret");
      }
    });
    servers.add(s);
    return s;
  }

  @Test
  void tlsWithATrustedCertificateForTheHostSucceedsAndReportsTheHandshake() throws Exception {
    NettyTransport t = open(NettyTransport.builder().trustManagerFactory(trustingTheTestCertificate()));
    RawServer server = tlsServer();
    URI url = URI.create("https://localhost:" + server.port() + "/v1");
    RecordingHandler first = new RecordingHandler();
    t.start(post(url), first, new Cancellation());

    assertThat(first.awaitTerminal().kind()).as("%s", first).isEqualTo(Kind.END);
    assertThat(first.body()).isEqualTo("secret");
    assertThat(first.phases()).containsSubsequence(Phase.CONNECT_START, Phase.SECURE_CONNECT_START,
        Phase.SECURE_CONNECT_END, Phase.CONNECT_END, Phase.CONNECTION_ACQUIRED, Phase.REQUEST_SENT);

    RecordingHandler second = new RecordingHandler();
    t.start(post(url), second, new Cancellation());
    assertThat(second.awaitTerminal().kind()).isEqualTo(Kind.END);
    assertThat(second.phases()).doesNotContain(Phase.SECURE_CONNECT_START);
    assertThat(server.connections()).isEqualTo(1);
  }

  @Test
  void tlsVerifiesTheCertificateByDefault() throws Exception {
    NettyTransport t = open(NettyTransport.builder());
    RawServer server = tlsServer();
    RecordingHandler r = new RecordingHandler();
    t.start(post(URI.create("https://localhost:" + server.port() + "/v1")), r, new Cancellation());

    Failure f = r.awaitFailure();
    assertThat(f.category()).isEqualTo(ErrorCategory.CONNECT);
    assertThat(f.message()).contains("TLS handshake with localhost:" + server.port());
    assertThat(r.body()).isEmpty();
  }

  @Test
  void tlsVerifiesTheHostNameEvenWithACustomTrustStore() throws Exception {
    NettyTransport t = open(NettyTransport.builder().trustManagerFactory(trustingTheTestCertificate()));
    RawServer server = tlsServer();
    RecordingHandler r = new RecordingHandler();
    // the certificate names localhost, not 127.0.0.1
    t.start(post(server.url("https", "/v1")), r, new Cancellation());

    Failure f = r.awaitFailure();
    assertThat(f.category()).isEqualTo(ErrorCategory.CONNECT);
    assertThat(r.body()).isEmpty();
  }

  @Test
  void serverThatNeverAnswersTheTlsHandshakeIsAConnectTimeout() throws Exception {
    NettyTransport t = open(NettyTransport.builder().trustManagerFactory(trustingTheTestCertificate()));
    RawServer server = server((s, i) -> RawServer.readUntilClosed(s.getInputStream()));
    Duration connect = Duration.ofMillis(300);
    RecordingHandler r = new RecordingHandler();
    t.start(new OutboundRequest("POST", URI.create("https://localhost:" + server.port() + "/"), List.of(),
        new byte[0], "", new Timeouts(connect, Duration.ofSeconds(30), Duration.ofSeconds(60))), r, new Cancellation());

    Failure f = r.awaitFailure();
    assertThat(f.category()).isEqualTo(ErrorCategory.TIMEOUT);
    assertThat(f.timeoutPhase()).isEqualTo(io.infermark.core.capture.TimeoutPhase.CONNECT);
    assertThat(r.phases()).contains(Phase.SECURE_CONNECT_START).doesNotContain(Phase.SECURE_CONNECT_END);
    assertThat(r.awaitTerminal().nanoTime() - r.sendStamp()).isGreaterThanOrEqualTo(connect.toNanos());
    r.assertContract();
  }

  // ---- plumbing ----

  private NettyTransport open(NettyTransport.Builder b) {
    NettyTransport t = b.build();
    transports.add(t);
    return t;
  }

  private RawServer server(RawServer.Script script) throws Exception {
    RawServer s = new RawServer(script);
    servers.add(s);
    return s;
  }

  private MockWebServer mockServer() throws Exception {
    MockWebServer s = new MockWebServer();
    s.start();
    servers.add(s);
    return s;
  }

  private static URI url(MockWebServer server, String path) {
    return URI.create(server.url(path).toString());
  }

  private static OutboundRequest post(URI url) {
    return new OutboundRequest("POST", url, List.of(), "{}".getBytes(StandardCharsets.UTF_8), "application/json",
        GENEROUS);
  }

  /** Polls {@code condition} until it holds, failing after {@value RecordingHandler#WAIT_SECONDS} s. */
  private static void awaitCondition(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("not within " + WAIT_SECONDS + " s: " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
  }
}
