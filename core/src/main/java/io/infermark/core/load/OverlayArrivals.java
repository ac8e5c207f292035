package io.infermark.core.load;

import java.util.List;
import java.util.OptionalDouble;
import java.util.stream.Collectors;

/**
 * Several processes at once, their schedules merged in time order; see
 * {@link ArrivalProcess#overlay(List)}. Component {@code k} is seeded with {@code Randoms.mix(seed, k)}.
 */
final class OverlayArrivals implements ArrivalProcess {
  private final List<ArrivalProcess> parts;

  OverlayArrivals(List<ArrivalProcess> parts) {
    if (parts.isEmpty()) {
      throw new IllegalArgumentException("an overlay needs at least one arrival process");
    }
    this.parts = List.copyOf(parts);
  }

  @Override
  public long[] schedule(int maxCount, long limitNanos, long seed) {
    Rates.checkLimits(maxCount, limitNanos);
    long[][] all = new long[parts.size()][];
    for (int k = 0; k < all.length; k++) {
      all[k] = parts.get(k).schedule(maxCount, limitNanos, Randoms.mix(seed, k));
    }
    int[] at = new int[all.length];
    Rates.Times t = new Rates.Times(maxCount, Math.min(maxCount, 1 << 16));
    while (!t.full()) {
      int best = -1;
      for (int k = 0; k < all.length; k++) {
        if (at[k] < all[k].length && (best < 0 || all[k][at[k]] < all[best][at[best]])) {
          best = k;
        }
      }
      if (best < 0) {
        break;
      }
      t.add(all[best][at[best]++]);
    }
    return t.toArray();
  }

  /** The sum of the components' rates, when every component has one. */
  @Override
  public OptionalDouble nominalRate() {
    double sum = 0;
    for (ArrivalProcess p : parts) {
      OptionalDouble r = p.nominalRate();
      if (r.isEmpty()) {
        return OptionalDouble.empty();
      }
      sum += r.getAsDouble();
    }
    return OptionalDouble.of(sum);
  }

  @Override
  public String toString() {
    return parts.stream().map(Object::toString).collect(Collectors.joining(" + ", "overlay(", ")"));
  }
}
