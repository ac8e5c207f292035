package io.infermark.core.transport.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/1.1 connection: the last handler of its channel's pipeline. It carries at most one
 * {@link Http1Exchange} at a time, hands it the decoded response, and decides after each response
 * whether the connection goes back to its {@link HostPool}, is drained first, or is closed. Every
 * field except {@code idle} is confined to the channel's I/O thread.
 */
final class Connection extends ChannelInboundHandlerAdapter implements ResponseParser.Listener {

  private static final Logger LOG = LoggerFactory.getLogger(Connection.class);
  private static final AtomicIntegerFieldUpdater<Connection> IDLE =
      AtomicIntegerFieldUpdater.newUpdater(Connection.class, "idle");
  private static final long DRAIN_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** Where a direct buffer's bytes are copied for parsing, one per I/O thread; consumers never keep it. */
  private static final int SCRATCH_BYTES = 16 * 1024;
  private static final FastThreadLocal<byte[]> SCRATCH = new FastThreadLocal<>() {
    @Override
    protected byte[] initialValue() {
      return new byte[SCRATCH_BYTES];
    }
  };

  /** The calling I/O thread's scratch array, valid until the caller returns. */
  static byte[] scratch() {
    return SCRATCH.get();
  }

  private final HostPool pool;
  private final ResponseParser parser = new ResponseParser();
  private volatile Channel channel;
  private SslHandler ssl;

  /** The exchange this connection carries, or null between exchanges. */
  Http1Exchange exchange;

  /** 1 while the connection sits in its pool; whoever flips it to 0 owns the connection. */
  private volatile int idle;
  private long idleSince;
  private int idleGeneration;

  /** When the latest read of response bytes returned; every body byte of that read carries it. */
  private long stamp;
  /** Set when the connection is closing: whatever it still reads is dropped. */
  private boolean stopped;
  /** The exchange waiting for this draining connection, or null. */
  private Http1Exchange successor;
  /** The current response allows reuse (no {@code Connection: close}). */
  private boolean keepAlive;
  /** Discarding the rest of a response whose consumer is done. */
  private boolean draining;
  private long drained;
  private ScheduledFuture<?> drainTimer;

  Connection(HostPool pool) {
    this.pool = pool;
  }

  HostPool pool() {
    return pool;
  }

  Channel channel() {
    return channel;
  }

  void channel(Channel ch) {
    this.channel = ch;
  }

  SslHandler ssl() {
    return ssl;
  }

  void ssl(SslHandler handler) {
    this.ssl = handler;
  }

  /** The clock reading of the latest read of response bytes. */
  long readStamp() {
    return stamp;
  }

  // ---- pool bookkeeping ----

  boolean claimIdle() {
    return IDLE.compareAndSet(this, 1, 0);
  }

  /** Marks this connection idle from {@code now}; returns the generation an expiry check must match. */
  int markIdle(long now) {
    idleSince = now;
    int g = ++idleGeneration;
    idle = 1;
    return g;
  }

  long idleSince() {
    return idleSince;
  }

  int idleGeneration() {
    return idleGeneration;
  }

  void close() {
    if (channel != null) {
      channel.close();
    }
  }

