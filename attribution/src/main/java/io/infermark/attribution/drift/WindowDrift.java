package io.infermark.attribution.drift;

import java.util.Locale;
import java.util.Optional;

/**
 * One window compared with its reference window (the first, or the one before it).
 *
 * @param window the window
 * @param referenceIndex the index of the window it was compared with
 * @param valueCount how many values of the metric the window had
 * @param referenceValueCount how many values the reference window had
 * @param report the comparison; empty when either window had fewer than 2 values
 */
public record WindowDrift(TimeWindow window, int referenceIndex, int valueCount, int referenceValueCount,
    Optional<DriftReport> report) {

  /** One line, e.g. {@code WindowDrift[#5 vs #0, 1 values: too few values (this window 1, reference 2)]}. */
  @Override
  public String toString() {
    return String.format(Locale.ROOT, "WindowDrift[#%d vs #%d, %d values: %s]", window.index(), referenceIndex,
        valueCount, report.map(DriftReport::toString).orElse(String.format(Locale.ROOT,
            "too few values (this window %d, reference %d; 2 needed)", valueCount, referenceValueCount)));
  }
}
