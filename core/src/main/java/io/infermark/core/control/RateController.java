package io.infermark.core.control;

import io.infermark.core.capture.RequestRecord;
import java.time.Duration;
import java.util.List;

/**
 * Decides the offered rate of an open-loop run while it runs (see
 * {@code LoadProfile.controlled(RateController)}): the engine sends at the current rate, evenly
 * spaced, and every {@link #interval()} asks the controller for the next one. {@link PidController}
 * is the built-in implementation.
 */
public interface RateController {

  /** The rate in requests/s to start at, > 0. */
  double initialRate();

  /** How often the rate is updated. */
  Duration interval();

  /** Starts controlling one run. */
  Loop start();

  /** The per-run state of a controller; called by the engine only. */
  interface Loop {

    /** A record has ended (serially, under the engine's lock). */
    void onRecord(RequestRecord record);

    /** Measures and returns the rate for the next interval, in requests/s (>= 0). */
    double update(long elapsedNanos);

    /** Every step taken so far, the starting point first. */
    List<ControlStep> trajectory();
  }
}
