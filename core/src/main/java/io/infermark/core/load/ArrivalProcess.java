package io.infermark.core.load;

import java.util.OptionalDouble;

/**
 * When open-loop requests are meant to be sent. A process produces its whole schedule up front,
 * as absolute intended times from a seed, so a run is reproducible and every request's lateness
 * can be measured against its own intended time.
 */
public interface ArrivalProcess {

  /**
   * The intended send times, in nanoseconds from the run's start, ascending.
   *
   * @param maxCount stop after this many arrivals
   * @param limitNanos stop before this time (Long.MAX_VALUE for none)
   * @param seed seed of any randomness
   * @return the schedule; may be empty if the first arrival falls after the limit
   */
  long[] schedule(int maxCount, long limitNanos, long seed);

  /** The mean rate in requests per second this process is configured for, if it has one. */
  OptionalDouble nominalRate();

  /** Requests sent every {@code 1/rate} seconds exactly, the first at the start. */
  static ArrivalProcess constant(double requestsPerSecond) {
    return new ConstantArrivals(requestsPerSecond);
  }

  /** A Poisson process: exponential gaps with mean {@code 1/rate}, the first one after the start too. */
  static ArrivalProcess poisson(double requestsPerSecond) {
    return new PoissonArrivals(requestsPerSecond);
  }
}
