package io.infermark.core.health;

import java.util.Locale;

/**
 * The stop-the-world garbage-collection pauses of a span of time: how many, their total and the
 * longest. Concurrent collection cycles, which run beside the application instead of stopping it
 * (G1's "G1 Concurrent GC", ZGC's and Shenandoah's "… Cycles" collectors), are not pauses and are not
 * counted. The JVM reports pause durations in whole milliseconds.
 *
 * @param count pauses that ended within the span
 * @param totalNanos their summed duration
 * @param maxNanos the longest
 */
public record GcPauses(long count, long totalNanos, long maxNanos) {

  /** No pauses. */
  public static final GcPauses NONE = new GcPauses(0, 0, 0);

  /** Validates. */
  public GcPauses {
    if (count < 0 || totalNanos < 0 || maxNanos < 0 || maxNanos > totalNanos) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "need 0 <= max <= total and count >= 0, were count %d, total %d ns, max %d ns", count, totalNanos,
          maxNanos));
    }
  }

  /** The share of {@code wallNanos} spent in pauses, 0 when the span is empty. */
  public double shareOf(long wallNanos) {
    return wallNanos <= 0 ? 0 : (double) totalNanos / wallNanos;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "GcPauses[%d, total %.1f ms, max %.1f ms]", count, totalNanos / 1e6,
        maxNanos / 1e6);
  }
}
