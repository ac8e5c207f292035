package io.infermark.metrics;

import io.infermark.core.capture.RequestRecord;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Whether the target could be reached during a run, and whether it asked the client to slow down: how long
 * it was unreachable, in how many outages, with how many failed connections; and how many answers were 429
 * or 503 with a {@code Retry-After} header, with the values it sent.
 *
 * <p>An outage starts at the send of a measured request that never reached a server
 * ({@link RequestRecord#targetUnreachable()}: connection refused or failed, or reset before any response
 * byte) while the target was thought reachable, and ends at the send of the next measured request the
 * server answered (any HTTP status or response byte); an outage still open at the end of the run ends
 * with the last failed attempt. Requests are taken in send order. The time is therefore bounded by the
 * client's attempts: a closed loop backing off (5 ms doubling to 1 s) finds the server back within about a
 * second of its return.
 *
 * @param unreachableNanos total length of the outages, nanoseconds
 * @param outages how many separate outages there were
 * @param connectionFailures measured requests that never reached a server
 * @param retryAfterAnswers measured 429 or 503 answers that carried {@code Retry-After}
 * @param retryAfterValues the first distinct raw {@code Retry-After} values (at most five)
 */
public record TargetAvailability(long unreachableNanos, int outages, int connectionFailures, int retryAfterAnswers,
    List<String> retryAfterValues) {

  /** A run whose target was always reachable and never asked to retry later. */
  public static final TargetAvailability ALWAYS = new TargetAvailability(0, 0, 0, 0, List.of());

  private static final int MAX_VALUES = 5;

  /** Validates and copies. */
  public TargetAvailability {
    if (unreachableNanos < 0 || outages < 0 || connectionFailures < 0 || retryAfterAnswers < 0) {
      throw new IllegalArgumentException("counts and times must be >= 0");
    }
    retryAfterValues = List.copyOf(retryAfterValues);
  }

  /** The availability seen by a run's measured records. */
  public static TargetAvailability of(List<RequestRecord> records) {
    List<RequestRecord> sent = new ArrayList<>();
    int retryAfter = 0;
    Set<String> values = new LinkedHashSet<>();
    for (RequestRecord r : records) {
      if (!r.measured() || !r.wasSent()) {
        continue;
      }
      sent.add(r);
      if (r.retryAfter().isPresent()) {
        retryAfter++;
        if (values.size() < MAX_VALUES) {
          values.add(r.retryAfter().get());
        }
      }
    }
    sent.sort(Comparator.comparingLong(RequestRecord::sendNanos));
    long total = 0;
    int outages = 0;
    int failures = 0;
    long openedAt = -1;
    long lastFailureEnd = 0;
    for (RequestRecord r : sent) {
      if (r.targetUnreachable()) {
        failures++;
        if (openedAt < 0) {
          openedAt = r.sendNanos();
          outages++;
        }
        lastFailureEnd = Math.max(lastFailureEnd, r.sendNanos() + r.endOffsetNanos());
      } else if (openedAt >= 0 && (r.httpStatus() > 0 || r.chunks().size() > 0)) {
        total += Math.max(0, r.sendNanos() - openedAt);
        openedAt = -1;
      }
    }
    if (openedAt >= 0) {
      total += Math.max(0, lastFailureEnd - openedAt);
    }
    return new TargetAvailability(total, outages, failures, retryAfter, List.copyOf(values));
  }

  /** True when the target was unreachable at some point or asked to retry later. */
  public boolean anyTrouble() {
    return connectionFailures > 0 || retryAfterAnswers > 0;
  }

  /** One line for a console, e.g. {@code target unreachable for 3.9 s (1 outage, 12 failed connections)}; "" when all was well. */
  public String summary() {
    List<String> parts = new ArrayList<>();
    if (connectionFailures > 0) {
      parts.add(String.format(Locale.ROOT, "target unreachable for %.1f s (%d outage%s, %d failed connection%s)",
          unreachableNanos / 1e9, outages, outages == 1 ? "" : "s", connectionFailures,
          connectionFailures == 1 ? "" : "s"));
    }
    if (retryAfterAnswers > 0) {
      parts.add(String.format(Locale.ROOT, "%d answer%s asked to retry after %s", retryAfterAnswers,
          retryAfterAnswers == 1 ? "" : "s", String.join(", ", retryAfterValues)));
    }
    return String.join("; ", parts);
  }

  @Override
  public String toString() {
    return anyTrouble() ? "TargetAvailability[" + summary() + "]" : "TargetAvailability[always reachable]";
  }
}
