package io.infermark.core.time;

/**
 * The one monotonic time source of a run: every timestamp infermark records comes from here.
 *
 * <p>Production code uses {@link #system()}, which reads {@link System#nanoTime()}. Tests inject a
 * controllable clock instead of sleeping. Values are only meaningful as differences between two
 * readings of the same clock.
 */
@FunctionalInterface
public interface Clock {

  /** Returns the current reading in nanoseconds; only differences between readings mean anything. */
  long nanoTime();

  /** The clock backed by {@link System#nanoTime()}. */
  static Clock system() {
    return SystemClock.INSTANCE;
  }
}

/** The default {@link Clock}; an enum so it is a serialisation-safe singleton. */
enum SystemClock implements Clock {
  INSTANCE;

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }

  @Override
  public String toString() {
    return "Clock.system()";
  }
}
