package io.infermark.metrics;

import java.util.Locale;
import java.util.Objects;

/**
 * A run's warm and cold requests apart ({@link ColdStarts}): how many of each among the measured
 * requests, and their TTFT and E2E (successful requests, ms). With no cold request the warm
 * distributions are the run's own.
 *
 * @param rule the rule that judged them
 * @param cold measured requests judged cold
 * @param warm the other measured requests
 * @param ttftCold TTFT of the successful cold requests
 * @param ttftWarm TTFT of the successful warm requests
 * @param e2eCold E2E of the successful cold requests
 * @param e2eWarm E2E of the successful warm requests
 */
public record ColdStartSummary(String rule, int cold, int warm, Distribution ttftCold, Distribution ttftWarm,
    Distribution e2eCold, Distribution e2eWarm) {

  /** Validates. */
  public ColdStartSummary {
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(ttftCold, "ttftCold");
    Objects.requireNonNull(ttftWarm, "ttftWarm");
    Objects.requireNonNull(e2eCold, "e2eCold");
    Objects.requireNonNull(e2eWarm, "e2eWarm");
  }

  /** Summarises a split. */
  public static ColdStartSummary of(ColdStarts rule, ColdStarts.Split split) {
    return new ColdStartSummary(rule.toString(), split.cold().size(), split.warm().size(), split.ttft(true),
        split.ttft(false), split.distribution(LatencyMetric.E2E, true), split.distribution(LatencyMetric.E2E, false));
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "ColdStartSummary[%d cold, %d warm; TTFT p50 cold %s, warm %s ms]", cold, warm,
        ttftCold.p50().isPresent() ? String.format(Locale.ROOT, "%.1f", ttftCold.p50().getAsDouble()) : "-",
        ttftWarm.p50().isPresent() ? String.format(Locale.ROOT, "%.1f", ttftWarm.p50().getAsDouble()) : "-");
  }
}
