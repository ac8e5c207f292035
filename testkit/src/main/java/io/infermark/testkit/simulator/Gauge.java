package io.infermark.testkit.simulator;

import java.util.concurrent.atomic.AtomicInteger;

/** A concurrent count of things in progress that also remembers the highest count it reached. */
final class Gauge {

  private final AtomicInteger current = new AtomicInteger();
  private final AtomicInteger peak = new AtomicInteger();

  void increment() {
    int now = current.incrementAndGet();
    peak.accumulateAndGet(now, Math::max);
  }

  void decrement() {
    current.decrementAndGet();
  }

  int current() {
    return current.get();
  }

  int peak() {
    return peak.get();
  }
}
