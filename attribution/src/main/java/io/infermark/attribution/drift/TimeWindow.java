package io.infermark.attribution.drift;

import io.infermark.core.capture.RequestRecord;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One time window of a run: the records sent in {@code [startNanos, endNanos)}, times from the run's
 * origin like {@link RequestRecord#sendNanos()}.
 *
 * @param index the window's position, 0 for the first
 * @param startNanos inclusive start, ns from the run origin
 * @param endNanos exclusive end, ns from the run origin
 * @param records the records sent in the window, in input order (may be empty)
 */
public record TimeWindow(int index, long startNanos, long endNanos, List<RequestRecord> records) {

  /** Validates and copies. */
  public TimeWindow {
    Objects.requireNonNull(records, "records");
    records = List.copyOf(records);
    if (endNanos <= startNanos) {
      throw new IllegalArgumentException("window end " + endNanos + " ns must be after its start " + startNanos
          + " ns");
    }
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "TimeWindow[#%d %.3f-%.3f s, %d records]", index, startNanos / 1e9,
        endNanos / 1e9, records.size());
  }
}
