package io.infermark.core.load;

import io.infermark.core.control.RateController;
import java.util.OptionalDouble;

/**
 * The arrival process of a {@linkplain LoadProfile#controlled controlled} profile: its rate is
 * decided while the run goes, so there is no schedule to compute up front.
 */
final class ControlledArrivals implements ArrivalProcess {
  private final RateController controller;

  ControlledArrivals(RateController controller) {
    this.controller = controller;
  }

  @Override
  public long[] schedule(int maxCount, long limitNanos, long seed) {
    throw new UnsupportedOperationException("a controlled rate is decided during the run: " + controller);
  }

  @Override
  public OptionalDouble nominalRate() {
    return OptionalDouble.empty();
  }

  @Override
  public String toString() {
    return "controlled(" + controller + ")";
  }
}
