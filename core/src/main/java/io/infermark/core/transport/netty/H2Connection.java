package io.infermark.core.transport.netty;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.TimeoutPhase;
import io.infermark.core.time.Clock;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/2 connection and the streams it carries, confined to its pool's I/O thread. It opens the
 * connection for the request that needed it (reporting TCP, TLS and SETTINGS milestones to that
 * request), holds the requests that arrive meanwhile, and once the server's SETTINGS arrive opens a
 * stream per request, up to the smaller of its own stream limit and the server's
 * MAX_CONCURRENT_STREAMS. Every frame of one socket read carries the clock reading taken when that
 * read returned, so a DATA frame is stamped exactly as an HTTP/1.1 chunk is.
 *
 * <p>Flow control never holds a response back: each stream's receive window is
 * {@link NettyTransport#H2_STREAM_WINDOW} and the connection's that times the stream limit, and every
 * DATA byte is returned to the window as soon as it was handed to its consumer.
 */
final class H2Connection extends Http2FrameAdapter {

  private static final Logger LOG = LoggerFactory.getLogger(H2Connection.class);

  private enum State { CONNECTING, READY, GOING_AWAY, CLOSED }

  private final H2Pool pool;
  private final NettyTransport transport;
  private final String authority;
  private final IntObjectHashMap<H2Stream> streams = new IntObjectHashMap<>();
  private final ArrayDeque<H2Stream> waiting = new ArrayDeque<>();
  /** Stream errors found by the codec (oversized headers...), by stream id, until the stream closes. */
  private final IntObjectHashMap<Http2Exception> streamErrors = new IntObjectHashMap<>();
  /** RST_STREAM codes the server sent, by stream id, until the stream closes. */
  private final IntObjectHashMap<Long> resets = new IntObjectHashMap<>();

  private State state = State.CONNECTING;
  private Channel channel;
  private H2Handler handler;
  private ChannelHandlerContext ctx;
  private SslHandler ssl;
  /** The request that opened the connection: it alone gets the TCP, TLS and SETTINGS milestones. */
  private H2Stream opener;
  private Clock clock;
  private int capacity;
  private long stamp;
  private Throwable connectionError;
  private ScheduledFuture<?> settingsTimer;
  private int idleGeneration;
  /** The server's GOAWAY, for messages: its error code and debug text; null before one. */
  private String goAwayReason;
  /** When the socket was last read ({@link System#nanoTime()}), for the keepalive PING. */
  private long lastReadNanos;
  /** The payload of the keepalive PING awaiting its ACK; 0 when none is. */
  private long pingOutstanding;
  private long pingsSent;

  H2Connection(H2Pool pool) {
    this.pool = pool;
    this.transport = pool.transport();
    this.authority = pool.authority();
    this.capacity = transport.streamsPerConnection();
  }

  PoolKey key() {
    return pool.key();
  }

  boolean isReady() {
    return state == State.READY && channel.isActive();
  }

  /** True when the connection is established or being opened and has a stream to spare. */
  boolean hasRoom() {
    return (state == State.CONNECTING || (state == State.READY && channel.isActive()))
        && streams.size() + waiting.size() < capacity;
  }

  // ---- opening ----

  /** Opens the connection for {@code first}, which has begun (its send is reported). */
  void open(H2Stream first) {
    opener = first;
    clock = first.clock;
    waiting.add(first);
    InetAddress address = first.resolve(pool.key().host());
    if (address == null) {
      failOpening(null); // the stream has failed: unresolvable, or its handler threw
      return;
    }
    first.phase(Phase.CONNECT_START, clock.nanoTime());
    int connectMillis = first.connectMillis;
    ChannelFuture f = transport.bootstraps().http2(pool.loop(), connectMillis, this)
        .connect(new InetSocketAddress(address, pool.key().port()));
    channel = f.channel();
    if (!transport.pools().register(channel)) {
      channel.close();
      failOpening(Failure.of(ErrorCategory.CANCELLED, "request to " + authority + " not sent: the transport is closed"));
      return;
    }
    // TCP, TLS and the SETTINGS exchange share the connect budget
    settingsTimer = pool.loop().schedule(() -> settingsTimedOut(connectMillis), connectMillis, TimeUnit.MILLISECONDS);
    f.addListener((ChannelFuture cf) -> guarded(() -> connected(cf)));
  }

  /** Called from the channel initializer. */
  void initChannel(Channel ch, SslHandler tls) {
    this.channel = ch;
    this.ssl = tls;
    if (tls != null) {
      ch.pipeline().addLast("tls", tls);
    } else {
      ch.pipeline().addLast("h2", newHandler()); // h2c with prior knowledge: the preface goes out on connect
    }
  }

  private H2Handler newHandler() {
    handler = new H2Handler.Builder(this, transport.h2LocalSettings()).build();
    handler.connection().addListener(new Http2ConnectionAdapter() {
      @Override
      public void onStreamClosed(Http2Stream stream) {
        guarded(() -> streamClosed(stream.id()));
      }
    });
    return handler;
  }

  private void connected(ChannelFuture f) {
    if (state != State.CONNECTING) {
      return;
    }
    if (!f.isSuccess()) {
      connectFailed(f.cause(), false);
      return;
    }
    if (ssl == null) {
      opener.phase(Phase.CONNECT_END, clock.nanoTime()); // TCP is up: the preface is out, the SETTINGS exchange under way
      return;
    }
    opener.phase(Phase.SECURE_CONNECT_START, clock.nanoTime());
    ssl.handshakeFuture().addListener((Future<Channel> hf) -> guarded(() -> handshaken(hf)));
  }

  private void handshaken(Future<Channel> hf) {
    if (state != State.CONNECTING) {
      return;
    }
    if (!hf.isSuccess()) {
      connectFailed(hf.cause(), true);
      return;
    }
    opener.phase(Phase.SECURE_CONNECT_END, clock.nanoTime());
    String protocol = ssl.applicationProtocol();
    if (!ApplicationProtocolNames.HTTP_2.equals(protocol) && transport.httpVersion() == HttpVersionPolicy.AUTO) {
      // the server speaks HTTP/1.1: this host is served on HTTP/1.1 from now on, these requests first
      LOG.debug("TLS server at {} chose {} by ALPN: HTTP/1.1 from now on", authority, protocol);
      state = State.CLOSED;
      pool.retire(this);
      cancelSettingsTimer();
      List<H2Stream> all = new ArrayList<>(waiting);
      waiting.clear();
      channel.close();
      for (H2Stream s : all) {
        if (s.handOver()) {
          transport.handOverToHttp1(pool.key(), s.request(), s.handler(), s.cancellation(), s.sendNanos());
        }
      }
      return;
    }
    if (!ApplicationProtocolNames.HTTP_2.equals(protocol)) {
      failOpening(Failure.of(ErrorCategory.CONNECT, "the TLS server at " + authority + " did not choose HTTP/2 by ALPN ("
          + (protocol == null ? "it chose no protocol" : "it chose " + protocol)
          + "); use HttpVersionPolicy.AUTO (--http2 auto) to fall back to HTTP/1.1"));
      channel.close();
      return;
    }
    opener.phase(Phase.CONNECT_END, clock.nanoTime()); // TCP and TLS are up: the SETTINGS exchange starts
    channel.pipeline().addLast("h2", newHandler());
  }

  private void connectFailed(Throwable cause, boolean handshaking) {
    if (transport.isClosed()) {
      failOpening(Failure.of(ErrorCategory.CANCELLED, "request to " + authority + " cancelled: the transport was closed"));
    } else if (cause instanceof ConnectTimeoutException || cause instanceof SslHandshakeTimeoutException) {
      failOpening(Failure.timeout(TimeoutPhase.CONNECT, "connecting to " + authority + " took over "
          + opener.connectMillis + " ms: " + NettyTransport.describe(cause)));
    } else if (handshaking && String.valueOf(cause.getMessage()).contains("no_application_protocol")) {
      failOpening(Failure.of(ErrorCategory.CONNECT, "the TLS server at " + authority + " did not choose HTTP/2 by ALPN "
          + "(it refused every offered protocol: h2); use HttpVersionPolicy.AUTO (--http2 auto) to fall back to HTTP/1.1"));
    } else {
      failOpening(Failure.of(ErrorCategory.CONNECT, (handshaking ? "TLS handshake with " : "connecting to ")
          + authority + " failed: " + NettyTransport.describe(cause)));
    }
    channel.close();
  }

  private void settingsTimedOut(int connectMillis) {
    settingsTimer = null;
    if (state == State.CONNECTING) {
      failOpening(Failure.timeout(TimeoutPhase.CONNECT, "the HTTP/2 connection to " + authority
          + " was not established (TCP, TLS and the server's SETTINGS) in " + connectMillis + " ms"));
      channel.close();
    }
  }

  /** Every request waiting for this connection fails with {@code failure} (null: they have already ended). */
  private void failOpening(Failure failure) {
    state = State.CLOSED;
    pool.retire(this);
    cancelSettingsTimer();
    List<H2Stream> all = new ArrayList<>(waiting);
    waiting.clear();
    if (failure != null) {
      for (H2Stream s : all) {
        s.failNow(failure);
      }
    }
  }

  private void cancelSettingsTimer() {
    if (settingsTimer != null) {
      settingsTimer.cancel(false);
      settingsTimer = null;
    }
  }

  /** {@code s} (begun) waits for this connection's SETTINGS. */
  void enqueue(H2Stream s) {
    waiting.add(s);
  }

  @Override
  public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) {
    guarded(() -> settingsRead(settings));
  }

  private void settingsRead(Http2Settings settings) {
    Long max = settings.maxConcurrentStreams();
    if (max != null) {
      capacity = (int) Math.max(0, Math.min(transport.streamsPerConnection(), max));
    }
    if (state != State.CONNECTING) {
      return; // a later SETTINGS frame: only the stream limit matters
    }
    long now = stamp;
    state = State.READY;
    cancelSettingsTimer();
    try {
      handler.widenConnectionWindow(); // after the preface, which must be the first frame
    } catch (Http2Exception e) {
      throw new IllegalStateException(e);
    }
    transport.serverSettings(io.infermark.core.transport.netty.Http2Settings.of(authority, settings));
    scheduleKeepAlive(transport.pingIntervalNanos());
    if (!opener.isDone()) {
      opener.phase(Phase.SETTINGS_RECEIVED, now);
    }
    List<H2Stream> ready = new ArrayList<>(waiting);
    waiting.clear();
    for (H2Stream s : ready) {
      if (s.isDone()) {
        continue;
      }
      if (streams.size() < capacity) {
        start(s);
      } else {
        pool.dispatch(s); // the server allows fewer streams than were waiting: the rest go elsewhere
      }
    }
    if (capacity == 0) {
      pool.retire(this);
    }
    maybeIdle();
  }

  // ---- streams ----

  /** Opens a stream for {@code s} and writes its request; the connection is ready and has room. */
  void start(H2Stream s) {
    Http2Connection.Endpoint<?> local = handler.connection().local();
    int last = local.lastStreamCreated();
    int id = last == 0 ? 1 : last + 2; // the stream is created by its HEADERS, below
    if (id <= 0 || !local.canOpenStream()) {
      // stream ids exhausted, or the server lowered its limit: this connection takes no more streams
      goAway();
      pool.dispatch(s);
      return;
    }
    idleGeneration++;
    streams.put(id, s);
    if (!s.opened(this, id, clock.nanoTime())) {
      streams.remove(id);
      return;
    }
    byte[] body = s.request().body();
    boolean bodyless = body.length == 0;
    Http2ConnectionEncoder encoder = handler.encoder();
    ChannelPromise hp = channel.newPromise();
    hp.addListener((ChannelFuture f) -> guarded(() -> headersWritten(s, id, f, bodyless)));
    encoder.writeHeaders(ctx, id, s.headers(), 0, bodyless, hp);
    if (!bodyless) {
      ChannelPromise dp = channel.newPromise();
      dp.addListener((ChannelFuture f) -> guarded(() -> {
        if (f.isSuccess() && s.conn == this && s.streamId == id) {
          s.requestWritten();
        }
      }));
      encoder.writeData(ctx, id, Unpooled.wrappedBuffer(body), 0, true, dp);
    }
    channel.flush();
  }

  private void headersWritten(H2Stream s, int id, ChannelFuture f, boolean whole) {
    if (s.isDone() || s.conn != this || s.streamId != id) {
      return;
    }
    if (f.isSuccess()) {
      s.headersWritten();
      if (whole) {
        s.requestWritten();
      }
      return;
    }
    // nothing of the request reached the server: send it on another connection, once
    streams.remove(id);
    String why = "HTTP/2 stream to " + authority + " could not be opened (" + NettyTransport.describe(f.cause()) + ")";
    if (s.retry(why, true)) {
      pool.dispatch(s);
    } else {
      s.failNow(lostFailure(id, f.cause()));
    }
    maybeIdle();
  }

  /** {@code s} ended on its own (timeout, cancellation, a host exception): reset its stream. */
  void abandon(H2Stream s) {
    if (waiting.remove(s)) {
      return;
    }
    int id = s.streamId;
    if (id > 0 && streams.get(id) == s) {
      resetStream(id);
    }
  }

  private void resetStream(int id) {
    if (ctx != null && channel.isActive() && handler.connection().stream(id) != null) {
      handler.resetStream(ctx, id, Http2Error.CANCEL.code(), ctx.newPromise());
      channel.flush();
    } else {
      streams.remove(id);
    }
  }

  // ---- reading ----

  /** A read of the socket returned: every frame decoded from it carries this stamp. */
  void stamp() {
    lastReadNanos = System.nanoTime();
    if (clock != null) {
      stamp = clock.nanoTime();
    }
  }

  // ---- keepalive ----

  private void scheduleKeepAlive(long delayNanos) {
    if (delayNanos > 0 && state != State.CLOSED) {
      pool.loop().schedule(() -> guarded(this::keepAlive), delayNanos, TimeUnit.NANOSECONDS);
    }
  }

  /**
   * The keepalive check: a connection with streams that has read nothing for the interval sends a
   * PING, whose ACK must come within the timeout; without streams it sends none.
   */
  private void keepAlive() {
    long interval = transport.pingIntervalNanos();
    if (state == State.CLOSED || !channel.isActive()) {
      return;
    }
    long quiet = System.nanoTime() - lastReadNanos;
    if (quiet < interval || streams.isEmpty() || pingOutstanding != 0) {
      scheduleKeepAlive(Math.max(1, interval - (quiet < interval ? quiet : 0)));
      return;
    }
    long payload = ++pingsSent;
    pingOutstanding = payload;
    handler.encoder().writePing(ctx, false, payload, ctx.newPromise());
    channel.flush();
    long timeout = transport.pingTimeoutNanos();
    pool.loop().schedule(() -> guarded(() -> {
      if (pingOutstanding == payload && channel.isActive()) {
        connectionError = new IOException("keepalive PING not acknowledged within "
            + TimeUnit.NANOSECONDS.toMillis(timeout) + " ms");
        LOG.debug("HTTP/2 connection to {}: {}", authority, connectionError.getMessage());
        close();
      }
    }), timeout, TimeUnit.NANOSECONDS);
    scheduleKeepAlive(interval);
  }

  @Override
  public void onPingAckRead(ChannelHandlerContext ctx, long data) {
    if (data == pingOutstanding) {
      pingOutstanding = 0;
    }
  }

  private long stampFor(H2Stream s) {
    return s.clock == clock ? stamp : s.clock.nanoTime();
  }

  @Override
  public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding,
      boolean endOfStream) {
    H2Stream s = streams.get(streamId);
    if (s == null || s.isDone()) {
      return;
    }
    s.guarded(() -> headersRead(s, headers, endOfStream));
  }

  @Override
  public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
      short weight, boolean exclusive, int padding, boolean endOfStream) {
    onHeadersRead(ctx, streamId, headers, padding, endOfStream);
  }

  private void headersRead(H2Stream s, Http2Headers headers, boolean endOfStream) {
    long t = stampFor(s);
    if (s.hasResponse()) {
      if (endOfStream) {
        s.onTrailers(headers, t);
        s.end(t);
      }
      return;
    }
    CharSequence statusText = headers.status();
    int status;
    try {
      status = statusText == null ? -1 : Integer.parseInt(statusText.toString());
    } catch (NumberFormatException e) {
      status = -1;
    }
    if (status < 100 || status > 999) {
      s.fail(Failure.of(ErrorCategory.MALFORMED_STREAM, "HTTP/2 response from " + authority
          + " has no valid :status (" + (statusText == null ? "none" : "\"" + statusText + "\"") + ")"));
      return;
    }
    if (status < 200 && status != 101) {
      s.bytesRead(t); // an interim response proves the server is alive but is not the response
      return;
    }
    s.onHead(status, headers, t);
    if (endOfStream && !s.isDone()) {
      s.end(t);
    }
  }

  @Override
  public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
    int processed = data.readableBytes() + padding;
    H2Stream s = streams.get(streamId);
    if (s == null || s.isDone()) {
      return processed;
    }
    if (!s.hasResponse()) {
      s.fail(Failure.of(ErrorCategory.MALFORMED_STREAM, "HTTP/2 server at " + authority + " sent DATA before the "
          + "response HEADERS on stream " + streamId));
      return processed;
    }
    long t = stampFor(s);
    int outcome = s.deliver(data, t);
    if (outcome == Exchange.DONE || outcome == Exchange.FAILED) {
      if (!endOfStream) {
        resetStream(streamId); // the consumer has what it needs: the rest of the stream is refused, the connection stays
      }
    } else if (endOfStream) {
      s.end(t);
    }
    return processed;
  }

  @Override
  public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
    resets.put(streamId, Long.valueOf(errorCode));
  }

  @Override
  public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {
    guarded(() -> {
      String debug = debugData.readableBytes() == 0 ? ""
          : ": " + debugData.toString(0, Math.min(200, debugData.readableBytes()), java.nio.charset.StandardCharsets.UTF_8);
      goAwayReason = "GOAWAY " + errorName(errorCode) + ", last stream " + lastStreamId + debug;
      LOG.debug("HTTP/2 server at {} sent {}", authority, goAwayReason);
      goAway();
    });
  }

  /** The connection takes no new streams; requests still waiting for it go elsewhere. */
  private void goAway() {
    if (state == State.READY || state == State.CONNECTING) {
      state = State.GOING_AWAY;
      pool.retire(this);
      List<H2Stream> redo = new ArrayList<>(waiting);
      waiting.clear();
      for (H2Stream s : redo) {
        pool.dispatch(s);
      }
    }
    maybeIdle();
  }

  private void streamClosed(int id) {
    H2Stream s = streams.remove(id);
    Long reset = resets.remove(id);
    Http2Exception streamError = streamErrors.remove(id);
    if (s != null && !s.isDone()) {
      Http2Connection c = handler.connection();
      boolean unprocessed = (c.goAwayReceived() && id > c.local().lastStreamKnownByPeer())
          || (reset != null && reset == Http2Error.REFUSED_STREAM.code());
      if (unprocessed && s.retry("HTTP/2 server at " + authority + " did not process stream " + id + " ("
          + (reset != null ? "RST_STREAM " + errorName(reset) : "GOAWAY") + ")", true)) {
        pool.dispatch(s);
      } else if (streamError != null && String.valueOf(streamError.getMessage()).contains("does not match content-length")) {
        // END_STREAM before the declared length: the response was cut short, as a close mid-body is on HTTP/1.1
        s.failNow(Failure.of(ErrorCategory.RESET, "HTTP/2 stream " + id + " from " + authority
            + " ended before its content-length: " + streamError.getMessage()));
      } else if (streamError != null) {
        s.failNow(Failure.of(ErrorCategory.MALFORMED_STREAM, "HTTP/2 stream " + id + " from " + authority
            + " broke the protocol: " + NettyTransport.describe(streamError)));
      } else if (reset != null) {
        s.failNow(Failure.of(ErrorCategory.RESET, "HTTP/2 server at " + authority + " reset stream " + id
            + " (RST_STREAM " + errorName(reset) + ") " + (s.hasResponse() ? "before the response ended"
            : "before the response headers")));
      } else if (!channel.isActive() && !unprocessed && s.retry("pooled HTTP/2 connection to " + authority
          + " was closed by the server before any response byte", false)) {
        pool.dispatch(s);
      } else {
        s.failNow(lostFailure(id, null));
      }
    }
    maybeIdle();
  }

  private Failure lostFailure(int id, Throwable cause) {
    if (transport.isClosed()) {
      return Failure.of(ErrorCategory.CANCELLED, "request to " + authority + " cancelled: the transport was closed");
    }
    Throwable why = cause != null ? cause : connectionError;
    if (why instanceof Http2Exception) {
      return Failure.of(ErrorCategory.MALFORMED_STREAM, "HTTP/2 connection to " + authority
          + " broke the protocol: " + NettyTransport.describe(why));
    }
    Http2Connection c = handler == null ? null : handler.connection();
    String goAway = goAwayReason != null ? " after the server's " + goAwayReason : "";
    return Failure.of(ErrorCategory.RESET, "HTTP/2 connection to " + authority + " closed" + goAway
        + " before stream " + id + " ended" + (why == null ? "" : ": " + NettyTransport.describe(why)));
  }

  private static String errorName(long code) {
    Http2Error e = Http2Error.valueOf(code);
    return e == null ? "error " + code : e.name();
  }

  // ---- idleness and closing ----

  /** A connection without streams closes after the keep-alive; one going away closes at once. */
  private void maybeIdle() {
    if (!streams.isEmpty() || !waiting.isEmpty() || channel == null) {
      return;
    }
    if (state == State.GOING_AWAY) {
      close();
    } else if (state == State.READY) {
      int generation = ++idleGeneration;
      pool.loop().schedule(() -> {
        if (idleGeneration == generation && streams.isEmpty() && waiting.isEmpty() && state == State.READY) {
          state = State.GOING_AWAY;
          pool.retire(this);
          close();
        }
      }, transport.keepAliveNanos(), TimeUnit.NANOSECONDS);
    }
  }

  void close() {
    if (channel != null) {
      channel.close();
    }
  }

  /** The channel closed: whatever was still waiting or in flight fails. */
  private void closed() {
    State was = state;
    state = State.CLOSED;
    pool.retire(this);
    cancelSettingsTimer();
    if (was == State.CONNECTING && !waiting.isEmpty()) {
      Failure f = transport.isClosed()
          ? Failure.of(ErrorCategory.CANCELLED, "request to " + authority + " cancelled: the transport was closed")
          : connectionError instanceof Http2Exception
              ? Failure.of(ErrorCategory.MALFORMED_STREAM, "HTTP/2 connection to " + authority
                  + " broke the protocol before it was established: " + NettyTransport.describe(connectionError))
              : Failure.of(ErrorCategory.CONNECT, "HTTP/2 connection to " + authority
                  + " closed before the server's SETTINGS" + (connectionError == null ? ""
                  : ": " + NettyTransport.describe(connectionError)));
      failOpening(f);
    }
    waiting.clear();
    // streams the codec did not close (none normally): fail them too
    List<Integer> ids = new ArrayList<>(streams.keySet());
    for (int id : ids) {
      streamClosed(id);
    }
  }

  private void guarded(Runnable step) {
    try {
      step.run();
    } catch (Throwable e) {
      LOG.warn("unexpected failure on the HTTP/2 connection to {}", authority, e);
      connectionError = e;
      close();
    }
  }

  @Override
  public String toString() {
    return "H2Connection[" + authority + (channel == null ? "" : ", " + channel.id()) + ", " + state + ", "
        + streams.size() + " streams]";
  }

  /** The codec, with the hooks the connection needs: the read stamp, errors by stream, the close. */
  static final class H2Handler extends Http2ConnectionHandler {

    private final H2Connection owner;

    H2Handler(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings,
        H2Connection owner) {
      super(decoder, encoder, settings);
      this.owner = owner;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
      owner.ctx = ctx;
      super.handlerAdded(ctx);
    }

    /** Widens the connection's own receive window beyond the 65,535 bytes every connection starts with. */
    void widenConnectionWindow() throws Http2Exception {
      Http2Stream root = connection().connectionStream();
      int delta = owner.transport.h2ConnectionWindow() - decoder().flowController().initialWindowSize(root);
      if (delta > 0) {
        decoder().flowController().incrementWindowSize(root, delta);
      }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
      owner.stamp();
      super.channelRead(ctx, msg);
    }

    @Override
    protected void onStreamError(ChannelHandlerContext ctx, boolean outbound, Throwable cause,
        Http2Exception.StreamException http2Ex) {
      owner.streamErrors.put((int) http2Ex.streamId(), (Http2Exception) http2Ex);
      super.onStreamError(ctx, outbound, cause, http2Ex);
    }

    @Override
    protected void onConnectionError(ChannelHandlerContext ctx, boolean outbound, Throwable cause,
        Http2Exception http2Ex) {
      if (owner.connectionError == null) {
        owner.connectionError = http2Ex != null ? http2Ex : cause;
      }
      super.onConnectionError(ctx, outbound, cause, http2Ex);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
      if (Http2CodecUtilAccess.embedded(cause) != null) {
        super.exceptionCaught(ctx, cause);
        return;
      }
      if (owner.connectionError == null) {
        owner.connectionError = cause instanceof IOException ? cause : cause.getCause() != null ? cause.getCause() : cause;
      }
      LOG.debug("HTTP/2 connection to {} failed: {}", owner.authority, NettyTransport.describe(cause));
      ctx.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
      try {
        super.channelInactive(ctx); // closes every stream: each reports its outcome
      } finally {
        owner.guarded(owner::closed);
      }
    }

    /** Builds the handler around its owner's frame listener. */
    static final class Builder extends AbstractHttp2ConnectionHandlerBuilder<H2Handler, Builder> {
      private final H2Connection owner;

      Builder(H2Connection owner, Http2Settings settings) {
        this.owner = owner;
        server(false);
        initialSettings(settings);
        frameListener(owner);
        gracefulShutdownTimeoutMillis(0);
      }

      @Override
      public H2Handler build() {
        return super.build();
      }

      @Override
      protected H2Handler build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder,
          Http2Settings initialSettings) {
        return new H2Handler(decoder, encoder, initialSettings, owner);
      }
    }
  }

  /** Finds an {@link Http2Exception} in a cause chain, as the codec does before it handles one. */
  static final class Http2CodecUtilAccess {
    private Http2CodecUtilAccess() {}

    static Http2Exception embedded(Throwable cause) {
      while (cause != null) {
        if (cause instanceof Http2Exception e) {
          return e;
        }
        cause = cause.getCause();
      }
      return null;
    }
  }
}