  // ---- reading ----

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf buf)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    try {
      Http1Exchange ex = exchange;
      if (ex != null) {
        long t = ex.clock.nanoTime();
        stamp = t;
        ex.bytesRead(t);
      }
      int len = buf.readableBytes();
      if (buf.hasArray()) {
        parser.feed(buf.array(), buf.arrayOffset() + buf.readerIndex(), len, this);
      } else {
        byte[] scratch = SCRATCH.get();
        int at = buf.readerIndex();
        while (len > 0 && !stopped) {
          int n = Math.min(len, scratch.length);
          buf.getBytes(at, scratch, 0, n);
          parser.feed(scratch, 0, n, this);
          at += n;
          len -= n;
        }
      }
    } catch (ResponseParser.Malformed e) {
      decodeFailed(e);
    } finally {
      buf.release();
    }
  }

  @Override
  public int onHead(ResponseParser.Head head) {
    Http1Exchange ex = exchange;
    if (ex == null || ex.hasResponse()) {
      LOG.debug("closing connection to {}: a response nobody asked for", pool.authority());
      stop();
      return ResponseParser.STOP;
    }
    ex.onHead(head.status, head, stamp);
    if (exchange != ex) { // the exchange failed in onResponse: the connection is closing
      stop();
      return ResponseParser.STOP;
    }
    return ex.isHeadRequest() ? ResponseParser.NO_BODY : ResponseParser.BODY;
  }

  @Override
  public boolean onBody(byte[] bytes, int offset, int length) {
    Http1Exchange ex = exchange;
    if (ex != null && ex.hasResponse()) {
      int outcome = ex.deliver(bytes, offset, length, stamp);
      if (outcome == Exchange.FAILED) {
        stop();
        return false;
      }
      if (outcome == Exchange.DONE) {
        startDraining();
      }
      return true;
    }
    if (draining) {
      drained += length;
      if (drained > NettyTransport.DRAIN_LIMIT_BYTES) {
        LOG.debug("closing connection to {}: more than {} bytes after the consumer was done", pool.authority(),
            NettyTransport.DRAIN_LIMIT_BYTES);
        drainingEnded(false);
        return false;
      }
      return true;
    }
    // body of a response whose exchange has already failed (its channel is closing) or that nobody asked for
    stop();
    return false;
  }

  @Override
  public boolean onEnd(boolean reusable) {
    keepAlive = reusable;
    Http1Exchange ex = exchange;
    if (ex != null && ex.hasResponse()) {
      long t = stamp;
      ex.markEnded();
      releaseOrClose();
      ex.reportEnd(t);
    } else if (draining) {
      drainingEnded(true);
    } else {
      stop();
      return false;
    }
    return !stopped;
  }

  /** Stops reading: the rest of what was read is dropped and the connection closes. */
  private void stop() {
    stopped = true;
    close();
  }

  private void decodeFailed(ResponseParser.Malformed cause) {
    Http1Exchange ex = exchange;
    if (ex != null) {
      ex.decodeFailed(this, cause);
    }
    stop();
  }

  private void releaseOrClose() {
    if (keepAlive && channel.isActive() && !pool.transport().isClosed()) {
      pool.release(this);
    } else {
      stop();
    }
  }

  private void startDraining() {
    draining = true;
    drained = 0;
    pool.drainingStarted(this);
    drainTimer = channel.eventLoop().schedule(this::drainExpired, DRAIN_LIMIT_NANOS, TimeUnit.NANOSECONDS);
  }

  /** Whether a request may wait for this connection's drained response to end; on its I/O thread. */
  boolean acceptsSuccessor() {
    return draining && successor == null && !stopped;
  }

  /**
   * {@code next} is sent on this connection as soon as its drained response ends (usually in the read that
   * is under way), or on a new connection if this one closes instead: a closed loop's next request does
   * not open a connection because the previous stream's HTTP message had not quite ended.
   */
  void successor(Http1Exchange next) {
    successor = next;
  }

  /**
   * The response being drained ended ({@code reusable}: its message is complete) or the connection is
   * closing. A waiting successor is started after the current read, so nothing else of that read can
   * reach it.
   */
  private void drainingEnded(boolean reusable) {
    if (!draining) {
      return;
    }
    draining = false;
    pool.drainingEnded(this);
    if (drainTimer != null) {
      drainTimer.cancel(false);
      drainTimer = null;
    }
    Http1Exchange next = successor;
    successor = null;
    boolean reuse = reusable && keepAlive && channel.isActive() && !pool.transport().isClosed();
    if (!reuse) {
      stop();
    }
    if (next == null) {
      if (reuse) {
        pool.release(this);
      }
    } else if (reuse) {
      channel.eventLoop().execute(() -> next.runPooled(this));
    } else {
      channel.eventLoop().execute(next::runNew);
    }
  }

  private void drainExpired() {
    drainTimer = null;
    if (draining) {
      LOG.debug("closing connection to {}: the response went on for 1 s after the consumer was done",
          pool.authority());
      drainingEnded(false);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    pool.dropIfIdle(this);
    if (!stopped) {
      try {
        parser.inputClosed(this); // ends a response whose body runs until the close
      } catch (ResponseParser.Malformed e) {
        Http1Exchange ex = exchange;
        if (ex != null) {
          ex.connectionLost(this, new PrematureChannelClosureException(e.getMessage()));
        }
      }
    }
    drainingEnded(false);
    Http1Exchange ex = exchange;
    if (ex != null) {
      ex.connectionLost(this, null);
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    Http1Exchange ex = exchange;
    if (ex != null) {
      ex.exceptionCaught(this, cause);
    } else {
      LOG.debug("connection to {} failed between exchanges: {}", pool.authority(), NettyTransport.describe(cause));
    }
    close();
  }

  @Override
  public String toString() {
    return "Connection[" + pool.authority() + (channel == null ? "" : ", " + channel.id()) + "]";
  }
}
