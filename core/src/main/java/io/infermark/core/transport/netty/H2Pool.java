package io.infermark.core.transport.netty;

import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;

/**
 * The HTTP/2 connections to one scheme, host and port that one I/O thread owns; every method runs on
 * that thread. A request goes out as a stream on the first established connection with a free
 * stream, else waits for a connection being opened that has room, else opens a new one: streams are
 * packed onto as few connections as the stream limit allows, and no request ever waits for another
 * request's stream to end.
 */
final class H2Pool {

  private final NettyTransport transport;
  private final PoolKey key;
  private final String authority;
  private final EventLoop loop;
  private final List<H2Connection> connections = new ArrayList<>();

  H2Pool(NettyTransport transport, PoolKey key, EventLoop loop) {
    this.transport = transport;
    this.key = key;
    this.authority = key.authority();
    this.loop = loop;
  }

  NettyTransport transport() {
    return transport;
  }

  PoolKey key() {
    return key;
  }

  String authority() {
    return authority;
  }

  EventLoop loop() {
    return loop;
  }

  /** Places {@code s}: on a connection with a free stream, or one being opened, or a new one. */
  void dispatch(H2Stream s) {
    H2Connection waiting = null;
    for (H2Connection c : connections) {
      if (c.hasRoom()) {
        if (c.isReady()) {
          if (s.begin(true)) {
            c.start(s);
          }
          return;
        }
        if (waiting == null) {
          waiting = c;
        }
      }
    }
    if (!s.begin(false)) {
      return;
    }
    if (waiting != null) {
      waiting.enqueue(s);
      return;
    }
    H2Connection c = new H2Connection(this);
    connections.add(c);
    c.open(s);
  }

  /** {@code c} takes no more streams (closed, or going away). */
  void retire(H2Connection c) {
    connections.remove(c);
  }

  /** How many connections are open or opening, for tests. */
  int size() {
    return connections.size();
  }
}
