package io.infermark.core.transport.netty;

import io.netty.channel.EventLoop;
import java.util.Iterator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The idle keep-alive connections to one scheme, host and port. Connections are taken from any
 * thread (the caller of {@code start}) and returned on their own I/O thread; a connection's
 * {@code idle} flag, flipped by compare-and-set, decides who owns it when taking, expiry and the
 * server's close race. Most recently used first, so the connection least likely to have been closed
 * by the server is reused.
 */
final class HostPool {

  private final NettyTransport transport;
  private final PoolKey key;
  private final String authority;
  private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();
  private final AtomicInteger idleCount = new AtomicInteger();
  /** Connections whose consumer was done before their response ended: they return to the pool soon. */
  private final Set<Connection> draining = ConcurrentHashMap.newKeySet();

  HostPool(NettyTransport transport, PoolKey key) {
    this.transport = transport;
    this.key = key;
    this.authority = key.authority();
  }

  PoolKey key() {
    return key;
  }

  /** {@code host:port} for messages. */
  String authority() {
    return authority;
  }

  NettyTransport transport() {
    return transport;
  }

  int idleCount() {
    return idleCount.get();
  }

  /** An idle, open, unexpired connection now owned by the caller, or null when there is none. */
  Connection acquire() {
    long now = System.nanoTime();
    Connection c;
    while ((c = idle.pollLast()) != null) {
      if (!c.claimIdle()) {
        continue; // expiry or the server's close got it first
      }
      idleCount.decrementAndGet();
      if (c.channel().isActive() && now - c.idleSince() < transport.keepAliveNanos()) {
        return c;
      }
      c.close();
    }
    return null;
  }

  /** {@code c} waits for the end of a response nobody reads any more; on its I/O thread. */
  void drainingStarted(Connection c) {
    draining.add(c);
  }

  /** A draining connection's response ended, or it closed. */
  void drainingEnded(Connection c) {
    draining.remove(c);
  }

  /**
   * The I/O thread of a connection that is draining, if any: a request that found no idle connection
   * looks there, on that thread, before it opens a new connection.
   */
  EventLoop drainingLoop() {
    for (Connection c : draining) {
      return c.channel().eventLoop();
    }
    return null;
  }

  /** A draining connection on {@code loop} that no request waits for yet, or null; called on {@code loop}. */
  Connection drainingOn(EventLoop loop) {
    for (Connection c : draining) {
      if (c.channel().eventLoop() == loop && c.acceptsSuccessor()) {
        return c;
      }
    }
    return null;
  }

  /** Like {@link #acquire()}, for a connection on {@code loop} only; called on {@code loop}. */
  Connection acquireOn(EventLoop loop) {
    long now = System.nanoTime();
    for (Iterator<Connection> it = idle.descendingIterator(); it.hasNext(); ) {
      Connection c = it.next();
      if (c.channel().eventLoop() != loop || !c.claimIdle()) {
        continue;
      }
      idle.remove(c);
      idleCount.decrementAndGet();
      if (c.channel().isActive() && now - c.idleSince() < transport.keepAliveNanos()) {
        return c;
      }
      c.close();
    }
    return null;
  }

  /** Called on the connection's I/O thread when its response has ended and it may be reused. */
  void release(Connection c) {
    if (transport.isClosed() || idleCount.incrementAndGet() > transport.pools().maxIdlePerHost()) {
      idleCount.decrementAndGet();
      c.close();
      return;
    }
    int generation = c.markIdle(System.nanoTime());
    idle.offerLast(c);
    c.channel().eventLoop().schedule(() -> expire(c, generation), transport.keepAliveNanos(), TimeUnit.NANOSECONDS);
  }

  /** Closes {@code c} if it is still idle since the release numbered {@code generation}. */
  private void expire(Connection c, int generation) {
    if (c.idleGeneration() == generation && c.claimIdle()) {
      idleCount.decrementAndGet();
      idle.remove(c);
      c.close();
    }
  }

  /** Removes {@code c} if it is idle: its channel has closed. */
  void dropIfIdle(Connection c) {
    if (c.claimIdle()) {
      idleCount.decrementAndGet();
      idle.remove(c);
    }
  }
}
