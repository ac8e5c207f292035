package io.infermark.core.transport.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

/**
 * How a {@link NettyTransport} opens its channels: one Netty {@link Bootstrap} (native epoll or NIO,
 * {@code TCP_NODELAY}, keep-alive, no Netty resolver: the exchange resolves), the TLS contexts, and
 * each channel's pipeline (TLS, then the HTTP/1.1 request encoder and its {@link Connection}, or the
 * {@link H2Connection}'s codec). Thread-safe; the TLS contexts are built on the first https
 * connection, since setting up TLS loads hundreds of classes a plain-http run never needs.
 */
final class Bootstraps {

  private final Bootstrap bootstrap;
  private final Supplier<SslContext> sslContext;
  /** TLS with ALPN for HTTP/2 connections; null when the transport speaks HTTP/1.1 only. */
  private final Supplier<SslContext> h2SslContext;

  Bootstraps(boolean epoll, boolean insecure, Optional<TrustManagerFactory> trust, HttpVersionPolicy httpVersion) {
    this.sslContext = memoized(() -> sslContext(insecure, trust, List.of()));
    this.h2SslContext = switch (httpVersion) {
      case HTTP_1_1 -> null;
      case HTTP_2 -> memoized(() -> sslContext(insecure, trust, List.of(ApplicationProtocolNames.HTTP_2)));
      case AUTO -> memoized(() -> sslContext(insecure, trust, List.of(ApplicationProtocolNames.HTTP_2,
          ApplicationProtocolNames.HTTP_1_1)));
    };
    this.bootstrap = new Bootstrap()
        .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
        .option(ChannelOption.TCP_NODELAY, true)
        .option(ChannelOption.SO_KEEPALIVE, true)
        .disableResolver();
  }

  private static SslContext sslContext(boolean insecure, Optional<TrustManagerFactory> trust, List<String> alpn) {
    try {
      SslContextBuilder ssl = SslContextBuilder.forClient();
      if (insecure) {
        ssl.trustManager(InsecureTrustManagerFactory.INSTANCE).endpointIdentificationAlgorithm(null);
      } else {
        ssl.endpointIdentificationAlgorithm("HTTPS");
        trust.ifPresent(ssl::trustManager);
      }
      if (!alpn.isEmpty()) {
        // HTTP/2 forbids the TLS 1.2 cipher suites on RFC 9113's block list
        ssl.ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE)
            .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, alpn));
      }
      return ssl.build();
    } catch (SSLException e) {
      throw new IllegalStateException("cannot set up TLS for the Netty transport: " + e.getMessage(), e);
    }
  }

  /** Opens an HTTP/1.1 channel on {@code loop} for {@code connection}; the caller connects it. */
  Bootstrap http1(EventLoop loop, int connectTimeoutMillis, Connection connection) {
    PoolKey key = connection.pool().key();
    return opening(loop, connectTimeoutMillis, ch -> {
      connection.channel(ch);
      if (key.secure()) {
        SslHandler ssl = sslContext.get().newHandler(ch.alloc(), key.host(), key.port());
        ssl.setHandshakeTimeoutMillis(connectTimeoutMillis);
        ch.pipeline().addLast("tls", ssl);
        connection.ssl(ssl);
      }
      ch.pipeline().addLast("http", new HttpRequestEncoder());
      ch.pipeline().addLast("exchange", connection);
    });
  }

  /** Opens an HTTP/2 channel on {@code loop} for {@code connection}; the caller connects it. */
  Bootstrap http2(EventLoop loop, int connectTimeoutMillis, H2Connection connection) {
    PoolKey key = connection.key();
    return opening(loop, connectTimeoutMillis, ch -> {
      SslHandler ssl = null;
      if (key.secure()) {
        ssl = h2SslContext.get().newHandler(ch.alloc(), key.host(), key.port());
        ssl.setHandshakeTimeoutMillis(connectTimeoutMillis);
      }
      connection.initChannel(ch, ssl);
    });
  }

  private Bootstrap opening(EventLoop loop, int connectTimeoutMillis, Consumer<Channel> pipeline) {
    return bootstrap.clone(loop)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis)
        .handler(new ChannelInitializer<Channel>() {
          @Override
          protected void initChannel(Channel ch) {
            pipeline.accept(ch);
          }
        });
  }

  /** A supplier that computes its value once, on the first call, and returns it from then on; thread-safe. */
  private static <T> Supplier<T> memoized(Supplier<T> compute) {
    return new Supplier<>() {
      private volatile T value;

      @Override
      public T get() {
        T v = value;
        if (v == null) {
          synchronized (this) {
            v = value;
            if (v == null) {
              v = compute.get();
              value = v;
            }
          }
        }
        return v;
      }
    };
  }
}
