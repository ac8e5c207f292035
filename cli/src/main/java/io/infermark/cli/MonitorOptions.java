package io.infermark.cli;

import io.infermark.core.Benchmark;
import io.infermark.core.health.ClientMonitoring;
import java.util.Locale;
import picocli.CommandLine.Option;

/** How much of its own machine the client watches ({@code --client-monitors}), for a machine it shares. */
final class MonitorOptions {

  @Option(names = "--client-monitors", paramLabel = "LEVEL", defaultValue = "full",
      description = "full (default: a hiccup meter whose wakes follow the load, I/O-thread probes, GC, CPU), reduced "
          + "(a 10 ms hiccup meter, no probes) or off (no monitor; the client's health is then unmeasured). For a "
          + "machine shared with a CPU-bound server.")
  String level;

  /** The level asked for. */
  ClientMonitoring level() {
    return switch (level.strip().toLowerCase(Locale.ROOT)) {
      case "full" -> ClientMonitoring.FULL;
      case "reduced" -> ClientMonitoring.REDUCED;
      case "off" -> ClientMonitoring.OFF;
      default -> throw new IllegalArgumentException("--client-monitors must be full, reduced or off, was " + level);
    };
  }

  /** The benchmark with that level. */
  Benchmark apply(Benchmark b) {
    return b.clientMonitoring(level());
  }
}
