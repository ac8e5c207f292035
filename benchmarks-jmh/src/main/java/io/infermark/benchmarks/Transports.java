package io.infermark.benchmarks;

import io.infermark.core.target.OpenAiTarget;
import io.infermark.core.transport.OkHttpTransport;
import io.infermark.core.transport.netty.NettyTransport;
import java.util.Locale;

/**
 * Picks a transport by name for the measurements' command lines: {@code netty} (the default) or
 * {@code okhttp}; harnesses without a transport argument read the system property
 * {@code -Dinfermark.transport=okhttp}.
 */
final class Transports {

  private Transports() {}

  /** The transport named by the system property {@code infermark.transport}, {@code netty} if unset. */
  static String chosen() {
    return System.getProperty("infermark.transport", "netty");
  }

  /** The builder with the named transport set. */
  static OpenAiTarget.Builder apply(OpenAiTarget.Builder b, String name) {
    switch (name.toLowerCase(Locale.ROOT)) {
      case "netty":
        return b.transport(NettyTransport.create());
      case "okhttp":
        return b.transport(OkHttpTransport.create());
      default:
        throw new IllegalArgumentException("unknown transport \"" + name + "\": use netty or okhttp");
    }
  }

  /** As {@link #apply(OpenAiTarget.Builder, String)}, keeping idle connections for {@code keepAlive}. */
  static OpenAiTarget.Builder apply(OpenAiTarget.Builder b, String name, java.time.Duration keepAlive) {
    switch (name.toLowerCase(Locale.ROOT)) {
      case "netty":
        return b.transport(NettyTransport.builder().keepAlive(keepAlive).build());
      case "okhttp":
        return b.keepAlive(keepAlive).httpClient(new okhttp3.OkHttpClient());
      default:
        throw new IllegalArgumentException("unknown transport \"" + name + "\": use netty or okhttp");
    }
  }
}
