package io.infermark.testkit.simulator.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestDecoder;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The simulator's HTTP/1.1 server on Netty's request decoder: one I/O thread reads every
 * connection, requests (keep-alive, pipelined in order) go to the handler on the executor, and the
 * response bytes an {@link Exchange} formats are written to the channel from whichever thread
 * produced them, handed to the I/O thread in batches (one task and one flush per connection per batch).
 *
 * <p>What it does not support is answered with a clear error in OpenAI's shape and the connection
 * closed after it: a chunked or otherwise encoded request body (411), a request head over 64 KiB (431),
 * a body over 64 MiB (413), an HTTP version other than 1.0 or 1.1 (505), and a malformed request line,
 * header or target (400). {@code Expect: 100-continue} is honoured. Nagle's algorithm is off on every
 * connection, so each write leaves at once.
 */
public final class NettyHttp1Server implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(NettyHttp1Server.class);

  /** The longest request head accepted (request line and headers); HTTP/2 takes the same as its header list. */
  static final int MAX_HEAD_BYTES = 64 * 1024;
  /** The largest request body accepted, on HTTP/1.1 and HTTP/2. */
  static final int MAX_BODY_BYTES = 64 * 1024 * 1024;

  private final MultiThreadIoEventLoopGroup group;
  private final Channel listener;
  private final InetSocketAddress address;
  private final Http1Pipeline http1;

  private NettyHttp1Server(MultiThreadIoEventLoopGroup group, Channel listener, Http1Pipeline http1) {
    this.group = group;
    this.listener = listener;
    this.address = (InetSocketAddress) listener.localAddress();
    this.http1 = http1;
  }

  /**
   * Binds {@code address} and starts the I/O thread.
   *
   * @throws IOException if the address cannot be bound
   */
  public static NettyHttp1Server start(InetSocketAddress address, int backlog, Exchange.Handler handler,
      ExecutorService executor) throws IOException {
    boolean epoll = Epoll.isAvailable();
    MultiThreadIoEventLoopGroup group = new MultiThreadIoEventLoopGroup(1, r -> {
      Thread t = new FastThreadLocalThread(r, "infermark-sim-http");
      t.setDaemon(true);
      return t;
    }, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    Http1Pipeline http1 = new Http1Pipeline(handler, executor, group.next()); // the group's one I/O thread
    ServerBootstrap b = new ServerBootstrap().group(group)
        .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
        .option(ChannelOption.SO_BACKLOG, backlog)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel ch) {
            http1.install(ch);
          }
        });
    try {
      return new NettyHttp1Server(group, b.bind(address).sync().channel(), http1);
    } catch (Exception e) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
      throw e instanceof IOException io ? io : new IOException("cannot bind " + address + ": " + e.getMessage(), e);
    }
  }

  public InetSocketAddress address() {
    return address;
  }

  /**
   * Stops accepting and closes every connection; ongoing exchanges have learnt they lost it when this
   * returns. Idempotent.
   */
  @Override
  public void close() {
    listener.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    if (!group.isShuttingDown()) {
      try {
        group.next().submit(http1::loseAll).awaitUninterruptibly(5, TimeUnit.SECONDS);
      } catch (RejectedExecutionException e) {
        // already stopping
      }
    }
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
  }

  /**
   * Installs the HTTP/1.1 handlers on connections, here or behind TLS on the HTTP/2 server (a client that
   * chose http/1.1 by ALPN); one per server, so that every connection it served learns when the server closes.
   */
  static final class Http1Pipeline {
    private final Exchange.Handler handler;
    private final ExecutorService executor;
    private final java.util.Set<Connection> connections = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final WriteBatch batch;

    /** For connections served by {@code loop}, the one I/O thread of their server. */
    Http1Pipeline(Exchange.Handler handler, ExecutorService executor, io.netty.channel.EventLoop loop) {
      this.handler = handler;
      this.executor = executor;
      this.batch = new WriteBatch(loop);
    }

    void install(Channel ch) {
      Connection c = new Connection(ch, handler, executor, connections, batch);
      connections.add(c);
      ch.pipeline().addLast("stamp", c.stamper())
          .addLast("decoder", new HttpRequestDecoder(MAX_HEAD_BYTES, MAX_HEAD_BYTES, 64 * 1024))
          .addLast("http1", c);
    }

    /** Every connection is lost (the server is closing); on the I/O thread. */
    void loseAll() {
      for (Connection c : connections) {
        c.lost();
      }
    }
  }

  /**
   * Writes produced off the I/O thread (the engine's writer writes every stream each step), handed over
   * in batches: one task per batch rather than per write, and one flush per connection per batch.
   */
  static final class WriteBatch implements Runnable {
    private final io.netty.channel.EventLoop loop;
    private record Write(Channel channel, ByteBuf bytes) {}

    private final java.util.concurrent.ConcurrentLinkedQueue<Write> pending =
        new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final java.util.concurrent.atomic.AtomicBoolean scheduled = new java.util.concurrent.atomic.AtomicBoolean();
    private final java.util.Set<Channel> touched = new java.util.LinkedHashSet<>();

    WriteBatch(io.netty.channel.EventLoop loop) {
      this.loop = loop;
    }

    void add(Channel channel, ByteBuf bytes) {
      pending.add(new Write(channel, bytes));
      if (scheduled.compareAndSet(false, true)) {
        try {
          loop.execute(this);
        } catch (RejectedExecutionException e) {
          scheduled.set(false);
          bytes.release();
        }
      }
    }

    @Override
    public void run() {
      scheduled.set(false);
      Write w;
      while ((w = pending.poll()) != null) {
        w.channel.write(w.bytes, w.channel.voidPromise());
        touched.add(w.channel);
      }
      for (Channel ch : touched) {
        ch.flush();
      }
      touched.clear();
    }
  }

  /** A request refused before any handler sees it. */
  private static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;
    final int status;

    Refused(int status, String message) {
      super(message, null, false, false);
      this.status = status;
    }
  }

  /**
   * One connection: the request being assembled, the exchange being served and those pipelined
   * behind it (served one at a time, in order). Its state is confined to the I/O thread; {@link #write}
   * and the exchange callbacks may come from any thread and hop onto it.
   */
  static final class Connection extends ChannelInboundHandlerAdapter implements Exchange.Wire {
    private final Channel channel;
    private final Exchange.Handler handler;
    private final ExecutorService executor;
    private final ArrayDeque<Exchange> queued = new ArrayDeque<>(2);
    private Exchange active;
    private HttpRequest request;
    private byte[] body;
    private int bodyHave;
    private boolean keepAlive;
    private boolean refused;
    private volatile boolean closed;
    private long readAt;
    /** The start of the latest read that began a request head. */
    private String head = "";

    private final java.util.Set<Connection> all;
    private final WriteBatch batch;

    Connection(Channel channel, Exchange.Handler handler, ExecutorService executor, java.util.Set<Connection> all,
        WriteBatch batch) {
      this.all = all;
      this.batch = batch;
      this.channel = channel;
      this.handler = handler;
      this.executor = executor;
    }

    /** Stamps each read before it is decoded: a request completed by that read arrived then. */
    ChannelInboundHandlerAdapter stamper() {
      return new ChannelInboundHandlerAdapter() {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
          readAt = System.nanoTime();
          if (refused) {
            io.netty.util.ReferenceCountUtil.release(msg); // a refusal was sent: input is discarded until the close
            return;
          }
          if (request == null && msg instanceof ByteBuf b) {
            // the start of a head, kept to name the line a malformed request broke on (requests are rare: one a stream)
            int n = Math.min(b.readableBytes(), 8192);
            head = b.toString(b.readerIndex(), n, StandardCharsets.ISO_8859_1);
          }
          ctx.fireChannelRead(msg);
        }
      };
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (refused) {
          return;
        }
        if (msg instanceof HttpRequest r) {
          begin(r);
        }
        if (msg instanceof HttpContent c && request != null) {
          append(c);
        }
      } catch (Refused r) {
        refuse(r);
      } finally {
        io.netty.util.ReferenceCountUtil.release(msg);
      }
    }

    private void begin(HttpRequest r) throws Refused {
      DecoderResult result = r.decoderResult();
      if (result.isFailure()) {
        throw refusal(result.cause(), head);
      }
      HttpVersion v = r.protocolVersion();
      if (v.majorVersion() != 1 || v.minorVersion() > 1) {
        throw new Refused(505, "HTTP version '" + v.text() + "' is not supported; use HTTP/1.1");
      }
      String te = r.headers().get(HttpHeaderNames.TRANSFER_ENCODING);
      if (te != null) {
        throw new Refused(411, "Transfer-Encoding '" + te + "' request bodies are not supported; send the body "
            + "with a Content-Length");
      }
      long length = 0;
      String cl = r.headers().get(HttpHeaderNames.CONTENT_LENGTH);
      if (cl != null) {
        try {
          length = Long.parseLong(cl.strip());
        } catch (NumberFormatException e) {
          throw new Refused(400, "Content-Length '" + cl + "' is not a number");
        }
        if (length < 0) {
          throw new Refused(400, "Content-Length " + length + " is negative");
        }
        if (length > MAX_BODY_BYTES) {
          throw new Refused(413, "The request body (" + length + " bytes) is larger than "
              + MAX_BODY_BYTES + " bytes");
        }
      }
      String connection = r.headers().get(HttpHeaderNames.CONNECTION, "").toLowerCase(Locale.ROOT);
      keepAlive = connection.contains("close") ? false : connection.contains("keep-alive") || v.minorVersion() == 1;
      request = r;
      body = new byte[(int) length];
      bodyHave = 0;
      if (length > 0 && "100-continue".equalsIgnoreCase(r.headers().get(HttpHeaderNames.EXPECT))) {
        channel.writeAndFlush(Unpooled.copiedBuffer("HTTP/1.1 100 Continue\r\n\r\n", StandardCharsets.ISO_8859_1));
      }
    }

    /** Why the decoder refused a head, naming the line it broke on (found again in the head's text). */
    private static Refused refusal(Throwable cause, String head) {
      if (cause instanceof TooLongFrameException) {
        return new Refused(431, "The request head is longer than " + MAX_HEAD_BYTES + " bytes");
      }
      String m = String.valueOf(cause.getMessage());
      String notANumber = "Content-Length value is not a number: ";
      if (m.startsWith(notANumber)) {
        return new Refused(400, "Content-Length '" + m.substring(notANumber.length()) + "' is not a number");
      }
      String[] lines = head.split("\r?\n", -1);
      if (lines[0].split(" ", -1).length != 3) {
        return new Refused(400, "Malformed request line '" + lines[0] + "'; expected METHOD SP target SP HTTP/1.1");
      }
      for (int i = 1; i < lines.length && !lines[i].isEmpty(); i++) {
        String line = lines[i];
        int colon = line.indexOf(':');
        if (colon <= 0 || line.charAt(0) == ' ' || line.charAt(0) == '\t'
            || !line.substring(0, colon).chars().allMatch(c -> c > 32 && c < 127)) {
          return new Refused(400, "Malformed header line '" + line + "'; expected 'Name: value'");
        }
      }
      return new Refused(400, "Malformed request: " + cause.getMessage());
    }

    private void append(HttpContent c) throws Refused {
      ByteBuf content = c.content();
      int n = content.readableBytes();
      if (n > body.length - bodyHave) {
        throw new Refused(400, "The request body is longer than its Content-Length " + body.length);
      }
      content.readBytes(body, bodyHave, n);
      bodyHave += n;
      if (!(c instanceof LastHttpContent)) {
        return;
      }
      if (bodyHave != body.length) {
        throw new Refused(400, "The request body ended after " + bodyHave + " of its " + body.length + " bytes");
      }
      HttpRequest r = request;
      request = null;
      URI target;
      try {
        target = new URI(r.uri());
      } catch (URISyntaxException e) {
        throw new Refused(400, "Request target '" + r.uri() + "' is not a valid URI: " + e.getReason());
      }
      if (target.getPath() == null || target.getPath().isEmpty()) {
        throw new Refused(400, "Request target '" + r.uri() + "' has no path");
      }
      List<String[]> headers = new ArrayList<>(r.headers().size());
      for (Map.Entry<String, String> h : r.headers()) {
        headers.add(new String[] {h.getKey(), h.getValue()});
      }
      Exchange ex = new Exchange(this, r.method().name(), target.getPath(), target.getRawQuery(), headers, body,
          keepAlive, readAt);
      body = null;
      if (active == null) {
        active = ex;
        dispatch(ex);
      } else {
        queued.add(ex);
      }
    }

    private void dispatch(Exchange ex) {
      try {
        executor.execute(() -> {
          try {
            handler.handle(ex);
          } catch (IOException | RuntimeException | Error e) {
            log.debug("{} failed; closing its connection: {}", ex, e.toString());
            close();
          }
        });
      } catch (RejectedExecutionException e) {
        close(); // the server is closing
      }
    }

    /** Answers a refused request in OpenAI's error shape; the connection's output closes after it. */
    private void refuse(Refused r) {
      refused = true;
      request = null;
      String json = "{\"error\":{\"message\":" + jsonString(r.getMessage())
          + ",\"type\":\"BadRequestError\",\"param\":null,\"code\":" + r.status + "}}";
      byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
      String head = "HTTP/1.1 " + r.status + ' ' + reason(r.status)
          + "\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length + "\r\nConnection: close\r\n\r\n";
      ByteBuf out = channel.alloc().buffer(head.length() + bytes.length);
      out.writeCharSequence(head, StandardCharsets.ISO_8859_1);
      out.writeBytes(bytes);
      // output shut down once written, input discarded until the client closes: closing with unread input
      // would reset the connection, and the client could lose the answer
      channel.writeAndFlush(out).addListener((ChannelFutureListener) f -> {
        if (f.channel() instanceof SocketChannel s) {
          s.shutdownOutput();
        } else {
          f.channel().close();
        }
      });
    }

    @Override
    public void write(ByteBuffer bytes) throws IOException {
      if (closed) {
        throw new IOException("connection closed");
      }
      ByteBuf copy = channel.alloc().directBuffer(bytes.remaining());
      copy.writeBytes(bytes);
      if (channel.eventLoop().inEventLoop()) {
        channel.writeAndFlush(copy, channel.voidPromise());
      } else {
        batch.add(channel, copy);
      }
    }

    @Override
    public void exchangeEnded(Exchange exchange, boolean keepAlive) {
      channel.eventLoop().execute(() -> {
        if (active != exchange) {
          return;
        }
        active = null;
        if (!keepAlive) {
          channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
          return;
        }
        Exchange next = queued.poll();
        if (next != null) {
          active = next;
          dispatch(next);
        }
      });
    }

    /** Closes the connection now; the active exchange learns it lost it. */
    @Override
    public void close() {
      channel.close();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      lost();
    }

    /** The connection is gone (or going, the server closing): the active exchange learns it; on the I/O thread. */
    void lost() {
      closed = true;
      all.remove(this);
      Exchange lost = active;
      active = null;
      queued.clear();
      channel.close();
      if (lost != null) {
        lost.connectionClosed();
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      log.debug("simulator HTTP/1.1 connection failed: {}", cause.toString());
      ctx.close();
    }
  }

  static String reason(int status) {
    return switch (status) {
      case 100 -> "Continue";
      case 200 -> "OK";
      case 400 -> "Bad Request";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 411 -> "Length Required";
      case 413 -> "Content Too Large";
      case 429 -> "Too Many Requests";
      case 431 -> "Request Header Fields Too Large";
      case 500 -> "Internal Server Error";
      case 503 -> "Service Unavailable";
      case 505 -> "HTTP Version Not Supported";
      default -> "Status " + status;
    };
  }

  static String jsonString(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        default -> {
          if (c < 0x20) {
            b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
