package io.infermark.metrics.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.infermark.core.health.ClientHealth;
import io.infermark.metrics.Distribution;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.PercentileInterval;
import io.infermark.metrics.RunSummary;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * How a candidate run differs from a baseline: for TTFT, TPOT, ITL and E2E at P50, P90 and P99, the
 * two values, the difference (candidate − baseline, ms) and a distribution-free interval for it; and
 * the throughput differences.
 *
 * <p>The interval: each run's percentile gets its order-statistic confidence interval at
 * {@code √confidence} (0.9747 for 95 %); since the runs are independent, both cover their true
 * percentiles together with probability at least {@code √c · √c = c}, and then the true difference
 * lies in {@code [lower_c − upper_b, upper_c − lower_b]}. This is conservative (wider than a
 * bootstrap), assumes nothing about the shapes, and costs a selection, not thousands of resamples.
 * A difference is {@link Delta#significant() significant} when its interval excludes 0. No interval
 * (and never significant) when either run has too few values for its side.
 *
 * <p>A run whose client was DEGRADED or CLIENT_BOUND distorts the comparison: {@link #warnings()} names
 * it with its reasons (also in the JSON's {@code client_warnings}), and {@link #floorMillis()} is the
 * larger of the two runs' measurement floors, below which a difference is the client's noise.
 */
public final class RunComparison {

  private static final LatencyMetric[] METRICS = {LatencyMetric.TTFT, LatencyMetric.TPOT, LatencyMetric.ITL,
      LatencyMetric.E2E};
  private static final double[] PERCENTILES = {0.5, 0.9, 0.99};
  private static final JsonFactory JSON = JsonFactory.builder().build();

  /**
   * One compared percentile.
   *
   * @param metric the metric
   * @param p the quantile
   * @param baselineMillis the baseline's value, empty without values
   * @param candidateMillis the candidate's value
   * @param lowerMillis lower end of the difference's interval, empty when it cannot be formed
   * @param upperMillis upper end of the difference's interval
   */
  public record Delta(LatencyMetric metric, double p, OptionalDouble baselineMillis, OptionalDouble candidateMillis,
      OptionalDouble lowerMillis, OptionalDouble upperMillis) {

    /** Candidate minus baseline, when both exist. */
    public OptionalDouble deltaMillis() {
      return baselineMillis.isPresent() && candidateMillis.isPresent()
          ? OptionalDouble.of(candidateMillis.getAsDouble() - baselineMillis.getAsDouble()) : OptionalDouble.empty();
    }

    /** The difference relative to the baseline, e.g. 0.12 for 12 % slower; empty when the baseline is 0 or absent. */
    public OptionalDouble relative() {
      return deltaMillis().isPresent() && baselineMillis.getAsDouble() != 0
          ? OptionalDouble.of(deltaMillis().getAsDouble() / baselineMillis.getAsDouble()) : OptionalDouble.empty();
    }

    /** True when the interval exists and excludes 0. */
    public boolean significant() {
      return lowerMillis.isPresent() && (lowerMillis.getAsDouble() > 0 || upperMillis.getAsDouble() < 0);
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "Delta[%s p%s: %s -> %s ms%s]", metric, p * 100, fmt(baselineMillis),
          fmt(candidateMillis), lowerMillis.isPresent() ? String.format(Locale.ROOT, ", diff in [%.3f, %.3f]",
              lowerMillis.getAsDouble(), upperMillis.getAsDouble()) : "");
    }
  }

  private final String baselineLabel;
  private final String candidateLabel;
  private final double confidence;
  private final List<Delta> deltas;
  private final OptionalDouble requestThroughputDelta;
  private final OptionalDouble outputThroughputDelta;
  private final List<String> warnings;
  private final double floorMillis;

  private RunComparison(String baselineLabel, String candidateLabel, double confidence, List<Delta> deltas,
      OptionalDouble requestThroughputDelta, OptionalDouble outputThroughputDelta, List<String> warnings,
      double floorMillis) {
    this.baselineLabel = baselineLabel;
    this.candidateLabel = candidateLabel;
    this.confidence = confidence;
    this.deltas = deltas;
    this.requestThroughputDelta = requestThroughputDelta;
    this.outputThroughputDelta = outputThroughputDelta;
    this.warnings = warnings;
    this.floorMillis = floorMillis;
  }

  /** Compares at 95 % confidence. */
  public static RunComparison of(String baselineLabel, RunSummary baseline, String candidateLabel,
      RunSummary candidate) {
    return of(baselineLabel, baseline, candidateLabel, candidate, 0.95);
  }

  /**
   * Compares at the given joint confidence.
   *
   * @throws IllegalArgumentException if confidence is outside (0, 1)
   */
  public static RunComparison of(String baselineLabel, RunSummary baseline, String candidateLabel,
      RunSummary candidate, double confidence) {
    Objects.requireNonNull(baselineLabel, "baselineLabel");
    Objects.requireNonNull(candidateLabel, "candidateLabel");
    Objects.requireNonNull(baseline, "baseline");
    Objects.requireNonNull(candidate, "candidate");
    if (!(confidence > 0 && confidence < 1)) {
      throw new IllegalArgumentException("confidence must be in (0, 1) (0.95 for 95 %), was " + confidence);
    }
    double each = Math.sqrt(confidence);
    List<Delta> deltas = new ArrayList<>();
    for (LatencyMetric m : METRICS) {
      Distribution b = baseline.distribution(m);
      Distribution c = candidate.distribution(m);
      for (double p : PERCENTILES) {
        PercentileInterval ib = b.percentileInterval(p, each);
        PercentileInterval ic = c.percentileInterval(p, each);
        OptionalDouble lower = OptionalDouble.empty();
        OptionalDouble upper = OptionalDouble.empty();
        if (ib.isFormed() && ic.isFormed()) {
          lower = OptionalDouble.of(ic.lowerMillis().getAsDouble() - ib.upperMillis().getAsDouble());
          upper = OptionalDouble.of(ic.upperMillis().getAsDouble() - ib.lowerMillis().getAsDouble());
        }
        deltas.add(new Delta(m, p, b.percentile(p), c.percentile(p), lower, upper));
      }
    }
    List<String> warnings = new ArrayList<>();
    warn(warnings, "baseline", baselineLabel, baseline.clientHealth());
    warn(warnings, "candidate", candidateLabel, candidate.clientHealth());
    return new RunComparison(baselineLabel, candidateLabel, confidence, List.copyOf(deltas),
        minus(candidate.requestThroughputRps(), baseline.requestThroughputRps()),
        minus(candidate.outputTokenThroughputTps(), baseline.outputTokenThroughputTps()), List.copyOf(warnings),
        Math.max(baseline.clientHealth().floorMillis(), candidate.clientHealth().floorMillis()));
  }

  private static void warn(List<String> warnings, String role, String label, ClientHealth h) {
    if (h.isWarning()) {
      warnings.add(role + " '" + label + "': client " + h.verdict() + ": " + h.reasonText());
    }
  }

  /**
   * One line per run whose client was DEGRADED or CLIENT_BOUND, with its reasons; empty when both were OK
   * or unmeasured.
   */
  public List<String> warnings() {
    return warnings;
  }

  /** The larger of the two runs' measurement floors, ms: differences below it are client noise. */
  public double floorMillis() {
    return floorMillis;
  }

  private static OptionalDouble minus(OptionalDouble a, OptionalDouble b) {
    return a.isPresent() && b.isPresent() ? OptionalDouble.of(a.getAsDouble() - b.getAsDouble())
        : OptionalDouble.empty();
  }

  /** The compared percentiles, metric by metric (TTFT, TPOT, ITL, E2E) and P50, P90, P99 within each. */
  public List<Delta> deltas() {
    return deltas;
  }

  /** The delta of one metric and percentile. */
  public Delta delta(LatencyMetric metric, double p) {
    return deltas.stream().filter(d -> d.metric() == metric && d.p() == p).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("not compared: " + metric + " p" + p
            + "; compared are TTFT, TPOT, ITL, E2E at 0.5, 0.9, 0.99"));
  }

  /** Candidate minus baseline successful requests per second. */
  public OptionalDouble requestThroughputDeltaRps() {
    return requestThroughputDelta;
  }

  /** Candidate minus baseline output tokens per second. */
  public OptionalDouble outputThroughputDeltaTps() {
    return outputThroughputDelta;
  }

  /** The baseline run's label. */
  public String baselineLabel() {
    return baselineLabel;
  }

  /** The candidate run's label. */
  public String candidateLabel() {
    return candidateLabel;
  }

  /**
   * The one-line verdict: "regressed" when some compared percentile is significantly slower by more than
   * {@link #floorMillis()} (the client's noise), "improved" when some is significantly faster by more than it
   * and none slower, "no significant change" otherwise; followed by the percentiles that decided it.
   */
  public String verdict() {
    List<String> slower = new ArrayList<>();
    List<String> faster = new ArrayList<>();
    for (Delta d : deltas) {
      if (!d.significant() || Math.abs(d.deltaMillis().getAsDouble()) <= floorMillis) {
        continue;
      }
      String name = d.metric().name() + " p" + LatencyLabel.of(d.p());
      (d.deltaMillis().getAsDouble() > 0 ? slower : faster).add(name);
    }
    if (!slower.isEmpty()) {
      return "regressed: " + String.join(", ", slower) + " slower" + (faster.isEmpty() ? ""
          : "; " + String.join(", ", faster) + " faster");
    }
    if (!faster.isEmpty()) {
      return "improved: " + String.join(", ", faster) + " faster";
    }
    return "no significant change at " + Math.round(confidence * 100) + " %";
  }

  /** The joint confidence of the intervals. */
  public double confidence() {
    return confidence;
  }

  /**
   * The comparison as JSON: labels, confidence, throughput deltas, the client floor and warnings, and one
   * entry per delta.
   */
  public String toJson() {
    StringWriter out = new StringWriter();
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.useDefaultPrettyPrinter();
      g.writeStartObject();
      g.writeStringField("baseline", baselineLabel);
      g.writeStringField("candidate", candidateLabel);
      g.writeNumberField("confidence", confidence);
      num(g, "request_throughput_delta_rps", requestThroughputDelta);
      num(g, "output_throughput_delta_tps", outputThroughputDelta);
      g.writeNumberField("client_floor_ms", floorMillis);
      g.writeArrayFieldStart("client_warnings");
      for (String w : warnings) {
        g.writeString(w);
      }
      g.writeEndArray();
      g.writeArrayFieldStart("latency");
      for (Delta d : deltas) {
        g.writeStartObject();
        g.writeStringField("metric", d.metric().fieldName());
        g.writeStringField("percentile", "p" + LatencyLabel.of(d.p()));
        num(g, "baseline_ms", d.baselineMillis());
        num(g, "candidate_ms", d.candidateMillis());
        num(g, "delta_ms", d.deltaMillis());
        num(g, "relative", d.relative());
        num(g, "delta_lower_ms", d.lowerMillis());
        num(g, "delta_upper_ms", d.upperMillis());
        g.writeBooleanField("significant", d.significant());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString();
  }

  private static void num(JsonGenerator g, String name, OptionalDouble v) throws IOException {
    if (v.isPresent()) {
      g.writeNumberField(name, v.getAsDouble());
    } else {
      g.writeNullField(name);
    }
  }

  private static String fmt(OptionalDouble v) {
    return v.isPresent() ? String.format(Locale.ROOT, "%.3f", v.getAsDouble()) : "-";
  }

  /** Percentile labels: 50, 90, 99. */
  static final class LatencyLabel {
    private LatencyLabel() {}

    static String of(double p) {
      double v = p * 100;
      return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
  }

  @Override
  public String toString() {
    long significant = deltas.stream().filter(Delta::significant).count();
    return "RunComparison[" + candidateLabel + " vs " + baselineLabel + ": " + significant + " of " + deltas.size()
        + " percentile differences significant at " + confidence
        + (warnings.isEmpty() ? "" : "; WARNING " + String.join("; ", warnings)) + "]";
  }
}
