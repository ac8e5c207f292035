package io.infermark.core.health;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * What else the client's machine did during the run: how busy its cores were, all processes together, and
 * whether the server benchmarked runs on this machine (its host is a loopback address). A CPU-bound server on the
 * client's own cores (a CPU inference engine: llama.cpp, Ollama, Jlama) keeps every core busy and starves the
 * client; {@link ClientHealth} names it so when the figures show it.
 *
 * @param busyShare the share of the machine's cores that were busy over the span (Linux {@code /proc/stat}: time
 *     not idle and not waiting for I/O, over all time); empty where not measured
 * @param localServer the target's host when it is on this machine (loopback), else empty
 */
public record SharedMachine(OptionalDouble busyShare, Optional<String> localServer) {

  /** Nothing known. */
  public static final SharedMachine UNMEASURED = new SharedMachine(OptionalDouble.empty(), Optional.empty());

  /** At or above this busy share the machine counts as busy. */
  public static final double BUSY = 0.90;
  /**
   * At or above this run-queue wait per unit of run time the client's threads were starved noticeably (a quarter
   * of a millisecond per millisecond run): the wait the busy machine imposed on them.
   */
  public static final double STARVED_WAIT_PER_RUN = 0.25;

  /** Validates. */
  public SharedMachine {
    Objects.requireNonNull(busyShare, "busyShare");
    Objects.requireNonNull(localServer, "localServer");
  }

  /** Whether a URL's host is this machine: {@code localhost}, {@code 127.x.x.x} or {@code ::1}. */
  static Optional<String> localHost(String url) {
    try {
      String host = java.net.URI.create(url.strip()).getHost();
      if (host == null) {
        return Optional.empty();
      }
      String h = host.toLowerCase(Locale.ROOT);
      boolean local = h.equals("localhost") || h.startsWith("127.") || h.equals("[::1]") || h.equals("::1")
          || h.equals("0.0.0.0");
      return local ? Optional.of(host) : Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** The machine's CPU time counters at one instant ({@code /proc/stat}'s first line), for the busy share. */
  record Snapshot(long busyTicks, long totalTicks) {
    static final Snapshot NONE = new Snapshot(-1, -1);

    static Snapshot read() {
      return read(Path.of("/proc/stat"));
    }

    static Snapshot read(Path stat) {
      try {
        for (String line : Files.readAllLines(stat, StandardCharsets.US_ASCII)) {
          if (line.startsWith("cpu ")) {
            return parse(line);
          }
        }
      } catch (IOException | RuntimeException e) {
        // not Linux, or no /proc: nothing measured
      }
      return NONE;
    }

    /** {@code cpu  user nice system idle iowait irq softirq steal ...}: busy is all but idle and iowait. */
    static Snapshot parse(String line) {
      String[] f = line.trim().split("\\s+");
      long total = 0;
      long idle = 0;
      for (int i = 1; i < f.length && i <= 8; i++) {
        long v = Long.parseLong(f[i]);
        total += v;
        if (i == 4 || i == 5) {
          idle += v;
        }
      }
      return new Snapshot(total - idle, total);
    }

    boolean measured() {
      return totalTicks >= 0;
    }

    /** The busy share between this (earlier) snapshot and a later one; empty if either is missing or no time passed. */
    OptionalDouble busyShareUntil(Snapshot end) {
      if (!measured() || !end.measured() || end.totalTicks <= totalTicks) {
        return OptionalDouble.empty();
      }
      return OptionalDouble.of(Math.min(1, Math.max(0,
          (double) (end.busyTicks - busyTicks) / (end.totalTicks - totalTicks))));
    }
  }

  @Override
  public String toString() {
    return "SharedMachine[" + (busyShare.isPresent() ? String.format(Locale.ROOT, "%.0f %% busy",
        busyShare.getAsDouble() * 100) : "busy share unknown") + localServer.map(h -> ", server on it at " + h)
        .orElse("") + "]";
  }
}
