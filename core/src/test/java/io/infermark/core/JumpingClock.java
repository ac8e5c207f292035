package io.infermark.core;

import io.infermark.core.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The system clock plus an offset a test can jump forward, so a test decides when a run's deadline
 * has passed instead of racing it; waits still elapse in real time.
 */
final class JumpingClock implements Clock {

  private final AtomicLong offset = new AtomicLong();

  @Override
  public long nanoTime() {
    return System.nanoTime() + offset.get();
  }

  void jump(Duration d) {
    offset.addAndGet(d.toNanos());
  }
}
