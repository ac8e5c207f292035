package io.infermark.core.transport.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/1.1 connection: the last handler of its channel's pipeline. It carries at most one
 * {@link Exchange} at a time, hands it the decoded response, and decides after each response
 * whether the connection goes back to its {@link HostPool}, is drained first, or is closed. Every
 * field except {@code idle} is confined to the channel's I/O thread.
 */
final class Connection extends ChannelInboundHandlerAdapter {

  private static final Logger LOG = LoggerFactory.getLogger(Connection.class);
  private static final AtomicIntegerFieldUpdater<Connection> IDLE =
      AtomicIntegerFieldUpdater.newUpdater(Connection.class, "idle");
  private static final long DRAIN_LIMIT_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final HostPool pool;
  private final Stamper stamper = new Stamper();
  private volatile Channel channel;
  private SslHandler ssl;

  /** The exchange this connection carries, or null between exchanges. */
  Exchange exchange;

  /** 1 while the connection sits in its pool; whoever flips it to 0 owns the connection. */
  private volatile int idle;
  private long idleSince;
  private int idleGeneration;

  /** Reading the body of a 1xx interim response, which is skipped. */
  private boolean skippingInterim;
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

  Stamper stamper() {
    return stamper;
  }

  /** The clock reading of the latest read of response bytes. */
  long readStamp() {
    return stamper.stamp;
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
    try {
      if (msg instanceof HttpObject o) {
        DecoderResult result = o.decoderResult();
        if (result.isFailure()) {
          decodeFailed(result.cause());
          return;
        }
      }
      if (msg instanceof HttpResponse r) {
        onHead(r);
      }
      if (msg instanceof HttpContent c) {
        onContent(c);
      }
    } finally {
      ReferenceCountUtil.release(msg);
    }
  }

  private void onHead(HttpResponse r) {
    Exchange ex = exchange;
    if (ex == null || ex.hasResponse()) {
      LOG.debug("closing connection to {}: a response nobody asked for", pool.authority());
      close();
      return;
    }
    int code = r.status().code();
    if (code >= 100 && code < 200 && code != 101) {
      skippingInterim = true;
      return;
    }
    keepAlive = HttpUtil.isKeepAlive(r);
    ex.onHead(code, r.headers(), stamper.stamp);
  }

  private void onContent(HttpContent c) {
    boolean last = c instanceof LastHttpContent;
    if (skippingInterim) {
      skippingInterim = !last;
      return;
    }
    Exchange ex = exchange;
    if (ex != null && ex.hasResponse()) {
      long t = stamper.stamp;
      int outcome = ex.deliver(c.content(), t);
      if (outcome == Exchange.FAILED) {
        return;
      }
      if (outcome == Exchange.DONE) {
        if (last) {
          releaseOrClose();
        } else {
          startDraining();
        }
        return;
      }
      if (last) {
        ex.markEnded();
        releaseOrClose();
        ex.reportEnd(t);
      }
      return;
    }
    if (draining) {
      drained += c.content().readableBytes();
      if (last) {
        stopDraining();
        releaseOrClose();
      } else if (drained > NettyTransport.DRAIN_LIMIT_BYTES) {
        LOG.debug("closing connection to {}: more than {} bytes after the consumer was done", pool.authority(),
            NettyTransport.DRAIN_LIMIT_BYTES);
        stopDraining();
        close();
      }
      return;
    }
    // content of a response whose exchange has already failed (its channel is closing) or that nobody asked for
    close();
  }

  private void decodeFailed(Throwable cause) {
    Exchange ex = exchange;
    if (ex != null) {
      ex.decodeFailed(this, cause);
    }
    close();
  }

  private void releaseOrClose() {
    if (keepAlive && channel.isActive() && !pool.transport().isClosed()) {
      pool.release(this);
    } else {
      close();
    }
  }

  private void startDraining() {
    draining = true;
    pool.drainingStarted(channel.eventLoop());
    drained = 0;
    drainTimer = channel.eventLoop().schedule(this::drainExpired, DRAIN_LIMIT_NANOS, TimeUnit.NANOSECONDS);
  }

  private void stopDraining() {
    if (draining) {
      draining = false;
      pool.drainingEnded();
    }
    if (drainTimer != null) {
      drainTimer.cancel(false);
      drainTimer = null;
    }
  }

  private void drainExpired() {
    drainTimer = null;
    if (draining) {
      LOG.debug("closing connection to {}: the response went on for 1 s after the consumer was done",
          pool.authority());
      draining = false;
      pool.drainingEnded();
      close();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    pool.dropIfIdle(this);
    stopDraining();
    Exchange ex = exchange;
    if (ex != null) {
      ex.connectionLost(this, null);
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    Exchange ex = exchange;
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

  /**
   * Sits before the HTTP decoder (after TLS) and reads the clock once per read of response bytes:
   * every message decoded from that read carries this stamp, and the read timeout only sees a field
   * write.
   */
  final class Stamper extends ChannelInboundHandlerAdapter {
    long stamp;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      Exchange ex = exchange;
      if (ex != null) {
        long t = ex.clock.nanoTime();
        stamp = t;
        ex.bytesRead(t);
      }
      ctx.fireChannelRead(msg);
    }
  }
}
