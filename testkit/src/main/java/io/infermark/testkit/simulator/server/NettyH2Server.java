package io.infermark.testkit.simulator.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Map.Entry;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The simulator's HTTP/2 front end: h2c with prior knowledge, or h2 over TLS (ALPN, with HTTP/1.1 for
 * clients that choose it), on Netty's HTTP/2 codec, serving the
 * same {@link Exchange.Handler} (the router, the engine, the ground-truth timelines and the
 * faults) as the HTTP/1.1 server. One I/O thread reads every connection and assembles each stream's
 * request; the handler runs on the executor, and response frames are written on the I/O thread
 * from whichever thread produced them. A fault that drops a connection mid-response resets the
 * stream (RST_STREAM INTERNAL_ERROR), HTTP/2's way of cutting one response off.
 *
 * <p>Limits: 100 concurrent streams per connection (announced in SETTINGS), a request body of at most
 * {@link NettyHttp1Server#MAX_BODY_BYTES} (larger ones are answered 413), 64 KiB of request headers.
 */
public final class NettyH2Server implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(NettyH2Server.class);
  static final int MAX_CONCURRENT_STREAMS = 100;

  private final MultiThreadIoEventLoopGroup group;
  private final Channel listener;
  private final InetSocketAddress address;
  private final Exchange.Handler handler;
  private final ExecutorService executor;
  /** HTTP/1.1 behind TLS, for clients that chose it by ALPN; null without TLS. */
  private final NettyHttp1Server.Http1Pipeline http1;

  private NettyH2Server(MultiThreadIoEventLoopGroup group, Channel listener, Exchange.Handler handler,
      ExecutorService executor, NettyHttp1Server.Http1Pipeline http1) {
    this.http1 = http1;
    this.group = group;
    this.listener = listener;
    this.address = (InetSocketAddress) listener.localAddress();
    this.handler = handler;
    this.executor = executor;
  }

  /**
   * Binds {@code address} and starts the I/O thread.
   *
   * @throws IOException if the address cannot be bound
   */
  public static NettyH2Server start(InetSocketAddress address, int backlog, Exchange.Handler handler,
      ExecutorService executor) throws IOException {
    return start(address, backlog, handler, executor, null);
  }

  /**
   * Binds {@code address} and starts the I/O thread; with {@code tls}, connections are TLS and ALPN chooses
   * h2 or http/1.1 (served by {@link NettyHttp1Server.Http1Pipeline} on the same thread).
   *
   * @throws IOException if the address cannot be bound
   */
  public static NettyH2Server start(InetSocketAddress address, int backlog, Exchange.Handler handler,
      ExecutorService executor, SslContext tls) throws IOException {
    MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, r -> {
      Thread t = new FastThreadLocalThread(r, "infermark-sim-h2");
      t.setDaemon(true);
      return t;
    }, NioIoHandler.newFactory());
    NettyH2Server[] self = new NettyH2Server[1];
    NettyHttp1Server.Http1Pipeline http1 = tls == null ? null
        : new NettyHttp1Server.Http1Pipeline(handler, executor, group.next());
    ServerBootstrap b = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
        .option(ChannelOption.SO_BACKLOG, backlog)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            if (tls == null) {
              ch.pipeline().addLast(new Handler.Builder(new StreamAssembler(self[0])).build());
              return;
            }
            ch.pipeline().addLast(tls.newHandler(ch.alloc()), new ApplicationProtocolNegotiationHandler(
                ApplicationProtocolNames.HTTP_1_1) {
              @Override
              protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
                if (ApplicationProtocolNames.HTTP_2.equals(protocol)) {
                  ctx.pipeline().addLast(new Handler.Builder(new StreamAssembler(self[0])).build());
                } else if (ApplicationProtocolNames.HTTP_1_1.equals(protocol)) {
                  http1.install(ctx.channel());
                } else {
                  ctx.close();
                }
              }
            });
          }
        });
    try {
      Channel ch = b.bind(address).sync().channel();
      self[0] = new NettyH2Server(group, ch, handler, executor, http1);
      return self[0];
    } catch (Exception e) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw e instanceof IOException io ? io : new IOException("cannot bind " + address + ": " + e.getMessage(), e);
    }
  }

  public InetSocketAddress address() {
    return address;
  }

  /** Stops accepting and closes every connection (ongoing exchanges learn they lost it); idempotent. */
  @Override
  public void close() {
    listener.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    if (http1 != null && !group.isShuttingDown()) {
      try {
        group.next().submit(http1::loseAll).awaitUninterruptibly(5, TimeUnit.SECONDS);
      } catch (RejectedExecutionException e) {
        // already stopping
      }
    }
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }

  private void serve(Exchange exchange, Stream stream) {
    try {
      handler.handle(exchange);
    } catch (IOException | RuntimeException | Error e) {
      log.debug("{} failed; resetting its stream: {}", exchange, e.toString());
      stream.close();
    }
  }

  /** The codec, stamping each read so a request's arrival is the read that completed it. */
  static final class Handler extends Http2ConnectionHandler {
    private final StreamAssembler assembler;

    Handler(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings,
        StreamAssembler assembler) {
      super(decoder, encoder, settings);
      this.assembler = assembler;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
      assembler.ctx = ctx;
      assembler.handler = this;
      super.handlerAdded(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
      assembler.readAt = System.nanoTime();
      super.channelRead(ctx, msg);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
      try {
        super.channelInactive(ctx);
      } finally {
        assembler.connectionClosed();
      }
    }

    static final class Builder extends AbstractHttp2ConnectionHandlerBuilder<Handler, Builder> {
      private final StreamAssembler assembler;

      Builder(StreamAssembler assembler) {
        this.assembler = assembler;
        server(true);
        frameListener(assembler);
        initialSettings(new Http2Settings().maxConcurrentStreams(MAX_CONCURRENT_STREAMS)
            .maxHeaderListSize(NettyHttp1Server.MAX_HEAD_BYTES));
      }

      @Override
      public Handler build() {
        return super.build();
      }

      @Override
      protected Handler build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings) {
        return new Handler(decoder, encoder, settings, assembler);
      }
    }
  }

  /** Assembles each stream's request on the I/O thread and hands complete ones to the handler. */
  static final class StreamAssembler extends Http2FrameAdapter {
    private final NettyH2Server server;
    private final Map<Integer, Stream> streams = new HashMap<>();
    ChannelHandlerContext ctx;
    Handler handler;
    long readAt;

    StreamAssembler(NettyH2Server server) {
      this.server = server;
    }

    @Override
    public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding,
        boolean endOfStream) {
      Stream s = streams.get(streamId);
      if (s != null) {
        if (endOfStream) {
          s.complete(); // request trailers
        }
        return;
      }
      s = new Stream(this, streamId, headers);
      streams.put(streamId, s);
      if (endOfStream) {
        s.complete();
      }
    }

    @Override
    public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
        short weight, boolean exclusive, int padding, boolean endOfStream) {
      onHeadersRead(ctx, streamId, headers, padding, endOfStream);
    }

    @Override
    public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
      int processed = data.readableBytes() + padding;
      Stream s = streams.get(streamId);
      if (s != null) {
        s.append(data);
        if (endOfStream) {
          s.complete();
        }
      }
      return processed;
    }

    @Override
    public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
      Stream s = streams.remove(streamId);
      if (s != null) {
        s.lost();
      }
    }

    void connectionClosed() {
      List<Stream> all = new ArrayList<>(streams.values());
      streams.clear();
      for (Stream s : all) {
        s.lost();
      }
    }

    EventLoop loop() {
      return ctx.channel().eventLoop();
    }
  }

  /** One stream: its request as it arrives, then the {@link Exchange.H2Wire} its response goes out on. */
  static final class Stream implements Exchange.H2Wire {
    private final StreamAssembler conn;
    private final int id;
    private final Http2Headers requestHeaders;
    private ByteArrayOutputStream body;
    private boolean tooLarge;
    private volatile Exchange exchange;
    private volatile boolean ended;

    Stream(StreamAssembler conn, int id, Http2Headers requestHeaders) {
      this.conn = conn;
      this.id = id;
      this.requestHeaders = requestHeaders;
    }

    void append(ByteBuf data) {
      if (tooLarge || data.readableBytes() == 0) {
        return;
      }
      if (body == null) {
        body = new ByteArrayOutputStream(Math.max(256, data.readableBytes()));
      }
      if (body.size() + data.readableBytes() > NettyHttp1Server.MAX_BODY_BYTES) {
        tooLarge = true;
        body = null;
        return;
      }
      byte[] bytes = new byte[data.readableBytes()];
      data.getBytes(data.readerIndex(), bytes);
      body.writeBytes(bytes);
    }

    void complete() {
      List<String[]> headers = new ArrayList<>();
      for (Entry<CharSequence, CharSequence> h : requestHeaders) {
        String name = h.getKey().toString();
        if (!name.startsWith(":")) {
          headers.add(new String[] {name, h.getValue().toString()});
        }
      }
      CharSequence authority = requestHeaders.authority();
      if (authority != null) {
        headers.add(new String[] {"host", authority.toString()});
      }
      String method = String.valueOf(requestHeaders.method());
      String rawPath = String.valueOf(requestHeaders.path());
      String path;
      String query;
      try {
        URI target = new URI(rawPath.startsWith("/") ? rawPath : "/" + rawPath);
        path = target.getPath();
        query = target.getRawQuery();
      } catch (URISyntaxException e) {
        head(400);
        return;
      }
      boolean grpc = GrpcInferenceService.isGrpc(requestHeaders);
      if (tooLarge) {
        if (grpc) {
          trailersOnly(8, "request message larger than " + NettyHttp1Server.MAX_BODY_BYTES + " bytes"); // RESOURCE_EXHAUSTED
        } else {
          head(413);
        }
        return;
      }
      byte[] bytes = body == null ? new byte[0] : body.toByteArray();
      body = null;
      Exchange ex = grpc ? GrpcInferenceService.exchange(this, path, headers, bytes, conn.readAt)
          : new Exchange(this, method, path, query, headers, bytes, true, conn.readAt);
      if (ex == null) {
        return; // a gRPC call answered at once
      }
      exchange = ex;
      try {
        conn.server.executor.execute(() -> conn.server.serve(ex, this));
      } catch (RejectedExecutionException e) {
        close(); // the server is closing
      }
    }

    /** Answers at once with an empty response of {@code status}; on the I/O thread. */
    private void head(int status) {
      DefaultHttp2Headers h = new DefaultHttp2Headers();
      h.status(Integer.toString(status));
      conn.handler.encoder().writeHeaders(conn.ctx, id, h, 0, true, conn.ctx.newPromise());
      conn.ctx.flush();
      conn.streams.remove(id);
    }

    /** A gRPC response's HEADERS: status 200 and the gRPC content type, the body to follow. */
    void grpcHeaders() throws IOException {
      DefaultHttp2Headers h = new DefaultHttp2Headers();
      h.status("200");
      h.add(AsciiString.of("content-type"), "application/grpc");
      run(() -> {
        conn.handler.encoder().writeHeaders(conn.ctx, id, h, 0, false, conn.ctx.newPromise());
        conn.ctx.flush();
      });
    }

    /** A gRPC call's trailers (after its headers and messages), ending the stream. */
    void trailers(int code, String message) throws IOException {
      Http2Headers h = GrpcInferenceService.trailers(code, message);
      run(() -> {
        conn.handler.encoder().writeHeaders(conn.ctx, id, h, 0, true, conn.ctx.newPromise());
        conn.ctx.flush();
        conn.streams.remove(id);
      });
    }

    /** A gRPC call answered by one HEADERS frame: status 200, the gRPC content type and the trailers' fields. */
    void trailersOnly(int code, String message) {
      Http2Headers h = GrpcInferenceService.trailers(code, message);
      h.status("200");
      h.add(AsciiString.of("content-type"), "application/grpc");
      try {
        run(() -> {
          conn.handler.encoder().writeHeaders(conn.ctx, id, h, 0, true, conn.ctx.newPromise());
          conn.ctx.flush();
          conn.streams.remove(id);
        });
      } catch (IOException e) {
        log.debug("stream {} already gone: {}", id, e.getMessage());
      }
    }

    /** Runs {@code task} on the connection's I/O thread after {@code delayNanos}. */
    void schedule(Runnable task, long delayNanos) {
      conn.loop().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }

    void lost() {
      ended = true;
      Exchange ex = exchange;
      if (ex != null) {
        ex.connectionClosed();
      }
    }

    @Override
    public void head(int status, List<String[]> headers, boolean endStream) throws IOException {
      DefaultHttp2Headers h = new DefaultHttp2Headers();
      h.status(Integer.toString(status));
      for (String[] kv : headers) {
        String name = kv[0].toLowerCase(Locale.ROOT);
        if (!name.equals("connection") && !name.equals("transfer-encoding") && !name.equals("keep-alive")) {
          h.add(AsciiString.of(name), kv[1]);
        }
      }
      run(() -> {
        conn.handler.encoder().writeHeaders(conn.ctx, id, h, 0, endStream, conn.ctx.newPromise());
        conn.ctx.flush();
      });
    }

    @Override
    public void data(ByteBuffer content, boolean endStream) throws IOException {
      ByteBuf copy = content.hasRemaining() ? Unpooled.copiedBuffer(content) : Unpooled.EMPTY_BUFFER;
      run(() -> {
        conn.handler.encoder().writeData(conn.ctx, id, copy, 0, endStream, conn.ctx.newPromise());
        conn.handler.flush(conn.ctx);
      });
    }

    @Override
    public void write(ByteBuffer bytes) {
      throw new UnsupportedOperationException("an HTTP/2 stream takes frames, not HTTP/1.1 bytes");
    }

    @Override
    public void exchangeEnded(Exchange ex, boolean keepAlive) {
      try {
        run(() -> conn.streams.remove(id));
      } catch (IOException e) {
        log.debug("stream {} already gone: {}", id, e.getMessage());
      }
    }

    /** Resets the stream: the client sees this one response cut off; the connection carries on. */
    @Override
    public void close() {
      try {
        run(() -> {
          conn.streams.remove(id);
          if (conn.ctx.channel().isActive()) {
            conn.handler.resetStream(conn.ctx, id, Http2Error.INTERNAL_ERROR.code(), conn.ctx.newPromise());
            conn.ctx.flush();
          }
        });
      } catch (IOException e) {
        log.debug("stream {} already gone: {}", id, e.getMessage());
      }
    }

    private void run(Runnable task) throws IOException {
      if (ended) {
        throw new IOException("HTTP/2 stream " + id + " was closed by the client");
      }
      try {
        conn.loop().execute(task);
      } catch (RejectedExecutionException e) {
        throw new IOException("the simulator is closing", e);
      }
    }
  }
}
