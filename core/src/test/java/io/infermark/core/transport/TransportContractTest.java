package io.infermark.core.transport;

import static io.infermark.core.transport.RecordingHandler.WAIT_SECONDS;
import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.TimeoutPhase;
import io.infermark.core.transport.RecordingHandler.Event;
import io.infermark.core.transport.RecordingHandler.Kind;
import io.infermark.core.transport.netty.NettyTransport;
import io.infermark.testfixtures.RawServer;
import io.netty.channel.epoll.Epoll;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Supplier;
import java.util.stream.Stream;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The {@link Transport} contract, run against every transport: what reaches the server, what the
 * {@link ResponseHandler} is told and when, how every misbehaving server and caller ends, and that
 * each exchange ends exactly once. Servers are MockWebServer for well-behaved answers and raw
 * sockets on 127.0.0.1 for the rest; no test sleeps, every wait is bounded by
 * {@value RecordingHandler#WAIT_SECONDS} s.
 */
class TransportContractTest {

  /** Every transport under contract. */
  static Stream<Named<Supplier<Transport>>> transports() {
    List<Named<Supplier<Transport>>> all = new ArrayList<>();
    all.add(Named.of("netty-nio", () -> NettyTransport.builder().nativeTransport(false).build()));
    if (Epoll.isAvailable()) {
      all.add(Named.of("netty-epoll", () -> NettyTransport.builder().nativeTransport(true).build()));
    }
    all.add(Named.of("okhttp", OkHttpTransport::create));
    return all.stream();
  }

  static Stream<Arguments> transportsAndCallbacks() {
    return transports().flatMap(t -> Stream.of("onSend", "onPhase", "onResponse", "onBytes")
        .map(callback -> Arguments.of(t, callback)));
  }

  private static final Timeouts GENEROUS = new Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(30),
      Duration.ofSeconds(60));

  private final List<Transport> transports = new ArrayList<>();
  private final List<RecordingHandler> recorders = new ArrayList<>();
  private final List<AutoCloseable> servers = new ArrayList<>();

  @AfterEach
  void closeEverythingThenCheckEveryExchangeEndedExactlyOnce() throws Exception {
    for (Transport t : transports) {
      t.close();
    }
    for (AutoCloseable s : servers) {
      s.close();
    }
    for (RecordingHandler r : recorders) {
      r.assertContract();
    }
  }

  // ---- streaming ----

  @ParameterizedTest(name = "{0}")
  @MethodSource("transports")
  void streamedBodyIsHandedPieceByPieceInOrderStampedAtItsRead(Supplier<Transport> transport) throws Exception {
    Transport t = open(transport);
    RecordingHandler r = new RecordingHandler();
    AtomicLongArray written = new AtomicLongArray(3);
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      OutputStream out = s.getOutputStream();
      RawServer.write(out, RawServer.SSE_HEAD);
      for (int n = 0; n < 3; n++) {
        written.set(n, System.nanoTime());
        RawServer.writeChunk(out, "data: " + n + "\n\n");
        // the next piece leaves only once the client has handed this one over: one read each
        r.bodyContains("data: " + n + "\n\n").get(WAIT_SECONDS, TimeUnit.SECONDS);
      }
      RawServer.write(out, "0\r\n\r\n");
      RawServer.readUntilClosed(s.getInputStream());
    });

    start(t, post(server.url("/v1/chat/completions"), "{}"), r);
    Event end = r.awaitTerminal();

    assertThat(end.kind()).isEqualTo(Kind.END);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.head().contentType()).isEqualTo("text/event-stream");
    assertThat(r.head().header("content-TYPE")).contains("text/event-stream");
    assertThat(r.body()).isEqualTo("data: 0\n\ndata: 1\n\ndata: 2\n\n");
    assertThat(r.events().get(0).kind()).isEqualTo(Kind.SEND);
    assertThat(r.phases()).containsSubsequence(Phase.CONNECT_START, Phase.CONNECT_END, Phase.CONNECTION_ACQUIRED,
        Phase.REQUEST_SENT, Phase.RESPONSE_HEADERS_END);
    List<Event> pieces = r.events(Kind.BYTES);
    assertThat(pieces).hasSizeGreaterThanOrEqualTo(3);
    for (int n = 0; n < 3; n++) {
      String prefix = "data: " + n;
      long firstStampWithPiece = stampOfPieceCompleting(r, prefix);
      assertThat(firstStampWithPiece).as("piece %d stamped after the server wrote it", n).isGreaterThanOrEqualTo(written.get(n));
    }
    assertThat(pieces.get(0).nanoTime()).isGreaterThanOrEqualTo(r.stamp(Phase.RESPONSE_HEADERS_END));
    assertThat(end.nanoTime()).isGreaterThanOrEqualTo(pieces.get(pieces.size() - 1).nanoTime());
  }

  /** The stamp of the body piece after which the body first contains {@code prefix}. */
  private static long stampOfPieceCompleting(RecordingHandler r, String prefix) {
    int received = 0;
    String body = r.body();
    int needed = body.indexOf(prefix) + prefix.length();
    for (Event e : r.events(Kind.BYTES)) {
      received += Integer.parseInt(e.detail());
      if (received >= needed) {
        return e.nanoTime();
      }
    }
    throw new AssertionError(prefix + " never arrived: " + r.events());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("transports")
  void errorStatusIsReportedWithItsHeadersAndBody(Supplier<Transport> transport) throws Exception {
    Transport t = open(transport);
    MockWebServer server = mockServer();
    server.enqueue(new MockResponse.Builder().code(429).addHeader("Retry-After", "3").body("slow down").build());
    RecordingHandler r = start(t, post(URI.create(server.url("/v1/x").toString()), "{}"), new RecordingHandler());

    assertThat(r.awaitTerminal().kind()).isEqualTo(Kind.END);
    assertThat(r.status()).isEqualTo(429);
    assertThat(r.head().header("retry-after")).contains("3");
    assertThat(r.body()).isEqualTo("slow down");
  }

  // ---- what reaches the server ----

  @ParameterizedTest(name = "{0}")
  @MethodSource("transports")
  void requestArrivesIntactWithItsHeadersAndA20KbBody(Supplier<Transport> transport) throws Exception {
    Transport t = open(transport);
    MockWebServer server = mockServer();
    server.enqueue(new MockResponse.Builder().body("ok").build());
    byte[] body = new byte[20_000];
    new Random(7).nextBytes(body);
    OutboundRequest request = new OutboundRequest("POST", URI.create(server.url("/v1/chat/completions?a=1&b=2").toString()),
        List.of(new OutboundRequest.Header("X-Tenant", "t1"), new OutboundRequest.Header("Authorization", "Bearer k")),
        body, "application/json", GENEROUS);
    RecordingHandler r = start(t, request, new RecordingHandler());

    assertThat(r.awaitTerminal().kind()).isEqualTo(Kind.END);
    RecordedRequest got = server.takeRequest(WAIT_SECONDS, TimeUnit.SECONDS);
    assertThat(got).isNotNull();
    assertThat(got.getMethod()).isEqualTo("POST");
    assertThat(got.getTarget()).isEqualTo("/v1/chat/completions?a=1&b=2");
    assertThat(got.getHeaders().get("X-Tenant")).isEqualTo("t1");
    assertThat(got.getHeaders().get("Authorization")).isEqualTo("Bearer k");
    assertThat(got.getHeaders().get("Content-Type")).startsWith("application/json");
    assertThat(got.getHeaders().get("Content-Length")).isEqualTo("20000");
    assertThat(got.getHeaders().get("Host")).isEqualTo(request.url().getHost() + ":" + server.getPort());
    assertThat(got.getBody().toByteArray()).isEqualTo(body);
  }

  /**
   * With Nagle's algorithm on, the tail of a 20 KB body can wait for the server's delayed ACK,
   * which Linux holds for at least 40 ms; with {@code TCP_NODELAY} it arrives at once. The best of
   * several sends must beat that floor, however loaded the machine.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("transports")
  void a20KbBodyReachesTheServerWithoutWaitingForADelayedAck(Supplier<Transport> transport) throws Exception {
    Transport t = open(transport);
    List<Long> lastByteAt = new CopyOnWriteArrayList<>();
    RawServer server = server((s, i) -> {
      InputStream in = s.getInputStream();
      RawServer.Request req;
      while ((req = RawServer.readRequest(in)) != null) {
        lastByteAt.add(req.lastByteNanos());
        RawServer.write(s.getOutputStream(), "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
      }
    });
    byte[] body = new byte[20_000];
    long delayedAckFloor = TimeUnit.MILLISECONDS.toNanos(40);
    long best = Long.MAX_VALUE;
    List<Long> seen = new ArrayList<>();
    for (int attempt = 0; attempt < 20 && best >= delayedAckFloor; attempt++) {
      RecordingHandler r = start(t, new OutboundRequest("POST", server.url("/"), List.of(), body, "application/json",
          GENEROUS), new RecordingHandler());
      assertThat(r.awaitTerminal().kind()).isEqualTo(Kind.END);
      long took = lastByteAt.get(lastByteAt.size() - 1) - r.sendStamp();
      seen.add(TimeUnit.NANOSECONDS.toMicros(took));
      best = Math.min(best, took);
    }
    assertThat(best).as("send to last body byte at the server, µs per attempt: %s", seen).isLessThan(delayedAckFloor);
  }

  // ---- connections ----

  @ParameterizedTest(name = "{0}")
  @MethodSource("transports")
  void keepAliveConnectionIsReusedWithoutConnecting(Supplier<Transport> transport) throws Exception {
    Transport t = open(transport);
    MockWebServer server = mockServer();
    server.enqueue(new MockResponse.Builder().body("one").build());
    server.enqueue(new MockResponse.Builder().body("two").build());
    URI url = URI.create(server.url("/v1/x").toString());

    RecordingHandler first = start(t, post(url, "{}"), new RecordingHandler());
    assertThat(first.awaitTerminal().kind()).isEqualTo(Kind.END);
    RecordingHandler second = start(t, post(url, "{}"), new RecordingHandler());
    assertThat(second.awaitTerminal().kind()).isEqualTo(Kind.END);

    assertThat(first.phases()).contains(Phase.CONNECT_START, Phase.CONNECT_END, Phase.CONNECTION_ACQUIRED);
    assertThat(second.phases()).doesNotContain(Phase.CONNECT_START, Phase.CONNECT_END)
        .contains(Phase.CONNECTION_ACQUIRED, Phase.REQUEST_SENT, Phase.RESPONSE_HEADERS_END);
    assertThat(second.body()).isEqualTo("two");
    int firstConnection = server.takeRequest(WAIT_SECONDS, TimeUnit.SECONDS).getConnectionIndex();
    assertThat(server.takeRequest(WAIT_SECONDS, TimeUnit.SECONDS).getConnectionIndex()).isEqualTo(firstConnection);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("transports")
  void connectionTheServerAskedToCloseIsNotReused(Supplier<Transport> transport) throws Exception {
    Transport t = open(transport);
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      RawServer.write(s.getOutputStream(), "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok");
    });
    RecordingHandler first = start(t, post(server.url("/"), "{}"), new RecordingHandler());
    assertThat(first.awaitTerminal().kind()).isEqualTo(Kind.END);
    RecordingHandler second = start(t, post(server.url("/"), "{}"), new RecordingHandler());
    assertThat(second.awaitTerminal().kind()).isEqualTo(Kind.END);

    assertThat(second.phases()).contains(Phase.CONNECT_START);
    assertThat(server.connections()).isEqualTo(2);
  }

  /**
   * A server that closes idle connections without saying so: the request that finds its pooled
   * connection dead before any response byte is sent once more on a new connection, and its send
   * time stays the first one.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("transports")
  void staleKeepAliveConnectionIsRetriedOnceOnANewConnection(Supplier<Transport> transport) throws Exception {
    Transport t = open(transport);
    List<String> bodies = new CopyOnWriteArrayList<>();
    CompletableFuture<Boolean> secondReachedTheStaleConnection = new CompletableFuture<>();
    RawServer server = server((s, i) -> {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      if (i == 0) {
        bodies.add(new String(RawServer.readRequest(in).body(), StandardCharsets.UTF_8));
        RawServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst");
        // the second request arrives ... and the connection dies unanswered
        secondReachedTheStaleConnection.complete(RawServer.readRequest(in) != null);
        return;
      }
      bodies.add(new String(RawServer.readRequest(in).body(), StandardCharsets.UTF_8));
      RawServer.write(out, "HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\nretried");
      RawServer.readUntilClosed(in);
    });

    RecordingHandler first = start(t, post(server.url("/"), "{\"n\":1}"), new RecordingHandler());
    assertThat(first.awaitTerminal().kind()).isEqualTo(Kind.END);
    RecordingHandler second = start(t, post(server.url("/"), "{\"n\":2}"), new RecordingHandler());
    Event end = second.awaitTerminal();

    assertThat(end.kind()).as("%s", second.events()).isEqualTo(Kind.END);
    assertThat(second.body()).isEqualTo("retried");
    assertThat(second.events(Kind.SEND)).hasSize(1);
    assertThat(secondReachedTheStaleConnection.get(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    assertThat(server.connections()).isEqualTo(2);
    assertThat(bodies).containsExactly("{\"n\":1}", "{\"n\":2}");
  }

  // ---- failures ----

  @ParameterizedTest(name = "{0}")
  @MethodSource("transports")
  void refusedConnectionFailsAsConnectNamingTheAddress(Supplier<Transport> transport) throws Exception {
    Transport t = open(transport);
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    RecordingHandler r = start(t, post(URI.create("http://127.0.0.1:" + port + "/v1"), "{}"), new RecordingHandler());

    Failure f = r.awaitFailure();
    assertThat(f.category()).isEqualTo(ErrorCategory.CONNECT);
    assertThat(f.message()).contains("127.0.0.1:" + port);
    assertThat(r.events(Kind.SEND)).hasSize(1);
  }

  /**
   * A listener whose accept queue is full drops new SYNs, so connecting to it hangs until the
   * connect timeout; the queue is filled with plain sockets first.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("transports")
  void connectThatNeverCompletesIsAConnectTimeout(Supplier<Transport> transport) throws Exception {
    Transport t = open(transport);
    ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    servers.add(listener);
    InetSocketAddress address = new InetSocketAddress(listener.getInetAddress(), listener.getLocalPort());
    boolean full = false;
    for (int n = 0; n < 32 && !full; n++) {
      Socket filler = new Socket();
      servers.add(filler);
      try {
        filler.connect(address, 200);
      } catch (SocketTimeoutException e) {
        full = true;
      }
    }
    Assumptions.assumeTrue(full, "this kernel did not stop accepting SYNs on a full accept queue");
    Duration connect = Duration.ofMillis(300);
    RecordingHandler r = start(t, post(URI.create("http://127.0.0.1:" + address.getPort() + "/"), "{}",
        new Timeouts(connect, Duration.ofSeconds(30), Duration.ofSeconds(60))), new RecordingHandler());

    Failure f = r.awaitFailure();
    assertThat(f.category()).isEqualTo(ErrorCategory.TIMEOUT);
    assertThat(f.timeoutPhase()).isEqualTo(TimeoutPhase.CONNECT);
    assertThat(f.message()).contains("127.0.0.1:" + address.getPort());
    // Never sooner than the connect timeout after the send. OkHttp connects on a thread of its own, whose deadline the
    // JDK keeps; on a VM the monotonic clock read on two cores was seen 9 µs apart (299.991 ms), so the bound allows
    // 1 ms of that skew: far below the timeout, it still fails a transport that gives up early.
    assertThat(r.awaitTerminal().nanoTime() - r.sendStamp())
        .isGreaterThanOrEqualTo(connect.toNanos() - TimeUnit.MILLISECONDS.toNanos(1));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("transports")
  void unresolvableHostFailsAsConnect(Supplier<Transport> transport) {
    Transport t = open(transport);
    RecordingHandler r = start(t, post(URI.create("http://no-such-host.invalid:8080/v1"), "{}"),
        new RecordingHandler());

    Failure f = r.awaitFailure();
    assertThat(f.category()).isEqualTo(ErrorCategory.CONNECT);
    assertThat(f.message()).contains("no-such-host.invalid");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("transports")
  void silenceAfterTheHeadersIsAReadTimeout(Supplier<Transport> transport) throws Exception {
    Transport t = open(transport);
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      RawServer.write(s.getOutputStream(), RawServer.SSE_HEAD);
      RawServer.readUntilClosed(s.getInputStream());
    });
    Duration read = Duration.ofMillis(300);
    RecordingHandler r = start(t, post(server.url("/"), "{}",
        new Timeouts(Duration.ofSeconds(5), read, Duration.ofSeconds(60))), new RecordingHandler());

    Event e = r.awaitTerminal();
    Failure f = r.awaitFailure();
    assertThat(f.category()).isEqualTo(ErrorCategory.TIMEOUT);
    assertThat(f.timeoutPhase()).isEqualTo(TimeoutPhase.READ);
    assertThat(f.message()).contains("127.0.0.1:" + server.port());
    assertThat(e.nanoTime() - r.stamp(Phase.RESPONSE_HEADERS_END)).isGreaterThanOrEqualTo(read.toNanos());
    assertThat(server.ended(0).get(WAIT_SECONDS, TimeUnit.SECONDS)).as("the server saw the connection closed").isNull();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("transports")
  void silenceBeforeTheHeadersIsAReadTimeout(Supplier<Transport> transport) throws Exception {
    Transport t = open(transport);
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      RawServer.readUntilClosed(s.getInputStream());
    });
    Duration read = Duration.ofMillis(300);
    RecordingHandler r = start(t, post(server.url("/"), "{}",
        new Timeouts(Duration.ofSeconds(5), read, Duration.ofSeconds(60))), new RecordingHandler());

    Failure f = r.awaitFailure();
    assertThat(f.timeoutPhase()).isEqualTo(TimeoutPhase.READ);
    assertThat(r.awaitTerminal().nanoTime() - r.stamp(Phase.REQUEST_SENT)).isGreaterThanOrEqualTo(read.toNanos());
    assertThat(r.status()).isZero();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("transports")
  void callTimeoutBoundsTheWholeExchange(Supplier<Transport> transport) throws Exception {
    Transport t = open(transport);
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      RawServer.write(s.getOutputStream(), RawServer.SSE_HEAD);
      RawServer.writeChunk(s.getOutputStream(), "data: 0\n\n");
      RawServer.readUntilClosed(s.getInputStream());
    });
    Duration call = Duration.ofMillis(500);
    RecordingHandler r = start(t, post(server.url("/"), "{}",
        new Timeouts(Duration.ofSeconds(5), Duration.ofSeconds(60), call)), new RecordingHandler());

    Failure f = r.awaitFailure();
    assertThat(f.category()).isEqualTo(ErrorCategory.TIMEOUT);
    assertThat(f.timeoutPhase()).isEqualTo(TimeoutPhase.CALL);
    assertThat(r.awaitTerminal().nanoTime() - r.sendStamp()).isGreaterThanOrEqualTo(call.toNanos());
    assertThat(r.body()).isEqualTo("data: 0\n\n");
    assertThat(server.ended(0).get(WAIT_SECONDS, TimeUnit.SECONDS)).isNull();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("transports")
  void cancellationEndsTheExchangePromptlyAndClosesItsConnection(Supplier<Transport> transport) throws Exception {
    Transport t = open(transport);
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      RawServer.write(s.getOutputStream(), RawServer.SSE_HEAD);
      RawServer.writeChunk(s.getOutputStream(), "data: 0\n\n");
      RawServer.readUntilClosed(s.getInputStream());
    });
    Cancellation cancellation = new Cancellation();
    RecordingHandler r = new RecordingHandler();
    CompletableFuture<Long> firstPiece = r.bodyContains("data: 0");
    start(t, post(server.url("/"), "{}"), cancellation, r);
    firstPiece.get(WAIT_SECONDS, TimeUnit.SECONDS);

    cancellation.cancel();

    assertThat(r.awaitFailure().category()).isEqualTo(ErrorCategory.CANCELLED);
    assertThat(server.ended(0).get(WAIT_SECONDS, TimeUnit.SECONDS)).as("the server saw the connection closed").isNull();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("transports")
  void serverClosingInsideAChunkedBodyIsAReset(Supplier<Transport> transport) throws Exception {
    Transport t = open(transport);
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      RawServer.write(s.getOutputStream(), RawServer.SSE_HEAD);
      RawServer.writeChunk(s.getOutputStream(), "data: 0\n\n");
    });
    RecordingHandler r = start(t, post(server.url("/"), "{}"), new RecordingHandler());

    Failure f = r.awaitFailure();
    assertThat(f.category()).isEqualTo(ErrorCategory.RESET);
    assertThat(f.message()).contains("127.0.0.1:" + server.port());
    assertThat(r.status()).isEqualTo(200);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("transports")
  void serverClosingBeforeTheContentLengthIsReachedIsAReset(Supplier<Transport> transport) throws Exception {
    Transport t = open(transport);
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      RawServer.write(s.getOutputStream(), "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nonly ten b");
    });
    RecordingHandler r = start(t, post(server.url("/"), "{}"), new RecordingHandler());

    assertThat(r.awaitFailure().category()).isEqualTo(ErrorCategory.RESET);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("transports")
  void serverClosingANewConnectionBeforeAnsweringIsAReset(Supplier<Transport> transport) throws Exception {
    Transport t = open(transport);
    RawServer server = server((s, i) -> RawServer.readRequest(s.getInputStream()));
    RecordingHandler r = start(t, post(server.url("/"), "{}"), new RecordingHandler());

    assertThat(r.awaitFailure().category()).isEqualTo(ErrorCategory.RESET);
    assertThat(server.connections()).as("a new connection is not retried").isEqualTo(1);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("transports")
  void unparsableResponseIsAMalformedStream(Supplier<Transport> transport) throws Exception {
    Transport t = open(transport);
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      RawServer.write(s.getOutputStream(), "THIS IS NOT HTTP\r\n\r\n");
      RawServer.readUntilClosed(s.getInputStream());
    });
    RecordingHandler r = start(t, post(server.url("/"), "{}"), new RecordingHandler());

    Failure f = r.awaitFailure();
    assertThat(f.category()).isEqualTo(ErrorCategory.MALFORMED_STREAM);
    assertThat(f.message()).contains("127.0.0.1:" + server.port());
  }

  // ---- the consumer's say ----

  @ParameterizedTest(name = "{0}")
  @MethodSource("transports")
  void doneConsumerGetsNoMoreBytesAndAServerThatKeepsStreamingIsCutOff(Supplier<Transport> transport)
      throws Exception {
    Transport t = open(transport);
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      OutputStream out = s.getOutputStream();
      RawServer.write(out, RawServer.SSE_HEAD);
      RawServer.writeChunk(out, "data: [DONE]\n\n");
      while (true) { // until the client closes the connection: the write then fails
        RawServer.writeChunk(out, "data: more after the end\n\n");
      }
    });
    RecordingHandler r = new RecordingHandler().doneWhen(body -> body.contains("[DONE]"));
    start(t, post(server.url("/"), "{}"), r);

    assertThat(r.awaitTerminal().kind()).isEqualTo(Kind.DONE);
    assertThat(server.ended(0).get(WAIT_SECONDS, TimeUnit.SECONDS)).as("the server's writes failed")
        .isInstanceOf(IOException.class);
    assertThat(r.events().get(r.events().size() - 1).kind()).as("no bytes after done").isEqualTo(Kind.DONE);
  }

  @ParameterizedTest(name = "{0}: throws in {1}")
  @MethodSource("transportsAndCallbacks")
  void exceptionFromTheHandlerEndsTheExchangeAsClientAndTheTransportGoesOn(Supplier<Transport> transport,
      String callback) throws Exception {
    Transport t = open(transport);
    MockWebServer server = mockServer();
    server.setDispatcher(new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        return request.getTarget().equals("/stream")
            ? new MockResponse.Builder().addHeader("Content-Type", "text/event-stream").body("data: 0\n\n").build()
            : new MockResponse.Builder().body("fine").build();
      }
    });

    RecordingHandler r = start(t, post(URI.create(server.url("/stream").toString()), "{}"),
        new RecordingHandler().throwIn(callback));
    Failure f = r.awaitFailure();
    assertThat(f.category()).isEqualTo(ErrorCategory.CLIENT);
    assertThat(f.message()).contains("threw").contains("planted failure in " + callback);

    RecordingHandler after = start(t, post(URI.create(server.url("/fine").toString()), "{}"), new RecordingHandler());
    assertThat(after.awaitTerminal().kind()).isEqualTo(Kind.END);
    assertThat(after.body()).isEqualTo("fine");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("transports")
  void closingTheTransportEndsExchangesInFlightAsCancelled(Supplier<Transport> transport) throws Exception {
    Transport t = open(transport);
    CountDownLatch requests = new CountDownLatch(3);
    RawServer server = server((s, i) -> {
      RawServer.readRequest(s.getInputStream());
      requests.countDown();
      RawServer.readUntilClosed(s.getInputStream());
    });
    List<RecordingHandler> inFlight = new ArrayList<>();
    for (int n = 0; n < 3; n++) {
      inFlight.add(start(t, post(server.url("/"), "{}"), new RecordingHandler()));
    }
    assertThat(requests.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("all three requests reached the server").isTrue();

    t.close();

    for (RecordingHandler r : inFlight) {
      assertThat(r.awaitFailure().category()).isEqualTo(ErrorCategory.CANCELLED);
    }
    for (int n = 0; n < 3; n++) {
      assertThat(server.ended(n).get(WAIT_SECONDS, TimeUnit.SECONDS)).isNull();
    }
  }

  // ---- plumbing ----

  private Transport open(Supplier<Transport> supplier) {
    Transport t = supplier.get();
    transports.add(t);
    return t;
  }

  private RawServer server(RawServer.Script script) throws IOException {
    RawServer s = new RawServer(script);
    servers.add(s);
    return s;
  }

  private MockWebServer mockServer() throws IOException {
    MockWebServer s = new MockWebServer();
    s.start();
    servers.add(s);
    return s;
  }

  private RecordingHandler start(Transport t, OutboundRequest request, RecordingHandler r) {
    return start(t, request, new Cancellation(), r);
  }

  /** Starts an exchange; a blocking transport runs it on a thread of its own, as the engine would. */
  private RecordingHandler start(Transport t, OutboundRequest request, Cancellation cancellation, RecordingHandler r) {
    recorders.add(r);
    if (t.blocking()) {
      Thread thread = new Thread(() -> t.start(request, r, cancellation), "exchange-" + recorders.size());
      thread.setDaemon(true);
      thread.start();
    } else {
      t.start(request, r, cancellation);
    }
    return r;
  }

  private static OutboundRequest post(URI url, String json) {
    return post(url, json, GENEROUS);
  }

  private static OutboundRequest post(URI url, String json, Timeouts timeouts) {
    return new OutboundRequest("POST", url, List.of(), json.getBytes(StandardCharsets.UTF_8),
        "application/json", timeouts);
  }
}
