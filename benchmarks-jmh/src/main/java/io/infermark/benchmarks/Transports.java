package io.infermark.benchmarks;

import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.transport.OkHttpTransport;
import io.infermark.core.transport.netty.NettyTransport;
import java.util.Locale;

/**
 * Picks a transport by name for the measurements' command lines: {@code netty} (the default),
 * {@code netty-h2c} (the same over HTTP/2 with prior knowledge, against the simulator's h2c server) or
 * {@code okhttp}; harnesses without a transport argument read the system property
 * {@code -Dinfermark.transport=okhttp}. {@code -Dinfermark.ioThreads=N} gives the Netty transport N I/O
 * threads (default 1): in one JVM at 256 lockstep streams, 2 threads measured no better than 1 on the
 * 2-core VM (TTFT error p50 2.5-3.9 against 5.7-10.7 ms, p99 44-86 against 66-76 ms, at load 3-4.5).
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
        return b.transport(NettyTransport.builder().ioThreads(Integer.getInteger("infermark.ioThreads", 1)).build());
      case "netty-h2c":
        return b.transport(NettyTransport.builder().ioThreads(Integer.getInteger("infermark.ioThreads", 1))
            .httpVersion(io.infermark.core.transport.netty.HttpVersionPolicy.HTTP_2).build());
      case "okhttp":
        return b.transport(OkHttpTransport.create());
      default:
        throw new IllegalArgumentException("unknown transport \"" + name + "\": use netty, netty-h2c or okhttp");
    }
  }

  /** The simulator protocol the named transport speaks: h2c for {@code netty-h2c}, HTTP/1.1 otherwise. */
  static io.infermark.testkit.simulator.SimulatorProtocol simulatorProtocol(String name) {
    return name.equalsIgnoreCase("netty-h2c") ? io.infermark.testkit.simulator.SimulatorProtocol.H2C
        : io.infermark.testkit.simulator.SimulatorProtocol.HTTP_1_1;
  }

  /** As {@link #apply(OpenAiTarget.Builder, String)}, keeping idle connections for {@code keepAlive}. */
  static OpenAiTarget.Builder apply(OpenAiTarget.Builder b, String name, java.time.Duration keepAlive) {
    switch (name.toLowerCase(Locale.ROOT)) {
      case "netty":
        return b.transport(NettyTransport.builder().keepAlive(keepAlive)
            .ioThreads(Integer.getInteger("infermark.ioThreads", 1)).build());
      case "netty-h2c":
        return b.transport(NettyTransport.builder().keepAlive(keepAlive)
            .ioThreads(Integer.getInteger("infermark.ioThreads", 1))
            .httpVersion(io.infermark.core.transport.netty.HttpVersionPolicy.HTTP_2).build());
      case "okhttp":
        return b.keepAlive(keepAlive).httpClient(new okhttp3.OkHttpClient());
      default:
        throw new IllegalArgumentException("unknown transport \"" + name + "\": use netty, netty-h2c or okhttp");
    }
  }
}
