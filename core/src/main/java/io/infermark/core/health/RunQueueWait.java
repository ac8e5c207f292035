package io.infermark.core.health;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * How long the client's threads waited for a core while they were ready to run, beside how long they
 * ran: the kernel's own account of starvation. A thread that is runnable but finds every core taken
 * waits on the run queue; Linux counts that wait per thread ({@code /proc/self/task/<tid>/schedstat}:
 * time on a core, time waiting on a run queue, both in nanoseconds). When other processes take the
 * cores (CPU hogs, a busy neighbour, a container's CPU quota), the client's own CPU use stays low and
 * its hiccup meter sees only part of it; the wait shows it whole.
 *
 * <p>The threads counted are the client's own, the ones that send, read and stamp: every thread whose
 * name starts with {@code infermark-}, except the in-JVM simulator's ({@code infermark-sim}), as the kernel
 * knows them (the first 15 bytes of the name). Threads that start during the span count from zero; threads
 * that end during it drop out.
 *
 * <p>{@link #waitPerRun()} is the wait per unit of run time: 0.25 means a thread that needed 4 ms of CPU
 * got it over 5 ms. At 1 the client's threads waited as long for a core as they ran, so every piece of
 * client work took at least twice as long as it should have.
 *
 * @param runNanos time the counted threads spent on a core over the span
 * @param waitNanos time they spent runnable but waiting for a core over the span
 * @param threads how many threads were counted; 0 when nothing was measured (not Linux, or no
 *     {@code /proc})
 */
public record RunQueueWait(long runNanos, long waitNanos, int threads) {

  /** Nothing measured: the platform does not report run-queue waits. */
  public static final RunQueueWait UNMEASURED = new RunQueueWait(0, 0, 0);

  /** The name prefix of the threads counted. */
  static final String CLIENT_PREFIX = "infermark-";
  /** The name prefix of the in-JVM simulator's threads, which are not counted. */
  static final String SIMULATOR_PREFIX = "infermark-sim";
  /**
   * Below this much run time the ratio is not judged: with a few milliseconds of CPU a single wait of a
   * scheduler period would decide it.
   */
  public static final long MIN_JUDGED_RUN_NANOS = 50_000_000L;

  /** Validates. */
  public RunQueueWait {
    if (runNanos < 0 || waitNanos < 0 || threads < 0) {
      throw new IllegalArgumentException("run, wait and threads must be >= 0, were " + runNanos + ", " + waitNanos
          + ", " + threads);
    }
  }

  /** Whether anything was measured. */
  public boolean isMeasured() {
    return threads > 0;
  }

  /** Wait per unit of run time; empty when unmeasured or the threads never ran. */
  public OptionalDouble waitPerRun() {
    return isMeasured() && runNanos > 0 ? OptionalDouble.of((double) waitNanos / runNanos) : OptionalDouble.empty();
  }

  /** Whether there is enough run time for {@link #waitPerRun()} to be judged ({@link #MIN_JUDGED_RUN_NANOS}). */
  public boolean isJudged() {
    return isMeasured() && runNanos >= MIN_JUDGED_RUN_NANOS;
  }

  /** What the counted threads did between two readings of {@link Snapshot#read(Path)}. */
  static RunQueueWait between(Snapshot start, Snapshot end) {
    if (!start.measured() || !end.measured()) {
      return UNMEASURED;
    }
    long run = 0;
    long wait = 0;
    int threads = 0;
    for (Map.Entry<String, long[]> e : end.threads().entrySet()) {
      long[] before = start.threads().getOrDefault(e.getKey(), new long[2]);
      run += Math.max(0, e.getValue()[0] - before[0]);
      wait += Math.max(0, e.getValue()[1] - before[1]);
      threads++;
    }
    return threads == 0 ? UNMEASURED : new RunQueueWait(run, wait, threads);
  }

  @Override
  public String toString() {
    if (!isMeasured()) {
      return "RunQueueWait[unmeasured]";
    }
    return String.format(Locale.ROOT, "RunQueueWait[%d threads ran %.1f ms, waited %.1f ms for a core]", threads,
        runNanos / 1e6, waitNanos / 1e6);
  }

  /**
   * Per-thread run and wait times of the counted threads at one moment, keyed by thread id and name (a
   * recycled id with another name is another thread).
   */
  record Snapshot(boolean measured, Map<String, long[]> threads) {

    /** The process's own task directory on Linux. */
    static final Path SELF = Path.of("/proc/self/task");

    static final Snapshot NONE = new Snapshot(false, Map.of());

    /** Reads {@code taskDir/<tid>/comm} and {@code schedstat}; {@link #NONE} when the directory cannot be read. */
    static Snapshot read(Path taskDir) {
      if (!Files.isDirectory(taskDir)) {
        return NONE;
      }
      Map<String, long[]> threads = new HashMap<>();
      try (DirectoryStream<Path> tasks = Files.newDirectoryStream(taskDir)) {
        for (Path task : tasks) {
          Optional<String> name = firstLine(task.resolve("comm"));
          if (name.isEmpty() || !name.get().startsWith(CLIENT_PREFIX) || name.get().startsWith(SIMULATOR_PREFIX)) {
            continue;
          }
          Optional<String> stat = firstLine(task.resolve("schedstat"));
          if (stat.isEmpty()) {
            continue;
          }
          String[] fields = stat.get().trim().split("\\s+");
          if (fields.length < 2) {
            continue;
          }
          try {
            threads.put(task.getFileName() + "/" + name.get(),
                new long[] {Long.parseLong(fields[0]), Long.parseLong(fields[1])});
          } catch (NumberFormatException e) {
            // a kernel that writes something else here: leave the thread out
          }
        }
      } catch (IOException | SecurityException e) {
        return NONE;
      }
      return new Snapshot(true, threads);
    }

    private static Optional<String> firstLine(Path file) {
      try {
        String s = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
        int nl = s.indexOf('\n');
        return Optional.of(nl >= 0 ? s.substring(0, nl) : s);
      } catch (IOException | SecurityException e) {
        return Optional.empty(); // the thread ended between the listing and the read
      }
    }
  }
}
