package io.infermark.core.transport;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.TimeoutPhase;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import javax.net.SocketFactory;
import javax.net.ssl.HostnameVerifier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import okhttp3.Call;
import okhttp3.ConnectionPool;
import okhttp3.Dispatcher;
import okhttp3.Headers;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A blocking {@link Transport} on OkHttp: each exchange runs on the calling thread (the engine gives
 * every in-flight request one). Choose it to keep a user's own {@link OkHttpClient} (proxies,
 * interceptors, custom TLS or authentication); the event-loop transport costs less CPU per token.
 *
 * <p>What it changes on the client it is given, and why:
 * <ul>
 *   <li>every socket gets {@code TCP_NODELAY} (the given socket factory is wrapped): with Nagle's
 *       algorithm a body over ~8 KiB leaves in two writes and the second waits for the server's
 *       40 ms delayed ACK, which lands in every TTFT of a long prompt;
 *   <li>OkHttp's own retries and redirects are off: a retried or redirected request would hide a
 *       failure and skew its timing. One retry is made here, and only when a pooled connection the
 *       server had closed while idle fails before any response byte: the request never reached the
 *       server, and without the retry 30-50 % of the requests after an idle pause would be recorded
 *       as resets. The retry keeps the original send time, so its cost shows in the latency;
 *   <li>the dispatcher and connection pool are sized from the load ({@link #prepare}), so OkHttp's
 *       {@code maxRequestsPerHost} (5 by default) never caps a run;
 *   <li>the read and call timeouts are enforced by one shared watchdog thread rather than by OkHttp
 *       (see {@link ReadWatchdog}): a timed read costs three system calls instead of one, and OkHttp's
 *       call timeout would start before the send; they fire within 1/16 of their value (at most
 *       1 s) after they expire;
 *   <li>its event listener is replaced by infermark's phase capture.
 * </ul>
 */
public final class OkHttpTransport implements Transport {

  private static final int READ_BUFFER_BYTES = 16 * 1024;

  private static final Logger LOG = LoggerFactory.getLogger(OkHttpTransport.class);

  private final OkHttpClient baseClient;
  private final Duration keepAlive;
  private final boolean insecureTls;
  private final Map<Timeouts, OkHttpClient> byTimeouts = new ConcurrentHashMap<>();
  private final Set<Call> active = ConcurrentHashMap.newKeySet();
  private volatile OkHttpClient sized;
  private volatile boolean closed;

  private OkHttpTransport(OkHttpClient client, Duration keepAlive, boolean insecure) {
    this.keepAlive = keepAlive;
    OkHttpClient.Builder b = client.newBuilder();
    if (insecure) {
      LOG.warn("TLS verification is OFF for this OkHttp transport (insecureTls): any certificate and host name are "
          + "accepted; every record and report of its runs is marked insecure");
      TrustAll trustAll = new TrustAll();
      b.sslSocketFactory(trustAll.socketFactory(), trustAll).hostnameVerifier((host, session) -> true);
      this.insecureTls = true;
    } else {
      Optional<String> why = trustsEverything(client);
      why.ifPresent(w -> LOG.warn("the OkHttpClient given to this transport does not verify TLS: {}; every record "
          + "and report of its runs is marked insecure", w));
      this.insecureTls = why.isPresent();
    }
    this.baseClient = b
        .socketFactory(new NoDelaySocketFactory(client.socketFactory()))
        .readTimeout(Duration.ZERO) // enforced by ReadWatchdog: a timed socket costs 3 system calls a read
        .retryOnConnectionFailure(false)
        .followRedirects(false)
        .followSslRedirects(false)
        .eventListenerFactory(PhaseListener.FACTORY)
        .build();
    this.sized = sizedFor(64);
  }

  /** A transport on a new default OkHttp client, keeping idle connections for 4 s. */
  public static OkHttpTransport create() {
    return of(new OkHttpClient(), Duration.ofSeconds(4));
  }

  /**
   * A transport on a client derived from {@code client}: its TLS, proxy, interceptor and
   * authenticator settings are kept; timeouts, dispatcher, pool, retries, redirects and the event
   * listener are replaced as the class documentation says.
   *
   * @param keepAlive how long an idle pooled connection is kept; keep it below the server's own
   *     keep-alive (uvicorn, which serves vLLM and SGLang, closes idle connections after 5 s)
   */
  public static OkHttpTransport of(OkHttpClient client, Duration keepAlive) {
    return of(client, keepAlive, false);
  }

  /**
   * Like {@link #of(OkHttpClient, Duration)}; with {@code insecureTls} the client's TLS verification
   * is switched off (any certificate chain and host name accepted), for a test server with a
   * self-signed certificate. The transport then logs one WARN, and every record and report of its
   * runs is marked insecure. A given client that already trusts everything (a trust manager that
   * accepts an empty chain, a host name verifier that accepts any host) is detected and treated the
   * same way even without this flag.
   */
  public static OkHttpTransport of(OkHttpClient client, Duration keepAlive, boolean insecureTls) {
    Objects.requireNonNull(client, "client");
    Objects.requireNonNull(keepAlive, "keepAlive");
    if (keepAlive.isNegative() || keepAlive.isZero()) {
      throw new IllegalArgumentException("keepAlive must be > 0, was " + keepAlive);
    }
    return new OkHttpTransport(client, keepAlive, insecureTls);
  }

  /**
   * True when TLS is not verified: asked for, or found in the client given (see
   * {@link #of(OkHttpClient, Duration, boolean)}).
   */
  @Override
  public boolean insecureTls() {
    return insecureTls;
  }

  /** Why {@code client} accepts any server, if it does: probes its trust manager and host name verifier. */
  static Optional<String> trustsEverything(OkHttpClient client) {
    X509TrustManager tm = client.x509TrustManager();
    if (tm != null) {
      try {
        tm.checkServerTrusted(new X509Certificate[0], "ECDHE_ECDSA");
        return Optional.of("its trust manager " + tm.getClass().getName() + " accepts an empty certificate chain");
      } catch (Exception | LinkageError e) {
        // a verifying trust manager rejects it
      }
    }
    HostnameVerifier hv = client.hostnameVerifier();
    try {
      if (hv.verify("infermark-probe.invalid", UNVERIFIED_SESSION)) {
        return Optional.of("its host name verifier " + hv.getClass().getName() + " accepts a session without "
            + "a certificate for any host");
      }
    } catch (Exception | LinkageError e) {
      // a verifying verifier rejects it
    }
    return Optional.empty();
  }

  /** A TLS session whose peer presented nothing: a verifier that accepts it checks nothing. */
  private static final SSLSession UNVERIFIED_SESSION = (SSLSession) Proxy.newProxyInstance(
      OkHttpTransport.class.getClassLoader(), new Class<?>[] {SSLSession.class}, (proxy, method, args) -> {
        switch (method.getName()) {
          case "getPeerCertificates", "getPeerPrincipal", "getPeerCertificateChain" ->
              throw new SSLPeerUnverifiedException("no peer certificate (infermark's trust probe)");
          case "hashCode" -> {
            return System.identityHashCode(proxy);
          }
          case "equals" -> {
            return proxy == args[0];
          }
          case "toString" -> {
            return "infermark trust probe session";
          }
          default -> throw new UnsupportedOperationException(method.getName());
        }
      });

  /** Accepts every certificate chain; used only when insecure TLS was asked for. */
  private static final class TrustAll implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }

    SSLSocketFactory socketFactory() {
      try {
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, new TrustManager[] {this}, null);
        return ctx.getSocketFactory();
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException("cannot set up insecure TLS: " + e.getMessage(), e);
      }
    }
  }

  @Override
  public boolean blocking() {
    return true;
  }

  @Override
  public String name() {
    return "okhttp";
  }

  @Override
  public void prepare(int maxInFlight) {
    if (maxInFlight <= 0) {
      throw new IllegalArgumentException("maxInFlight must be > 0, was " + maxInFlight);
    }
    OkHttpClient old = sized;
    sized = sizedFor(maxInFlight);
    byTimeouts.clear();
    old.connectionPool().evictAll();
  }

  /** The client in use for the given timeouts; for tests. */
  OkHttpClient client(Timeouts timeouts) {
    return byTimeouts.computeIfAbsent(timeouts, t -> sized.newBuilder()
        .connectTimeout(t.connect())
        .writeTimeout(t.connect())
        .build()); // the call timeout runs from the send, on the watchdog
  }

  private OkHttpClient sizedFor(int maxInFlight) {
    Dispatcher dispatcher = new Dispatcher();
    dispatcher.setMaxRequests(Math.max(maxInFlight, 64));
    dispatcher.setMaxRequestsPerHost(Math.max(maxInFlight, 64));
    return baseClient.newBuilder()
        .dispatcher(dispatcher)
        .connectionPool(new ConnectionPool(Math.max(maxInFlight, 5), keepAlive.toNanos(), TimeUnit.NANOSECONDS))
        .build();
  }

  @Override
  public void start(OutboundRequest request, ResponseHandler handler, Cancellation cancellation) {
    Guarded guarded = new Guarded(handler);
    String where = request.url().getHost() + ":" + request.port();
    try {
      if (closed) {
        guarded.onFailure(Failure.of(ErrorCategory.CANCELLED, "the transport is closed [" + where + "]"),
            handler.clock().nanoTime());
        return;
      }
      if (!attempt(request, guarded, cancellation, where, false)) {
        // A pooled connection the server had closed while idle failed before any response byte:
        // the request never reached the server, so it is sent once more on a fresh connection.
        sized.connectionPool().evictAll();
        guarded.onRetry("pooled connection to " + where + " failed before any response byte (closed by the server"
            + " while idle)", handler.clock().nanoTime());
        attempt(request, guarded, cancellation, where, true);
      }
    } catch (Throwable t) {
      guarded.clientFailure(t, where);
    }
  }

  /**
   * One attempt; false when it failed on a reused connection before any response byte and may be
   * retried (never for a retry itself).
   */
  private boolean attempt(OutboundRequest request, Guarded handler, Cancellation cancellation, String where,
      boolean retry) {
    PhaseListener progress = new PhaseListener(handler, retry);
    Call call = client(request.timeouts()).newCall(okRequest(request, progress));
    handler.call = call;
    active.add(call);
    cancellation.onCancel(call::cancel);
    long readTimeoutNanos = request.timeouts().read().toNanos();
    long callTimeoutNanos = request.timeouts().call().toNanos();
    ReadWatchdog.Watch watch = ReadWatchdog.watch(call, progress, readTimeoutNanos, callTimeoutNanos);
    try (Response response = call.execute()) {
      handler.rethrow();
      long headersAt = handler.clock().nanoTime();
      watch.touch(System.nanoTime());
      Headers headers = response.headers();
      BodyConsumer body = handler.onResponse(response.code(), name -> Optional.ofNullable(headers.get(name)),
          headersAt);
      byte[] buf = new byte[READ_BUFFER_BYTES];
      try (InputStream in = response.body().byteStream()) {
        int n;
        while ((n = in.read(buf)) != -1) {
          long now = handler.clock().nanoTime();
          watch.touch(System.nanoTime());
          if (body.onBytes(buf, 0, n, now)) {
            handler.ended();
            return true; // closing the response discards the rest (bounded by OkHttp) or drops the connection
          }
        }
      }
      body.onEnd(handler.clock().nanoTime());
      handler.ended();
      return true;
    } catch (IOException e) {
      handler.rethrow();
      long now = handler.clock().nanoTime();
      if (closed && !cancellation.isCancelled()) {
        handler.onFailure(Failure.of(ErrorCategory.CANCELLED, "the transport was closed [" + where + "]"), now);
        return true;
      }
      if (!retry && !cancellation.isCancelled() && !watch.expired() && progress.connected()
          && !progress.newConnection() && !progress.responseStarted() && !handler.responded()) {
        return false;
      }
      if (watch.callExpired() && !cancellation.isCancelled()) {
        handler.onFailure(Failure.timeout(TimeoutPhase.CALL, "call timeout: the exchange lasted more than "
            + TimeUnit.NANOSECONDS.toMillis(callTimeoutNanos) + " ms [" + where + "]"), now);
        return true;
      }
      if (watch.expired() && !cancellation.isCancelled()) {
        handler.onFailure(Failure.timeout(TimeoutPhase.READ, "read timeout: no data for more than "
            + TimeUnit.NANOSECONDS.toMillis(readTimeoutNanos) + " ms [" + where + "]"), now);
        return true;
      }
      Failure f = FailureClassifier.classify(e, cancellation.isCancelled(), false, progress);
      String m = f.message().contains(where) ? f.message() : f.message() + " [" + where + "]";
      handler.onFailure(new Failure(f.category(), f.httpStatus(), f.timeoutPhase(), m), now);
      return true;
    } finally {
      ReadWatchdog.unwatch(watch);
      active.remove(call);
    }
  }

  /**
   * Passes events to the protocol's handler, remembering whether the exchange has ended, and turns an
   * exception thrown by the handler (host code) into the exchange's one {@code CLIENT} failure: thrown
   * inside OkHttp's event callbacks it is held, the call is cancelled, and it is reported once the
   * call returns.
   */
  private static final class Guarded implements ResponseHandler {
    private final ResponseHandler delegate;
    private volatile Call call;
    private volatile Throwable thrown;
    private boolean ended;
    private boolean responded;

    Guarded(ResponseHandler delegate) {
      this.delegate = delegate;
    }

    @Override
    public io.infermark.core.time.Clock clock() {
      return delegate.clock();
    }

    @Override
    public void onSend(long nanoTime) {
      try {
        delegate.onSend(nanoTime);
      } catch (RuntimeException | Error e) {
        hold(e);
      }
    }

    @Override
    public void onPhase(io.infermark.core.capture.Phase phase, long nanoTime) {
      try {
        delegate.onPhase(phase, nanoTime);
      } catch (RuntimeException | Error e) {
        hold(e);
      }
    }

    @Override
    public void onRetry(String reason, long nanoTime) {
      delegate.onRetry(reason, nanoTime);
    }

    @Override
    public BodyConsumer onResponse(int status, ResponseHead head, long nanoTime) {
      responded = true;
      return delegate.onResponse(status, head, nanoTime);
    }

    @Override
    public void onFailure(Failure failure, long nanoTime) {
      if (!ended) {
        ended = true;
        delegate.onFailure(failure, nanoTime);
      }
    }

    private void hold(Throwable t) {
      if (thrown == null) {
        thrown = t;
      }
      Call c = call;
      if (c != null) {
        c.cancel();
      }
    }

    /** Throws what a callback threw inside OkHttp, so the caller reports it as the failure. */
    void rethrow() {
      Throwable t = thrown;
      if (t instanceof RuntimeException r) {
        throw r;
      }
      if (t instanceof Error err) {
        throw err;
      }
    }

    void ended() {
      ended = true;
    }

    boolean responded() {
      return responded;
    }

    void clientFailure(Throwable t, String where) {
      if (!ended) {
        ended = true;
        try {
          delegate.onFailure(Failure.of(ErrorCategory.CLIENT, "the response handler threw " + t + " [" + where + "]"),
              delegate.clock().nanoTime());
        } catch (RuntimeException e) {
          // the handler failed twice; nothing more can be reported
        }
      }
    }
  }

  private static Request okRequest(OutboundRequest request, PhaseListener progress) {
    HttpUrl url = HttpUrl.get(request.url());
    Request.Builder b = new Request.Builder().url(url).tag(PhaseListener.class, progress);
    for (OutboundRequest.Header h : request.headers()) {
      b.addHeader(h.name(), h.value());
    }
    if (request.body().length > 0 || !request.method().equals("GET")) {
      MediaType type = request.contentType().isEmpty() ? null : MediaType.parse(request.contentType());
      b.method(request.method(), RequestBody.create(request.body(), type));
    } else {
      b.method(request.method(), null);
    }
    return b.build();
  }

  /** Cancels exchanges in flight (they end as {@code CANCELLED}) and releases threads and connections. */
  @Override
  public void close() {
    closed = true;
    for (Call c : active) {
      c.cancel();
    }
    OkHttpClient c = sized;
    c.dispatcher().executorService().shutdown();
    c.connectionPool().evictAll();
  }

  @Override
  public String toString() {
    return "OkHttpTransport[keep-alive " + keepAlive.toMillis() + " ms" + (insecureTls ? ", INSECURE TLS" : "")
        + "]";
  }

  /** Sets {@code TCP_NODELAY} on every socket the wrapped factory makes. */
  static final class NoDelaySocketFactory extends SocketFactory {
    private final SocketFactory delegate;

    NoDelaySocketFactory(SocketFactory delegate) {
      this.delegate = delegate instanceof NoDelaySocketFactory n ? n.delegate : delegate;
    }

    private static Socket noDelay(Socket s) throws IOException {
      s.setTcpNoDelay(true);
      return s;
    }

    @Override
    public Socket createSocket() throws IOException {
      return noDelay(delegate.createSocket());
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
      return noDelay(delegate.createSocket(host, port));
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
      return noDelay(delegate.createSocket(host, port, localHost, localPort));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
      return noDelay(delegate.createSocket(host, port));
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
        throws IOException {
      return noDelay(delegate.createSocket(address, port, localAddress, localPort));
    }
  }
}
