package io.infermark.testkit.simulator;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/** Waits for a condition on observable state (never for a guessed amount of time). */
final class Await {

  private Await() {}

  static void until(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out waiting until " + what);
      }
      LockSupport.parkNanos(100_000);
    }
  }
}
