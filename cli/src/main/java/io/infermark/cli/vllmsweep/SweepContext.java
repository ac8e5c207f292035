package io.infermark.cli.vllmsweep;

import io.infermark.core.time.Clock;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.function.IntSupplier;

/**
 * What a sweep writes to and runs with: the command's output and error streams, the in-JVM bench, the clock and
 * the grace a stopped server gets before it is killed.
 *
 * @param out where the sweep's progress goes (vLLM's stdout)
 * @param err where errors go
 * @param bench runs {@code infermark bench} in this JVM
 * @param clock the monotonic clock start-up times are read from
 * @param stopGrace how long a SIGTERM'd server may take to exit before SIGKILL
 * @param stopSignal the exit code of a stop signal the process received (130 SIGINT, 143 SIGTERM), 0 while none
 */
record SweepContext(PrintWriter out, PrintWriter err, BenchRunner bench, Clock clock, Duration stopGrace,
    IntSupplier stopSignal) {

  /**
   * Ends the sweep if a stop signal came: nothing more is started.
   *
   * @throws Stopped if one came
   */
  void checkStop() {
    int code = stopSignal.getAsInt();
    if (code != 0) {
      throw new Stopped(code);
    }
  }

  /** A stop signal ended the sweep; {@link #exitCode()} is the process's exit code for it. */
  static final class Stopped extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int exitCode;

    Stopped(int exitCode) {
      super("stopped by " + (exitCode == 130 ? "SIGINT" : exitCode == 143 ? "SIGTERM" : "a signal"));
      this.exitCode = exitCode;
    }

    int exitCode() {
      return exitCode;
    }
  }
}
