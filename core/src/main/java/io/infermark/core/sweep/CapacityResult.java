package io.infermark.core.sweep;

import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * What a capacity search found.
 *
 * @param capacity the highest rate whose run met the SLO; empty if none did down to the minimum rate
 * @param limitedByMaxRate true when even the maximum rate passed, so the real capacity is higher
 * @param probes every run, in the order they were made
 */
public record CapacityResult(OptionalDouble capacity, boolean limitedByMaxRate, List<CapacityProbe> probes) {

  /** Copies. */
  public CapacityResult {
    probes = List.copyOf(probes);
  }

  /** How many runs the search made. */
  public int runs() {
    return probes.size();
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "CapacityResult[%s in %d runs%s]",
        capacity.isPresent() ? String.format(Locale.ROOT, "%.4g req/s", capacity.getAsDouble()) : "no passing rate",
        probes.size(), limitedByMaxRate ? ", limited by the maximum rate" : "");
  }
}
