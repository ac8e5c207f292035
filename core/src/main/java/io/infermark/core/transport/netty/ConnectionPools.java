package io.infermark.core.transport.netty;

import io.infermark.core.transport.OutboundRequest;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Everything a {@link NettyTransport} knows about its connections, and its closed flag: the HTTP/1.1
 * keep-alive pools by host, the HTTP/2 pools by host and I/O thread, the hosts that chose HTTP/1.1
 * by ALPN, every open channel (so {@link #close()} can end them), the idle limit per host and what
 * each HTTP/2 server announced. Thread-safe: pools are found from any caller's thread, connections
 * register from their I/O threads.
 *
 * <p>A connection registers as it is opened; {@link #close()} sets the flag before it closes what is
 * registered, and {@code register} checks the flag after adding, so a connection opened while the
 * transport closes is either closed by {@code close()} or refused by {@code register} (and closed by
 * its opener), never left open.
 */
final class ConnectionPools {

  /** One I/O thread's HTTP/2 connections to one host. */
  private record H2Key(PoolKey key, EventLoop loop) {}

  private final NettyTransport transport;
  private final AtomicInteger maxIdlePerHost;
  private final ConcurrentHashMap<PoolKey, HostPool> http1Pools = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<H2Key, H2Pool> http2Pools = new ConcurrentHashMap<>();
  /** TLS servers that chose HTTP/1.1 by ALPN under {@link HttpVersionPolicy#AUTO}. */
  private final Set<PoolKey> http1Hosts = ConcurrentHashMap.newKeySet();
  private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
  private final Set<Channel> h2Channels = ConcurrentHashMap.newKeySet();
  private final ConcurrentHashMap<String, Http2Settings> serverSettings = new ConcurrentHashMap<>();
  private final AtomicBoolean closed = new AtomicBoolean();

  ConnectionPools(NettyTransport transport, int maxIdlePerHost) {
    this.transport = transport;
    this.maxIdlePerHost = new AtomicInteger(maxIdlePerHost);
  }

  /** The HTTP/1.1 keep-alive pool for {@code key}, created on first use. */
  HostPool http1(PoolKey key) {
    return http1Pools.computeIfAbsent(key, k -> new HostPool(transport, k));
  }

  /** The HTTP/2 connections to {@code key} that {@code loop} owns, created on first use. */
  H2Pool http2(PoolKey key, EventLoop loop) {
    return http2Pools.computeIfAbsent(new H2Key(key, loop), k -> new H2Pool(transport, key, loop));
  }

  /** Whether the TLS server {@code r} goes to chose HTTP/1.1 by ALPN; no key is made while no server has. */
  boolean choseHttp1(OutboundRequest r) {
    return !http1Hosts.isEmpty() && http1Hosts.contains(PoolKey.of(r));
  }

  /** The TLS server at {@code key} chose HTTP/1.1 by ALPN: its requests go over HTTP/1.1 from now on. */
  void markChoseHttp1(PoolKey key) {
    http1Hosts.add(key);
  }

  int maxIdlePerHost() {
    return maxIdlePerHost.get();
  }

  /** Keeps up to {@code n} idle connections per host; never lowers the limit. */
  void raiseMaxIdlePerHost(int n) {
    maxIdlePerHost.accumulateAndGet(n, Math::max);
  }

  /** Remembers what an HTTP/2 server announced; true when it differs from what it announced before. */
  boolean serverSettings(Http2Settings settings) {
    return !settings.equals(serverSettings.put(settings.authority(), settings));
  }

  /** What each HTTP/2 server announced in the SETTINGS of its latest connection. */
  List<Http2Settings> serverSettings() {
    return List.copyOf(serverSettings.values());
  }

  boolean isClosed() {
    return closed.get();
  }

  /** Tracks an open HTTP/1.1 connection so {@link #close()} can end it; false when already closed. */
  boolean register(Connection c) {
    connections.add(c);
    if (closed.get()) {
      connections.remove(c);
      return false;
    }
    return true;
  }

  void forget(Connection c) {
    connections.remove(c);
  }

  /** Tracks an open HTTP/2 channel so {@link #close()} can end it; false when already closed. */
  boolean register(Channel ch) {
    h2Channels.add(ch);
    ch.closeFuture().addListener(f -> h2Channels.remove(ch));
    if (closed.get()) {
      h2Channels.remove(ch);
      return false;
    }
    return true;
  }

  /** Marks the transport closed and closes every connection; false when it was closed already. */
  boolean close() {
    if (!closed.compareAndSet(false, true)) {
      return false;
    }
    for (Connection c : connections) {
      c.close();
    }
    for (Channel ch : h2Channels) {
      ch.close();
    }
    return true;
  }

  /** How many HTTP/2 connections are open, for tests. */
  int openHttp2Connections() {
    return h2Channels.size();
  }

  /** The HTTP/1.1 channels currently open, for tests. */
  List<Channel> openChannels() {
    return connections.stream().map(Connection::channel).filter(Objects::nonNull).toList();
  }

  /** The idle pooled connections to {@code host:port} over {@code scheme}, for tests. */
  int idleConnections(String scheme, String host, int port) {
    HostPool p = http1Pools.get(new PoolKey(host.toLowerCase(Locale.ROOT), port, scheme.equalsIgnoreCase("https")));
    return p == null ? 0 : p.idleCount();
  }
}
