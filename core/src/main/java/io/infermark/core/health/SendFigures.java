package io.infermark.core.health;

import io.infermark.core.capture.ScheduleStats;
import io.infermark.core.load.LoadProfile;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * What a run's schedule says about its client: the send lag and the rate achieved against the rate
 * scheduled, taken from {@link ScheduleStats}. Judged only for open loops whose sends nothing was meant
 * to delay: a closed loop has no schedule to be late for, and an in-flight cap or rate limits delay sends
 * on purpose (their waits are the server's or the user's doing, not the client's).
 *
 * @param judged whether the figures are judged (open loop, no in-flight cap, no rate limits)
 * @param sent measured requests sent
 * @param lagP99Nanos the send (schedule) lag p99
 * @param scheduledRate requests/s the schedule contained; empty when fewer than {@value #MIN_SENT} were
 *     sent or the schedule had no span (a rate from so few sends is noise)
 * @param achievedRate requests/s actually sent
 */
public record SendFigures(boolean judged, int sent, double lagP99Nanos, OptionalDouble scheduledRate,
    double achievedRate) {

  /** Sends needed before the achieved rate is compared with the scheduled one. */
  public static final int MIN_SENT = 10;

  /** Nothing to judge: a closed loop, or no schedule figures. */
  public static final SendFigures NONE = new SendFigures(false, 0, 0, OptionalDouble.empty(), 0);

  /** Validates. */
  public SendFigures {
    Objects.requireNonNull(scheduledRate, "scheduledRate");
    if (sent < 0 || !(lagP99Nanos >= 0 || Double.isNaN(lagP99Nanos)) || !(achievedRate >= 0)) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "need sent >= 0, lag >= 0 and achieved rate >= 0, were %d, %s, %s", sent, lagP99Nanos, achievedRate));
    }
  }

  /** The figures of a run with schedule statistics {@code s} under {@code load}. */
  public static SendFigures of(ScheduleStats s, LoadProfile load) {
    Objects.requireNonNull(s, "s");
    Objects.requireNonNull(load, "load");
    boolean judged = !load.isClosedLoop() && load.maxInFlight().isEmpty() && !load.limits().paces()
        && load.limits().concurrentStreams().isEmpty();
    OptionalDouble scheduled = s.sent() >= MIN_SENT && s.scheduledRate() > 0
        ? OptionalDouble.of(s.scheduledRate()) : OptionalDouble.empty();
    return new SendFigures(judged, s.sent(), Math.max(0, s.lagP99Nanos()), scheduled, s.achievedRate());
  }

  /** Achieved / scheduled rate, when both are known and judged. */
  public OptionalDouble achievedRatio() {
    return judged && scheduledRate.isPresent()
        ? OptionalDouble.of(achievedRate / scheduledRate.getAsDouble()) : OptionalDouble.empty();
  }

  @Override
  public String toString() {
    if (!judged) {
      return "SendFigures[not judged]";
    }
    return String.format(Locale.ROOT, "SendFigures[%d sent, lag p99 %.3f ms, achieved %.2f/s%s]", sent,
        lagP99Nanos / 1e6, achievedRate, scheduledRate.isPresent()
            ? String.format(Locale.ROOT, " of %.2f/s scheduled", scheduledRate.getAsDouble()) : "");
  }
}
