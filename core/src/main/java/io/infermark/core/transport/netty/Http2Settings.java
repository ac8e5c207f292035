package io.infermark.core.transport.netty;

import java.util.OptionalLong;

/**
 * What an HTTP/2 server announced in its first SETTINGS frame: the limits every stream of the
 * connection ran under. Values the server left out are empty (the protocol's defaults apply: no limit
 * on concurrent streams, a 65,535-byte initial window, 16,384-byte frames).
 *
 * @param authority {@code host:port} of the server
 * @param maxConcurrentStreams SETTINGS_MAX_CONCURRENT_STREAMS, if sent
 * @param initialWindowSize SETTINGS_INITIAL_WINDOW_SIZE in bytes, if sent
 * @param maxFrameSize SETTINGS_MAX_FRAME_SIZE in bytes, if sent
 * @param maxHeaderListSize SETTINGS_MAX_HEADER_LIST_SIZE in bytes, if sent
 */
public record Http2Settings(String authority, OptionalLong maxConcurrentStreams, OptionalLong initialWindowSize,
    OptionalLong maxFrameSize, OptionalLong maxHeaderListSize) {

  /** Validates that nothing is null. */
  public Http2Settings {
    java.util.Objects.requireNonNull(authority, "authority");
    java.util.Objects.requireNonNull(maxConcurrentStreams, "maxConcurrentStreams");
    java.util.Objects.requireNonNull(initialWindowSize, "initialWindowSize");
    java.util.Objects.requireNonNull(maxFrameSize, "maxFrameSize");
    java.util.Objects.requireNonNull(maxHeaderListSize, "maxHeaderListSize");
  }

  static Http2Settings of(String authority, io.netty.handler.codec.http2.Http2Settings s) {
    return new Http2Settings(authority, opt(s.maxConcurrentStreams()), opt(s.initialWindowSize()),
        opt(s.maxFrameSize()), opt(s.maxHeaderListSize()));
  }

  private static OptionalLong opt(Number n) {
    return n == null ? OptionalLong.empty() : OptionalLong.of(n.longValue());
  }

  /** One line: {@code host:port max_concurrent_streams=100 initial_window=65535 ...}, absent ones left out. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("Http2Settings[").append(authority);
    maxConcurrentStreams.ifPresent(v -> b.append(" max_concurrent_streams=").append(v));
    initialWindowSize.ifPresent(v -> b.append(" initial_window=").append(v));
    maxFrameSize.ifPresent(v -> b.append(" max_frame=").append(v));
    maxHeaderListSize.ifPresent(v -> b.append(" max_header_list=").append(v));
    return b.append(']').toString();
  }
}
