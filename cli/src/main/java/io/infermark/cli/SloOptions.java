package io.infermark.cli;

import io.infermark.core.RunResult;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.slo.Slo;
import io.infermark.metrics.slo.SloReport;
import io.infermark.metrics.slo.SloSet;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import picocli.CommandLine.Option;

/**
 * Objectives: vLLM's {@code --goodput ttft:200 tpot:50} (reported, as vLLM does) and infermark's gates
 * ({@code --slo}, {@code --max-error-rate}, {@code --min-goodput-ratio}), which end the command with
 * exit code 1 when they fail.
 */
final class SloOptions {

  @Option(names = "--goodput", arity = "1..*", paramLabel = "KEY:MS",
      description = "vLLM's goodput objectives in ms per request, keys ttft, tpot, e2el (e.g. --goodput ttft:200 tpot:50).")
  List<String> goodput = new ArrayList<>();

  @Option(names = "--slo", paramLabel = "METRIC:PCT:MS",
      description = "A gate: the percentile of a metric must be at most MS, e.g. ttft:p99:500 or e2e:p50:2000 "
          + "(metrics ttft, ttfc, itl, tpot, ntpot, e2e; percentile p50..p99.9 or max). Repeatable.")
  List<String> slos = new ArrayList<>();

  @Option(names = "--max-error-rate", paramLabel = "FRACTION", description = "A gate: failed / measured requests at most this.")
  Double maxErrorRate;

  @Option(names = "--min-goodput-ratio", paramLabel = "FRACTION",
      description = "A gate: the fraction of measured requests meeting every --goodput objective at least this.")
  Double minGoodputRatio;

  /** The --goodput objectives, ms per vLLM metric name, in the order given. */
  Map<String, Double> goodputObjectives() {
    Map<String, Double> out = new LinkedHashMap<>();
    for (String pair : goodput) {
      String[] kv = pair.split(":");
      if (kv.length != 2) {
        throw new IllegalArgumentException("--goodput takes KEY:VALUE pairs (ttft:200), was '" + pair + "'");
      }
      String key = kv[0].strip().toLowerCase(Locale.ROOT);
      if (!List.of("ttft", "tpot", "e2el").contains(key)) {
        throw new IllegalArgumentException("--goodput metric must be ttft, tpot or e2el, was '" + kv[0] + "'");
      }
      double ms = number("--goodput " + pair, kv[1]);
      if (ms < 0) {
        throw new IllegalArgumentException("--goodput " + pair + ": the objective must be >= 0 ms");
      }
      out.put(key, ms);
    }
    if (minGoodputRatio != null && out.isEmpty()) {
      throw new IllegalArgumentException("--min-goodput-ratio needs --goodput objectives");
    }
    if (minGoodputRatio != null && !(minGoodputRatio >= 0 && minGoodputRatio <= 1)) {
      throw new IllegalArgumentException("--min-goodput-ratio must be in [0, 1], was " + minGoodputRatio);
    }
    return out;
  }

  /** The gates other than goodput, if any were given. */
  Optional<SloSet> gates() {
    List<Slo> list = new ArrayList<>();
    for (String s : slos) {
      list.add(parseSlo(s));
    }
    if (maxErrorRate != null) {
      list.add(Slo.errorRate(maxErrorRate));
    }
    return list.isEmpty() ? Optional.empty() : Optional.of(new SloSet("gates", list));
  }

  /** The goodput objectives as per-request latency objectives with vLLM's metrics, if any. */
  Optional<SloSet> goodputSet() {
    Map<String, Double> objectives = goodputObjectives();
    if (objectives.isEmpty()) {
      return Optional.empty();
    }
    List<Slo> list = new ArrayList<>();
    objectives.forEach((k, ms) -> list.add(Slo.latency(switch (k) {
      case "ttft" -> LatencyMetric.TTFT_VLLM_COMPAT;
      case "tpot" -> LatencyMetric.TPOT;
      default -> LatencyMetric.E2E;
    }, 1.0, ms)));
    return Optional.of(new SloSet("goodput", list));
  }

  /** The outcome of every gate on a run. */
  record Outcome(Optional<SloReport> gates, OptionalDouble goodputFraction, boolean passed, List<String> lines) {}

  /** Judges a run. */
  Outcome judge(RunResult run, RunSummary summary) {
    List<String> lines = new ArrayList<>();
    boolean passed = true;
    Optional<SloReport> report = gates().map(g -> g.evaluate(run, summary));
    if (report.isPresent()) {
      for (var v : report.get().verdicts()) {
        lines.add(String.format(Locale.ROOT, "%-4s %s%s", v.outcome().name(), v.slo().name(),
            v.measured().isPresent() ? String.format(Locale.ROOT, " (measured %.4g %s)", v.measured().getAsDouble(), v.unit())
                : ""));
      }
      passed = report.get().allPassed();
    }
    OptionalDouble fraction = OptionalDouble.empty();
    Optional<SloSet> goodputSet = goodputSet();
    if (goodputSet.isPresent()) {
      fraction = goodputSet.get().evaluate(run, summary).goodput().fraction();
      if (minGoodputRatio != null) {
        boolean ok = fraction.isPresent() && fraction.getAsDouble() >= minGoodputRatio;
        lines.add(String.format(Locale.ROOT, "%-4s goodput ratio >= %s (measured %s)", ok ? "PASS" : "FAIL",
            minGoodputRatio, fraction.isPresent() ? String.format(Locale.ROOT, "%.4f", fraction.getAsDouble()) : "none"));
        passed &= ok;
      }
    }
    return new Outcome(report, fraction, passed, lines);
  }

  /** Parses {@code METRIC:PCT:MS}. */
  static Slo parseSlo(String spec) {
    String[] p = spec.split(":");
    if (p.length != 3) {
      throw new IllegalArgumentException("--slo takes METRIC:PERCENTILE:MS (ttft:p99:500), was '" + spec + "'");
    }
    LatencyMetric metric = switch (p[0].strip().toLowerCase(Locale.ROOT)) {
      case "ttft" -> LatencyMetric.TTFT;
      case "ttfc" -> LatencyMetric.TTFC;
      case "itl" -> LatencyMetric.ITL;
      case "tpot" -> LatencyMetric.TPOT;
      case "ntpot" -> LatencyMetric.NTPOT;
      case "e2e", "e2el" -> LatencyMetric.E2E;
      default -> throw new IllegalArgumentException("--slo " + spec + ": unknown metric '" + p[0]
          + "' (ttft, ttfc, itl, tpot, ntpot, e2e)");
    };
    String pct = p[1].strip().toLowerCase(Locale.ROOT);
    double q;
    if (pct.equals("max")) {
      q = 1.0;
    } else {
      q = number("--slo " + spec, pct.startsWith("p") ? pct.substring(1) : pct) / 100;
      if (!(q > 0 && q <= 1)) {
        throw new IllegalArgumentException("--slo " + spec + ": the percentile must be in (0, 100]");
      }
    }
    return Slo.latency(metric, q, number("--slo " + spec, p[2]));
  }

  private static double number(String where, String v) {
    try {
      return Double.parseDouble(v.strip());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(where + ": '" + v + "' is not a number");
    }
  }
}
