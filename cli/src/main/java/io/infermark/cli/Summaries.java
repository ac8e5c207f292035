package io.infermark.cli;

import io.infermark.core.RunResult;
import io.infermark.core.ScheduleStats;
import io.infermark.core.health.ClientHealth;
import io.infermark.metrics.Distribution;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.ServerNotices;
import io.infermark.metrics.report.VllmResultJson;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;

/** The printed summaries: vLLM's block (same labels and numbers as its client prints) and infermark's. */
final class Summaries {

  private Summaries() {}

  /** vLLM's "Serving Benchmark Result" block from the result map it would save. */
  static void printVllm(PrintWriter out, Map<String, Object> r, VllmResultJson.Options o) {
    out.println(center(" Serving Benchmark Result ", '='));
    row(out, "Successful requests:", Long.toString((Long) r.get("completed")));
    row(out, "Failed requests:", Long.toString((Long) r.get("failed")));
    row(out, "Benchmark duration (s):", r.get("duration"));
    row(out, "Total input tokens:", Long.toString((Long) r.get("total_input_tokens")));
    row(out, "Total generated tokens:", Long.toString((Long) r.get("total_output_tokens")));
    row(out, "Request throughput (req/s):", r.get("request_throughput"));
    if (r.get("request_goodput") != null) {
      row(out, "Request goodput (req/s):", r.get("request_goodput"));
    }
    row(out, "Output token throughput (tok/s):", r.get("output_throughput"));
    row(out, "Peak output token throughput (tok/s):", r.get("max_output_tokens_per_s"));
    row(out, "Peak concurrent requests:", Long.toString((Long) r.get("max_concurrent_requests")));
    row(out, "Total Token throughput (tok/s):", r.get("total_token_throughput"));
    metric(out, r, o, "ttft", "TTFT", "Time to First Token");
    metric(out, r, o, "tpot", "TPOT", "Time per Output Token (excl. 1st token)");
    metric(out, r, o, "itl", "ITL", "Inter-token Latency");
    metric(out, r, o, "e2el", "E2EL", "End-to-end Latency");
    out.println("=".repeat(50));
  }

  private static void metric(PrintWriter out, Map<String, Object> r, VllmResultJson.Options o, String key, String name,
      String header) {
    if (!o.metrics().contains(key)) {
      return;
    }
    out.println(center(header, '-'));
    row(out, "Mean " + name + " (ms):", r.get("mean_" + key + "_ms"));
    row(out, "Median " + name + " (ms):", r.get("median_" + key + "_ms"));
    for (double p : o.percentiles()) {
      String word = p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p);
      row(out, "P" + word + " " + name + " (ms):", r.get("p" + word + "_" + key + "_ms"));
    }
  }

  /** infermark's own figures: its definitions, failures, schedule, client health and the gates. */
  static void printInfermark(PrintWriter out, RunResult run, RunSummary s, SloOptions.Outcome outcome) {
    out.println(center(" infermark ", '-'));
    out.println("Definitions: TTFT to the first token-bearing chunk; ITL between token-bearing chunks (see docs/cli.md)");
    run.interruption().ifPresent(i -> {
      row(out, "INTERRUPTED:", i.reason() + " at " + i.at() + String.format(Locale.ROOT, " (%.3f s into the run)",
          i.atNanos() / 1e9));
      row(out, "  completed / cancelled / never sent:", i.completed() + " / " + i.cancelled() + " / " + i.notSent()
          + (i.unknown() > 0 ? " (" + i.unknown() + " without a record)" : ""));
    });
    if (s.availability().connectionFailures() > 0) {
      row(out, "Target unreachable (s):", String.format(Locale.ROOT, "%.1f in %d outage%s (%d failed connections)",
          s.availability().unreachableNanos() / 1e9, s.availability().outages(),
          s.availability().outages() == 1 ? "" : "s", s.availability().connectionFailures()));
    }
    if (s.availability().retryAfterAnswers() > 0) {
      row(out, "Answers with Retry-After:", s.availability().retryAfterAnswers() + " (values "
          + String.join(", ", s.availability().retryAfterValues()) + ")");
    }
    if (!s.failuresByCategory().isEmpty()) {
      StringBuilder f = new StringBuilder();
      s.failuresByCategory().forEach((k, v) -> f.append(f.length() == 0 ? "" : ", ").append(k.name().toLowerCase(Locale.ROOT))
          .append(' ').append(v));
      row(out, "Failures by category:", f.toString());
    }
    for (String notice : ServerNotices.of(s)) {
      out.println("WARNING: " + notice);
    }
    for (LatencyMetric m : new LatencyMetric[] {LatencyMetric.TTFT, LatencyMetric.ITL, LatencyMetric.TPOT,
        LatencyMetric.E2E, LatencyMetric.TTFT_FROM_INTENDED}) {
      Distribution d = s.distribution(m);
      if (d.isEmpty()) {
        continue;
      }
      row(out, m.name() + " p50 / p99 (ms):", String.format(Locale.ROOT, "%.2f / %.2f%s", or(d.p50()), or(d.p99()),
          d.isTailUnreliable(0.99) ? "  (p99 from " + d.count() + " values: unreliable)" : ""));
    }
    s.sessions().lines().forEach(out::println);
    ScheduleStats sched = s.schedule();
    row(out, "Achieved rate (req/s):", String.format(Locale.ROOT, "%.2f%s", sched.achievedRate(),
        sched.requestedRate().isPresent() ? String.format(Locale.ROOT, " of %.2f requested", sched.requestedRate().getAsDouble())
            : ""));
    row(out, "Send lag p99 (ms):", String.format(Locale.ROOT, "%.3f", sched.lagP99Nanos() / 1e6));
    ClientHealth h = run.clientHealth();
    String monitors = h.measurements().map(m -> m.monitoring() == io.infermark.core.health.ClientMonitoring.REDUCED
        ? "; monitors reduced: 10 ms hiccup meter, no probes" : "").orElse("");
    row(out, "Client health:", h.verdict().name() + String.format(Locale.ROOT, " (floor %.2f ms%s)", h.floorMillis(),
        monitors));
    for (String reason : h.reasons()) {
      out.println("  " + reason);
    }
    for (io.infermark.core.health.MetricBound b : h.bounds()) {
      out.println("  error bound, " + b);
    }
    if (h.isClientBound()) {
      out.println("  WARNING: the client did not keep up; latencies include its own delays");
    } else if (h.isWarning()) {
      out.println("  NOTE: the client was disturbed; differences below the floor are its own");
    }
    if (outcome.goodputFraction().isPresent()) {
      row(out, "Goodput ratio:", String.format(Locale.ROOT, "%.4f", outcome.goodputFraction().getAsDouble()));
    }
    for (String line : outcome.lines()) {
      out.println("Gate " + line);
    }
    out.println("=".repeat(50));
    out.flush();
  }

  private static double or(OptionalDouble v) {
    return v.orElse(Double.NaN);
  }

  private static void row(PrintWriter out, String label, Object value) {
    String v = value instanceof Double d ? String.format(Locale.ROOT, "%.2f", d) : String.valueOf(value);
    out.println(String.format(Locale.ROOT, "%-40s %-10s", label, v).stripTrailing());
  }

  private static String center(String s, char c) {
    int pad = Math.max(0, 50 - s.length());
    return String.valueOf(c).repeat(pad / 2) + s + String.valueOf(c).repeat(pad - pad / 2);
  }
}
