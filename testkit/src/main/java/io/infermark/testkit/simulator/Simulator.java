package io.infermark.testkit.simulator;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.testkit.simulator.server.NettyH2Server;
import io.infermark.testkit.simulator.server.NettyHttp1Server;
import io.infermark.testkit.simulator.server.SelfSignedCertificate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An OpenAI-compatible LLM server that runs inside the test JVM, streams deterministic text in
 * vLLM's wire format at configured speeds, injects configured faults, and records the ground
 * truth of every request as a {@link ServerTimeline}.
 *
 * <pre>{@code
 * try (Simulator sim = Simulator.start(SimulatorConfig.builder()
 *     .timeToFirstToken(Duration.ofMillis(20)).interTokenInterval(Duration.ofMillis(5)).build())) {
 *   // POST sim.baseUrl() + "/v1/chat/completions" with header X-Request-Id: r1 ...
 *   ServerTimeline truth = sim.timeline("r1").orElseThrow();
 * }
 * }</pre>
 *
 * <p>Endpoints: {@code POST /v1/chat/completions} and {@code POST /v1/completions} (streamed with
 * {@code "stream": true}, else one JSON body), {@code GET /v1/models}, {@code GET /health},
 * {@code GET /metrics} (Prometheus, vLLM's names), {@code GET /simulator/timelines[/{id}]}. The
 * output is {@link OutputVocabulary} text; prompts are counted by {@link PromptTokenizer}. Each
 * request is keyed by its {@code X-Request-Id} header, or by {@code sim-<sequence>} when it has
 * none; the id is echoed in the response's {@code X-Request-Id} header.
 *
 * <p>The server binds {@link SimulatorConfig#host()} (127.0.0.1 by default). One selector thread
 * accepts connections and reads requests (HTTP/1.1, keep-alive); each request is handled on its
 * own short-lived thread (virtual threads on Java 21+, daemon platform threads otherwise). A
 * fault-free stream holds no thread once its headers are sent: with an engine profile, the engine's
 * thread gathers every stream's new tokens at the end of each step and a writer thread sends them
 * (one non-blocking write per connection per step); with fixed timing, one clock thread wakes on a
 * grid of at most 1 ms and writes every token due by then. Streams with a fault and non-streamed
 * responses keep their handler thread, which parks until each token is due.
 */
public final class Simulator implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Simulator.class);

  // Deep enough that a burst of thousands of connects is queued by the kernel, not dropped
  // (a dropped SYN costs the client a ~1 s retransmission, which would look like server latency).
  private static final int ACCEPT_BACKLOG = 4096;

  private final SimulatorConfig config;
  private final AutoCloseable server;
  private final SimulatorProtocol protocol;
  private final InetSocketAddress bound;
  private final ExecutorService threads;
  private final GenerationHandler generation;
  private final TimelineStore timelines;
  private final ServingModel model;
  private final String baseUrl;
  /** The TLS port's certificate; null without TLS. */
  private final SelfSignedCertificate certificate;
  private volatile boolean closed;

  private Simulator(SimulatorConfig config, AutoCloseable server, InetSocketAddress bound, SimulatorProtocol protocol,
      ExecutorService threads, GenerationHandler generation, TimelineStore timelines, ServingModel model,
      SelfSignedCertificate certificate) {
    this.certificate = certificate;
    this.config = config;
    this.server = server;
    this.protocol = protocol;
    this.bound = bound;
    this.threads = threads;
    this.generation = generation;
    this.timelines = timelines;
    this.model = model;
    String host = config.host();
    boolean any = host.equals("0.0.0.0") || host.equals("::") || host.equals("0:0:0:0:0:0:0:0");
    String shown = any ? "127.0.0.1" : host.contains(":") ? "[" + host + "]" : host;
    this.baseUrl = (protocol == SimulatorProtocol.H2 ? "https://" : "http://") + shown + ":" + bound.getPort();
  }

  /** Starts a simulator with the default configuration. */
  public static Simulator start() {
    return start(SimulatorConfig.defaults());
  }

  /**
   * Starts a simulator serving {@code config} on 127.0.0.1.
   *
   * @throws UncheckedIOException if the configured port cannot be bound
   */
  public static Simulator start(SimulatorConfig config) {
    return start(config, SimulatorProtocol.HTTP_1_1);
  }

  /**
   * Starts a simulator serving {@code config} over {@code protocol}: HTTP/1.1, or h2c (HTTP/2 with
   * prior knowledge, for clients benchmarking gateways and gRPC-era front ends). The engine, the
   * ground-truth timelines and the faults are the same on both.
   *
   * @throws UncheckedIOException if the configured port cannot be bound
   */
  public static Simulator start(SimulatorConfig config, SimulatorProtocol protocol) {
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(protocol, "protocol");
    ObjectMapper mapper = new ObjectMapper();
    TimelineStore timelines = new TimelineStore(config.timelineRetention());
    ServerMetrics metrics = new ServerMetrics(config.model());
    InetSocketAddress address = new InetSocketAddress(address(config.host()), config.port());
    ServingModel model = config.engine().<ServingModel>map(EngineServingModel::new)
        .orElseGet(() -> new RealTimeServingModel(config));
    if (config.coldStart().isPresent()) {
      model = new ColdStartServingModel(model, config.coldStart().get(), System::nanoTime);
    }
    GenerationHandler generation = new GenerationHandler(config, mapper.getFactory(),
        new RequestParser(mapper, config.model(), config.maxModelLength(), config.tritonTokenCounts()), FaultPolicy.of(config), model,
        timelines, metrics);
    generation.warmUp();
    ExecutorService threads = HandlerThreads.create();
    Router router = new Router(generation, mapper.getFactory(), config.model(), System.currentTimeMillis() / 1000,
        metrics, model, timelines);
    AutoCloseable server;
    InetSocketAddress bound;
    SelfSignedCertificate certificate = null;
    try {
      if (protocol == SimulatorProtocol.H2C) {
        NettyH2Server h2 = NettyH2Server.start(address, ACCEPT_BACKLOG, router, threads);
        server = h2;
        bound = h2.address();
      } else if (protocol == SimulatorProtocol.H2) {
        certificate = SelfSignedCertificate.generate();
        NettyH2Server h2 = NettyH2Server.start(address, ACCEPT_BACKLOG, router, threads, tls(certificate));
        server = h2;
        bound = h2.address();
      } else {
        NettyHttp1Server h1 = NettyHttp1Server.start(address, ACCEPT_BACKLOG, router, threads);
        server = h1;
        bound = h1.address();
      }
    } catch (IOException e) {
      model.close();
      threads.shutdownNow();
      throw new UncheckedIOException("could not bind the simulator to " + config.host() + ":" + config.port()
          + "; choose another port or 0 for an ephemeral one", e);
    }
    Simulator simulator = new Simulator(config, server, bound, protocol, threads, generation, timelines, model,
        certificate);
    simulator.warmUpHttp();
    log.info("simulator started at {} ({})", simulator.baseUrl, config);
    return simulator;
  }

  /**
   * Sends one {@code GET /health} through the real server before anyone else can, so the first
   * request's TTFT does not include loading and initialising the server's classes.
   */
  private void warmUpHttp() {
    if (protocol != SimulatorProtocol.HTTP_1_1) {
      return; // an HTTP/1.1 request would only be a protocol error to the HTTP/2 server
    }
    try (Socket socket = new Socket(connectAddress(), port())) {
      socket.setSoTimeout(5_000);
      socket.getOutputStream().write(("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      socket.getInputStream().readAllBytes();
    } catch (IOException e) {
      log.debug("simulator warm-up request failed; the first request may be slow", e);
    }
  }

  /** TLS for the h2 port: the certificate, the cipher suites HTTP/2 allows, ALPN offering h2 then http/1.1. */
  private static io.netty.handler.ssl.SslContext tls(SelfSignedCertificate certificate) {
    try {
      return io.netty.handler.ssl.SslContextBuilder.forServer(certificate.keyManagerFactory())
          .ciphers(io.netty.handler.codec.http2.Http2SecurityUtil.CIPHERS,
              io.netty.handler.ssl.SupportedCipherSuiteFilter.INSTANCE)
          .applicationProtocolConfig(new io.netty.handler.ssl.ApplicationProtocolConfig(
              io.netty.handler.ssl.ApplicationProtocolConfig.Protocol.ALPN,
              io.netty.handler.ssl.ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
              io.netty.handler.ssl.ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
              io.netty.handler.ssl.ApplicationProtocolNames.HTTP_2,
              io.netty.handler.ssl.ApplicationProtocolNames.HTTP_1_1))
          .build();
    } catch (javax.net.ssl.SSLException e) {
      throw new IllegalStateException("cannot set up the simulator's TLS: " + e.getMessage(), e);
    }
  }

  /**
   * Trust in this simulator's self-signed certificate ({@link SimulatorProtocol#H2}), for a client that
   * verifies TLS, e.g. {@code NettyTransport.builder().trustManagerFactory(sim.trustManagerFactory().get())};
   * the certificate names {@code localhost} and {@code 127.0.0.1}. Empty without TLS.
   */
  public java.util.Optional<javax.net.ssl.TrustManagerFactory> trustManagerFactory() {
    return certificate == null ? java.util.Optional.empty() : java.util.Optional.of(certificate.trustManagerFactory());
  }

  private static InetAddress address(String host) {
    try {
      return InetAddress.getByName(host); // a literal: no lookup
    } catch (IOException e) {
      throw new IllegalArgumentException("host " + host + " is not a usable address", e);
    }
  }

  private static InetAddress loopback() {
    try {
      return InetAddress.getByAddress("127.0.0.1", new byte[] {127, 0, 0, 1});
    } catch (IOException e) {
      throw new IllegalStateException(e); // a literal 4-byte address is always valid
    }
  }

  private InetAddress connectAddress() {
    InetAddress local = bound.getAddress();
    return local.isAnyLocalAddress() ? loopback() : local;
  }

  /** The configuration this simulator serves. */
  public SimulatorConfig config() {
    return config;
  }

  /** The port the simulator listens on. */
  public int port() {
    return bound.getPort();
  }

  /** The URL to prefix paths with, like {@code http://127.0.0.1:43125} (no trailing slash). */
  public String baseUrl() {
    return baseUrl;
  }

  /**
   * The timeline of the latest finished request with this {@code X-Request-Id}; empty while it
   * is still being served or if no such request arrived.
   */
  public Optional<ServerTimeline> timeline(String requestId) {
    return timelines.byId(Objects.requireNonNull(requestId, "requestId"));
  }

  /**
   * The timelines of the finished generation requests still kept (the latest
   * {@link SimulatorConfig#timelineRetention()}), in arrival order.
   */
  public List<ServerTimeline> timelines() {
    return timelines.all();
  }

  /** Generation requests being handled now: waiting for a slot, or generating. */
  public int inFlight() {
    return generation.inFlight().current();
  }

  /** The most generation requests handled at once so far (waiting or generating). */
  public int peakInFlight() {
    return generation.inFlight().peak();
  }

  /** Generation requests waiting now for a concurrency slot; without a limit none waits for long. */
  public int waiting() {
    return generation.waiting().current();
  }

  /** Admitted requests generating now; never more than {@link SimulatorConfig#maxConcurrency()}. */
  public int running() {
    return generation.running().current();
  }

  /** The most admitted requests generating at once so far. */
  public int peakRunning() {
    return generation.running().peak();
  }

  /**
   * The serving model's counters now (steps, running and waiting sequences, KV usage, preemptions,
   * prefix-cache hits), as {@code /metrics} reports them. Without an engine profile only the
   * request and token counts are non-zero.
   */
  public EngineStats engineStats() {
    return model.stats();
  }

  /** Generation requests received so far, valid or not. */
  public long requestCount() {
    return generation.requestCount();
  }

  /**
   * Stops accepting requests, drops every open connection, and interrupts requests being served
   * (their timelines end {@link ServerTimeline.Outcome#SIMULATOR_CLOSED}). Idempotent.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    generation.closing();
    try {
      server.close();
    } catch (Exception e) {
      log.debug("closing the server failed", e);
    }
    threads.shutdownNow();
    model.close();
    try {
      if (!threads.awaitTermination(2, TimeUnit.SECONDS)) {
        log.warn("simulator at {} closed with handler threads still running", baseUrl);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    log.info("simulator at {} closed after {} requests", baseUrl, requestCount());
  }

  @Override
  public String toString() {
    return "Simulator{" + baseUrl + (protocol == SimulatorProtocol.HTTP_1_1 ? "" : " " + protocol)
        + (closed ? " closed" : "") + ", model=" + config.model()
        + ", requests=" + requestCount() + ", inFlight=" + inFlight() + '}';
  }
}
