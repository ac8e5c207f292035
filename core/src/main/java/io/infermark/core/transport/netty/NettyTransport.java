package io.infermark.core.transport.netty;

import io.infermark.core.health.LoopLag;
import io.infermark.core.health.Probe;
import io.infermark.core.transport.BodyConsumer;
import io.infermark.core.transport.Cancellation;
import io.infermark.core.transport.OutboundRequest;
import io.infermark.core.transport.ResponseHandler;
import io.infermark.core.transport.Transport;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.TrustManagerFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The event-loop {@link Transport}: every exchange is read on a small fixed set of Netty I/O threads
 * (native epoll on Linux when available, Java NIO otherwise), and each piece of a response body is
 * handed to its {@link BodyConsumer} with the clock reading taken in the read that delivered it.
 *
 * <p>Why it exists: a client that devotes one platform thread to each in-flight request measures
 * itself. At 256 streams that design spent 14–27 µs of client CPU per streamed token, a quarter of it
 * in the kernel waking 256 threads per token, and its stamps waited for those threads to be
 * scheduled. Here one I/O thread reads all streams, there is no thread hand-off between the socket
 * read and the stamp, and each read is parsed in place (status line, headers, chunk framing) and its
 * body bytes handed to the protocol's decoder as ranges of a reused per-thread scratch array: no
 * message object, slice or copy per chunk. Sockets have {@code TCP_NODELAY} set: with Nagle's
 * algorithm on, a request body over ~8 KiB
 * left in two writes and the second waited for the server's 40 ms delayed ACK, adding 40 ms to every
 * TTFT measured on a long prompt.
 *
 * <p>Behaviour, beyond the {@link Transport} contract:
 * <ul>
 *   <li>HTTP/1.1 only, no aggregation and no decompression ({@code Accept-Encoding} is never sent).
 *       The request carries {@code Host} (unless the request names one), {@code Content-Length}
 *       (computed from the body; one given in the request's headers is not sent), the request's own
 *       headers in order and {@code Content-Type} when the request has one;
 *   <li>idle keep-alive connections are pooled per scheme, host and port for
 *       {@linkplain Builder#keepAlive(Duration) keepAlive}; a connection returns to the pool only when
 *       its response has ended and the server did not ask to close it. The pool never limits
 *       concurrency: a request that finds no idle connection opens a new one.
 *       {@linkplain Builder#maxConnectionsPerHost(int) maxConnectionsPerHost} only bounds how many idle
 *       ones are kept, and {@link #prepare(int)} raises it to the run's concurrency;
 *   <li><b>one retry on a stale connection</b>: when a connection taken from the pool fails before
 *       any byte of the response arrives (the server had closed it while it was idle, without saying
 *       {@code Connection: close}), the request is sent once more on a new connection. The send time
 *       stays the original one ({@link ResponseHandler#onSend} is not reported again), so the retry's
 *       cost is inside the measured latency; the new connection's phases ({@code CONNECT_START}...)
 *       are reported as they happen. A second failure is reported as it is;
 *   <li>once the {@link BodyConsumer} says it is done before the response has ended, the rest of the
 *       message is read and discarded so the connection can be reused, but for at most
 *       {@value #DRAIN_LIMIT_BYTES} bytes and one second: a server that keeps streaming after the
 *       terminator gets its connection closed;
 *   <li>timeouts run on the I/O thread's timer with one scheduled check per exchange: a read only
 *       writes a field. Connect (TCP and TLS) fails as {@code TIMEOUT/CONNECT}, silence between reads
 *       once the request is written as {@code TIMEOUT/READ}, the whole exchange from the send as
 *       {@code TIMEOUT/CALL};
 *   <li>failures are classified: refused, unresolvable or failed TLS handshake as {@code CONNECT}, a
 *       connection closed or reset before the response ended as {@code RESET}, an unparsable response
 *       as {@code MALFORMED_STREAM}, cancellation and {@link #close()} as {@code CANCELLED}, an
 *       exception thrown by the {@link ResponseHandler} or {@link BodyConsumer} (host code) as
 *       {@code CLIENT} (the I/O thread survives it and the connection is closed; when
 *       {@link BodyConsumer#onEnd} itself throws, that {@code CLIENT} failure follows it, so the
 *       request still gets an outcome). Messages name the cause and {@code host:port}, never header
 *       values or URL userinfo;
 *   <li>TLS verifies the server's certificate chain and host name by default; a custom
 *       {@link TrustManagerFactory} (a private CA, a test certificate) can replace the JDK's trust
 *       store, never the host name check. Only the explicit {@link Builder#insecureTls(boolean)}
 *       switches verification off, and says so (a WARN, and a mark on every record and report);
 *   <li>host names are resolved with the JVM's resolver on the I/O thread when a new connection is
 *       opened (the JVM caches answers, 30 s by default); an IP literal needs no lookup. A slow
 *       lookup delays the reads of every stream on that thread, so benchmark against an address or
 *       let the keep-alive pool spare new connections.
 * </ul>
 *
 * <p>Thread-safe. {@link #start} returns at once ({@link #blocking()} is false) and reports from the
 * I/O threads, which are daemon threads named {@code infermark-io-N}.
 */
public final class NettyTransport implements Transport {

  /** Most bytes read and discarded after the consumer is done before the connection is closed instead. */
  static final int DRAIN_LIMIT_BYTES = 64 * 1024;

  private static final Logger LOG = LoggerFactory.getLogger(NettyTransport.class);
  private static final AtomicInteger THREAD_IDS = new AtomicInteger();

  private final int ioThreads;
  private final Duration keepAlive;
  private final long keepAliveNanos;
  private final boolean epoll;
  private final boolean customTrust;
  private final boolean insecureTls;
  private final MultiThreadIoEventLoopGroup group;
  private final Bootstraps bootstraps;
  private final HttpVersionPolicy httpVersion;
  private final int streamsPerConnection;
  private final Duration pingInterval;
  private final Duration pingTimeout;
  private final ConnectionPools pools;

  private NettyTransport(Builder b) {
    this.ioThreads = b.ioThreads;
    this.keepAlive = b.keepAlive;
    this.keepAliveNanos = saturatedNanos(b.keepAlive);
    this.epoll = b.nativeTransport && Epoll.isAvailable();
    this.customTrust = b.trustManagerFactory.isPresent();
    this.insecureTls = b.insecureTls;
    this.pools = new ConnectionPools(this, b.maxConnectionsPerHost);
    if (insecureTls) {
      LOG.warn("TLS verification is OFF for this Netty transport (insecureTls): any certificate and host name "
          + "are accepted; every record and report of its runs is marked insecure");
    }
    this.httpVersion = b.httpVersion;
    this.streamsPerConnection = b.streamsPerConnection;
    this.pingInterval = b.pingInterval;
    this.pingTimeout = b.pingTimeout;
    ThreadFactory threads = r -> {
      Thread t = new FastThreadLocalThread(r, "infermark-io-" + THREAD_IDS.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
    IoHandlerFactory io = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    this.group = new MultiThreadIoEventLoopGroup(ioThreads, threads, io);
    this.bootstraps = new Bootstraps(epoll, b.insecureTls, b.trustManagerFactory, b.httpVersion);
  }

  /** A transport with the defaults: one I/O thread, 4 s keep-alive, TLS verified against the JDK's trust store. */
  public static NettyTransport create() {
    return builder().build();
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * {@inheritDoc}
   *
   * <p>Returns at once: the request is written and the response read on an I/O thread, which also
   * makes every call to {@code handler}. When the transport is already closed, {@code handler} is
   * told {@code CANCELLED} on the calling thread.
   */
  @Override
  public void start(OutboundRequest request, ResponseHandler handler, Cancellation cancellation) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(handler, "handler");
    Objects.requireNonNull(cancellation, "cancellation");
    if (speaksHttp2(request)) {
      startHttp2(request, handler, cancellation);
      return;
    }
    startHttp1(request, handler, cancellation);
  }

  private boolean speaksHttp2(OutboundRequest request) {
    return switch (httpVersion) {
      case HTTP_1_1 -> false;
      case HTTP_2 -> true;
      case AUTO -> request.secure() && !pools.choseHttp1(request);
    };
  }

  private void startHttp2(OutboundRequest request, ResponseHandler handler, Cancellation cancellation) {
    EventLoop loop = group.next();
    PoolKey key = PoolKey.of(request);
    H2Pool pool = pools.http2(key, loop);
    H2Stream stream = new H2Stream(this, pool, request, handler, cancellation);
    if (pools.isClosed()) {
      Exchange.failUnstarted(handler, key.authority(), "the transport is closed");
      return;
    }
    try {
      loop.execute(() -> stream.guarded(() -> pool.dispatch(stream)));
    } catch (RejectedExecutionException e) {
      Exchange.failUnstarted(handler, key.authority(), "the transport is closed");
      return;
    }
    cancellation.onCancel(stream::cancelFromAnyThread);
  }

  /**
   * Sends on HTTP/1.1 a request an HTTP/2 attempt handed over: under {@link HttpVersionPolicy#AUTO} the
   * TLS server chose HTTP/1.1. Its send was already reported and is not reported again.
   */
  void handOverToHttp1(PoolKey key, OutboundRequest request, ResponseHandler handler, Cancellation cancellation,
      long sendNanos) {
    pools.markChoseHttp1(key);
    startHttp1(request, handler, cancellation, sendNanos);
  }

  private void startHttp1(OutboundRequest request, ResponseHandler handler, Cancellation cancellation) {
    startHttp1(request, handler, cancellation, Long.MIN_VALUE);
  }

  /** {@code sentAt}: the send already reported by an HTTP/2 attempt, or {@code Long.MIN_VALUE}. */
  private void startHttp1(OutboundRequest request, ResponseHandler handler, Cancellation cancellation, long sentAt) {
    HostPool pool = pools.http1(PoolKey.of(request));
    if (pools.isClosed()) {
      Exchange.failUnstarted(handler, pool.authority(), "the transport is closed");
      return;
    }
    Connection pooled = pool.acquire();
    EventLoop draining = pooled == null ? pool.drainingLoop() : null;
    EventLoop loop = pooled != null ? pooled.channel().eventLoop() : draining != null ? draining : group.next();
    Http1Exchange exchange = new Http1Exchange(this, pool, loop, request, handler, cancellation);
    if (sentAt != Long.MIN_VALUE) {
      exchange.alreadySent(sentAt);
    }
    Runnable run;
    if (pooled != null) {
      run = () -> exchange.runPooled(pooled);
    } else {
      // Sequential requests (a closed loop, a blocking caller) start as soon as the previous stream's
      // terminator arrives, usually just before the end of its HTTP message: on the I/O thread, take a
      // connection released meanwhile, or wait for one whose message is ending, before opening a new one.
      run = () -> {
        Connection c = pool.acquireOn(loop);
        if (c != null) {
          exchange.runPooled(c);
          return;
        }
        Connection ending = pool.drainingOn(loop);
        if (ending != null) {
          ending.successor(exchange);
        } else {
          exchange.runNew();
        }
      };
    }
    try {
      loop.execute(run);
    } catch (RejectedExecutionException e) {
      // close() raced with this call: the I/O threads no longer take work
      if (pooled != null) {
        pooled.close();
      }
      Exchange.failUnstarted(handler, pool.authority(), "the transport is closed");
      return;
    }
    cancellation.onCancel(exchange::cancelFromAnyThread);
  }

  /** True when built with {@link Builder#insecureTls(boolean)}: certificates and host names are not verified. */
  @Override
  public boolean insecureTls() {
    return insecureTls;
  }

  /** False: {@link #start} returns at once and the exchange runs on an I/O thread. */
  @Override
  public boolean blocking() {
    return false;
  }

  /**
   * Keeps up to {@code maxInFlight} idle connections per host, so a run with that many requests in
   * flight reuses its connections instead of reconnecting. Never lowers the limit; never limits how
   * many connections are open at once.
   */
  @Override
  public void prepare(int maxInFlight) {
    if (maxInFlight < 1) {
      throw new IllegalArgumentException("maxInFlight must be >= 1, was " + maxInFlight);
    }
    pools.raiseMaxIdlePerHost(maxInFlight);
  }

  /** {@code netty-epoll} with the native transport, {@code netty-nio} otherwise. */
  @Override
  public String name() {
    return epoll ? "netty-epoll" : "netty-nio";
  }

  /**
   * Closes every connection and stops the I/O threads without a quiet period; exchanges still in
   * flight end as {@code CANCELLED}. Waits up to a few seconds for the threads to end, unless called
   * from one of them. Later calls do nothing.
   */
  @Override
  public void close() {
    if (!pools.close()) {
      return;
    }
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
    boolean onIoThread = false;
    for (var executor : group) {
      onIoThread |= executor.inEventLoop();
    }
    if (!onIoThread && !group.terminationFuture().awaitUninterruptibly(5, TimeUnit.SECONDS)) {
      LOG.warn("Netty transport I/O threads did not stop within 5 s");
    }
  }

  @Override
  public String toString() {
    return "NettyTransport[" + name() + ", ioThreads=" + ioThreads + ", keepAlive=" + keepAlive
        + ", maxIdlePerHost=" + pools.maxIdlePerHost() + (customTrust ? ", custom trust" : "")
        + (httpVersion == HttpVersionPolicy.HTTP_1_1 ? "" : ", " + httpVersion + " (" + streamsPerConnection
        + " streams per connection" + (pingInterval.isZero() ? "" : ", keepalive PING every " + pingInterval
        + " timeout " + pingTimeout) + ")") + (insecureTls ? ", INSECURE TLS" : "") + "]";
  }

  /**
   * The HTTP/2 keepalive PING interval ({@link Builder#http2KeepAlive}); empty when keepalive is off.
   */
  public Optional<Duration> http2KeepAliveInterval() {
    return pingInterval.isZero() ? Optional.empty() : Optional.of(pingInterval);
  }

  /** How long an HTTP/2 keepalive PING may go unanswered before its connection is closed. */
  public Duration http2KeepAliveTimeout() {
    return pingTimeout;
  }

  long pingIntervalNanos() {
    return saturatedNanos(pingInterval);
  }

  long pingTimeoutNanos() {
    return saturatedNanos(pingTimeout);
  }

  // ---- package-private: used by the exchange and connection, and by tests ----

  boolean isClosed() {
    return pools.isClosed();
  }

  /** How the transport opens its channels. */
  Bootstraps bootstraps() {
    return bootstraps;
  }

  /** The transport's connections and pools. */
  ConnectionPools pools() {
    return pools;
  }

  long keepAliveNanos() {
    return keepAliveNanos;
  }

  /** Most streams one HTTP/2 connection carries at once (the server may allow fewer). */
  int streamsPerConnection() {
    return streamsPerConnection;
  }

  /** Each HTTP/2 stream's receive window: 1 MiB, far above what a token stream has unread at any moment. */
  static final int H2_STREAM_WINDOW = 1 << 20;
  /** Largest response head accepted, as on HTTP/1.1. */
  static final int H2_MAX_HEADER_LIST = 64 * 1024;

  /** The connection's receive window: every stream's window at once, so no stream waits for another. */
  int h2ConnectionWindow() {
    return (int) Math.min(Integer.MAX_VALUE, (long) H2_STREAM_WINDOW * streamsPerConnection);
  }

  /** The SETTINGS this client sends: its windows, its head limit, no server push. */
  io.netty.handler.codec.http2.Http2Settings h2LocalSettings() {
    return new io.netty.handler.codec.http2.Http2Settings()
        .initialWindowSize(H2_STREAM_WINDOW)
        .maxHeaderListSize(H2_MAX_HEADER_LIST)
        .pushEnabled(false)
        .maxConcurrentStreams(0);
  }

  /** Remembers what an HTTP/2 server announced, for {@link #http2Settings()}. */
  void serverSettings(Http2Settings settings) {
    if (pools.serverSettings(settings)) {
      LOG.debug("HTTP/2 server settings: {}", settings);
    }
  }

  /** The HTTP version this transport speaks. */
  public HttpVersionPolicy httpVersion() {
    return httpVersion;
  }

  /**
   * What each HTTP/2 server this transport connected to announced in the SETTINGS of its latest
   * connection (maximum concurrent streams, initial window...), by {@code host:port}; empty before
   * the first HTTP/2 connection or when the transport speaks HTTP/1.1.
   */
  public List<Http2Settings> http2Settings() {
    return pools.serverSettings();
  }

  /** How many HTTP/2 connections are open, for tests. */
  int openHttp2Connections() {
    return pools.openHttp2Connections();
  }

  /** The HTTP/1.1 channels currently open, for tests. */
  List<Channel> openChannels() {
    return pools.openChannels();
  }

  /** The idle pooled connections to {@code host:port} over {@code scheme}, for tests. */
  int idleConnections(String scheme, String host, int port) {
    return pools.idleConnections(scheme, host, port);
  }

  /**
   * One {@link LoopLag} per I/O thread: how long a task waits for the loop. Every chunk read on a
   * busy loop is stamped that much late, so its p99 enters the run's measurement floor.
   */
  @Override
  public List<Probe> healthProbes() {
    List<Probe> probes = new ArrayList<>();
    int i = 0;
    for (var executor : group) {
      probes.add(LoopLag.of("I/O thread " + (++i) + " backlog", executor));
    }
    return List.copyOf(probes);
  }

  /** The I/O threads' group, for tests. */
  MultiThreadIoEventLoopGroup group() {
    return group;
  }

  static long saturatedNanos(Duration d) {
    try {
      return Math.min(d.toNanos(), Long.MAX_VALUE / 4);
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE / 4;
    }
  }

  /**
   * Configuration of a {@link NettyTransport}; each setter validates at once and returns this
   * builder, and {@link #build()} starts the I/O threads.
   */
  public static final class Builder {
    private int ioThreads = 1;
    private Duration keepAlive = Duration.ofSeconds(4);
    private int maxConnectionsPerHost = 64;
    private boolean nativeTransport = true;
    private Optional<TrustManagerFactory> trustManagerFactory = Optional.empty();
    private boolean insecureTls;
    private HttpVersionPolicy httpVersion = HttpVersionPolicy.HTTP_1_1;
    private int streamsPerConnection = 100;
    private Duration pingInterval = Duration.ZERO;
    private Duration pingTimeout = Duration.ofSeconds(20);

    private Builder() {}

    /**
     * HTTP/2 keepalive, as gRPC clients configure it ({@code keepalive_time} and
     * {@code keepalive_timeout}): a connection carrying streams that has read nothing for
     * {@code interval} sends a PING, and one whose PING is not answered within {@code timeout} is
     * closed, its streams failing as {@link io.infermark.core.capture.ErrorCategory#RESET} with a
     * message naming the keepalive. Off by default (a zero interval), as in grpc-java and Triton's
     * client. A connection without streams sends none ({@code permit_without_calls} off), and servers
     * answer too-frequent PINGs with GOAWAY {@code ENHANCE_YOUR_CALM} (Triton and gRPC servers allow
     * one per 5 minutes by default without data), so keep {@code interval} above what the server
     * permits.
     */
    public Builder http2KeepAlive(Duration interval, Duration timeout) {
      Objects.requireNonNull(interval, "interval");
      Objects.requireNonNull(timeout, "timeout");
      if (interval.isNegative() || timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("http2KeepAlive needs interval >= 0 (0: off) and timeout > 0, was "
            + interval + " / " + timeout);
      }
      this.pingInterval = interval;
      this.pingTimeout = timeout;
      return this;
    }

    /**
     * Which HTTP version to speak (default {@link HttpVersionPolicy#HTTP_1_1}). With HTTP/2, requests to
     * one host share connections as streams, up to {@link #streamsPerConnection} on each (fewer when the
     * server's SETTINGS allow fewer); a request that finds every stream taken opens another connection,
     * so the transport still never queues a request behind another.
     */
    public Builder httpVersion(HttpVersionPolicy policy) {
      this.httpVersion = Objects.requireNonNull(policy, "httpVersion");
      return this;
    }

    /**
     * Most HTTP/2 streams one connection carries at once (default 100, the limit most servers
     * announce; 1 to 10,000). Lower it to spread a load over more connections, as a client pool
     * behind a load balancer would; the server's own SETTINGS_MAX_CONCURRENT_STREAMS caps it.
     */
    public Builder streamsPerConnection(int n) {
      if (n < 1 || n > 10_000) {
        throw new IllegalArgumentException("streamsPerConnection must be 1..10000, was " + n);
      }
      this.streamsPerConnection = n;
      return this;
    }

    /**
     * How many I/O threads read and write all connections (default 1). One thread reads hundreds of
     * streams; at 256 streams on a 2-core machine a second thread cost more CPU per streamed event
     * than it saved, so add threads only when one core is saturated by reading.
     */
    public Builder ioThreads(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("ioThreads must be >= 1, was " + n);
      }
      this.ioThreads = n;
      return this;
    }

    /**
     * How long an idle connection is kept for reuse (default 4 s, below the 5 s idle timeout common
     * in servers, so a pooled connection is rarely one the server has already closed).
     */
    public Builder keepAlive(Duration d) {
      Objects.requireNonNull(d, "keepAlive");
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException("keepAlive must be > 0, was " + d);
      }
      this.keepAlive = d;
      return this;
    }

    /**
     * How many idle connections are kept per host (default 64; {@link NettyTransport#prepare(int)}
     * raises it to the run's concurrency). Not a limit on open connections: a request that finds no
     * idle connection always opens a new one.
     */
    public Builder maxConnectionsPerHost(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("maxConnectionsPerHost must be >= 1, was " + n);
      }
      this.maxConnectionsPerHost = n;
      return this;
    }

    /**
     * Whether to use native epoll when the platform has it (default true); false always uses Java
     * NIO. Netty's native epoll makes less garbage than the JDK's selector; measured on a 2-core
     * machine the two cost about the same CPU per streamed event, so this is mainly for comparing
     * them and for platforms where the native library misbehaves.
     */
    public Builder nativeTransport(boolean enabled) {
      this.nativeTransport = enabled;
      return this;
    }

    /**
     * Trusts the certificates {@code tmf} trusts instead of the JDK's default trust store, for a
     * private CA or a test certificate. Host names are still verified.
     */
    public Builder trustManagerFactory(TrustManagerFactory tmf) {
      this.trustManagerFactory = Optional.of(Objects.requireNonNull(tmf, "trustManagerFactory"));
      return this;
    }

    /**
     * Switches TLS verification off (default false): any certificate chain and any host name are
     * accepted, for a test server with a self-signed certificate when adding it to a trust store
     * ({@link #trustManagerFactory}) is not an option. The server is then not authenticated: the
     * transport logs one WARN when built, and every record and report of its runs is marked
     * insecure. Cannot be combined with {@link #trustManagerFactory}.
     */
    public Builder insecureTls(boolean insecure) {
      this.insecureTls = insecure;
      return this;
    }

    /** Starts the I/O threads and returns the transport; close it when done. */
    public NettyTransport build() {
      if (insecureTls && trustManagerFactory.isPresent()) {
        throw new IllegalStateException("insecureTls and trustManagerFactory contradict each other: a trust store "
            + "is only consulted when certificates are verified; choose one");
      }
      return new NettyTransport(this);
    }
  }

  static String describe(Throwable t) {
    String m = t.getMessage();
    return t.getClass().getSimpleName() + (m == null || m.isBlank() ? "" : ": " + m);
  }
}
