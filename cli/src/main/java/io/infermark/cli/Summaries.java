package io.infermark.cli;

import io.infermark.core.RunResult;
import io.infermark.core.capture.ScheduleStats;
import io.infermark.core.health.ClientHealth;
import io.infermark.metrics.Distribution;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.ServerNotices;
import io.infermark.metrics.report.VllmResultOptions;
import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;

/** The printed summaries: vLLM's block (same labels and numbers as its client prints) and infermark's. */
final class Summaries {

  private Summaries() {}

  /**
   * vLLM's "Serving Benchmark Result" block from the result map it would save, line for line as the newest
   * {@code vllm/benchmarks/serve.py} prints it: {@code "{:<40} {:<10}"} rows (trailing spaces included), the
   * concurrency and configured rate when set, the token lines only with a tokenizer, then the probe, percentile and
   * speculative-decoding sections.
   */
  static void printVllm(PrintWriter out, Map<String, Object> r, VllmResultOptions o) {
    boolean tokenizer = r.get("tokenizer_id") != null;
    out.println(center(" Serving Benchmark Result ", '='));
    vllmRow(out, "Successful requests:", Long.toString((Long) r.get("completed")));
    vllmRow(out, "Failed requests:", Long.toString((Long) r.get("failed")));
    if (r.get("max_concurrency") instanceof Long c) {
      vllmRow(out, "Maximum request concurrency:", Long.toString(c));
    }
    if (r.get("request_rate") instanceof Double rate) {
      vllmRow(out, "Request rate configured (RPS):", rate);
    }
    vllmRow(out, "Benchmark duration (s):", r.get("duration"));
    vllmRow(out, "Total input tokens:", Long.toString((Long) r.get("total_input_tokens")));
    if (tokenizer) {
      vllmRow(out, "Total generated tokens:", Long.toString((Long) r.get("total_output_tokens")));
    }
    vllmRow(out, "Request throughput (req/s):", r.get("request_throughput"));
    if (r.get("request_goodput") != null) {
      vllmRow(out, "Request goodput (req/s):", r.get("request_goodput"));
    }
    if (tokenizer) {
      vllmRow(out, "Output token throughput (tok/s):", r.get("output_throughput"));
      vllmRow(out, "Peak output token throughput (tok/s):", r.get("max_output_tokens_per_s"));
    }
    // vLLM formats this count with {:<10.2f}
    vllmRow(out, "Peak concurrent requests:", ((Number) r.get("max_concurrent_requests")).doubleValue());
    if (r.get("rtfx") instanceof Number x && x.doubleValue() > 0) {
      vllmRow(out, "RTFx (Inverse Real-Time Factor):", x.doubleValue());
    }
    if (tokenizer) {
      vllmRow(out, "Total token throughput (tok/s):", r.get("total_token_throughput"));
    }
    if (r.get("probe_completed") != null) {
      out.println(center("Probe Requests", '-'));
      vllmRow(out, "Probe requests completed:", String.valueOf(r.get("probe_completed")));
      vllmRow(out, "Probe requests failed:", String.valueOf(r.get("probe_failed")));
      vllmRow(out, "Median probe E2EL (ms):", r.get("probe_median_e2el_ms"));
      vllmRow(out, "P99 probe E2EL (ms):", r.get("probe_p99_e2el_ms"));
      vllmRow(out, "Max probe E2EL (ms):", r.get("probe_max_e2el_ms"));
    }
    metric(out, r, o, "ttft", "TTFT", "Time to First Token");
    metric(out, r, o, "tpot", "TPOT", "Time per Output Token (excl. 1st token)");
    metric(out, r, o, "itl", "ITL", "Inter-token Latency");
    metric(out, r, o, "e2el", "E2EL", "End-to-end Latency");
    metric(out, r, o, "client_queue_time", "Client Queue Time", "Client-side Queueing");
    metric(out, r, o, "e2el_including_client_queue", "E2EL incl. Client Queue", "Queue-inclusive End-to-end Latency");
    if (r.get("spec_decode_acceptance_rate") != null) {
      out.println(center("Speculative Decoding", '-'));
      vllmRow(out, "Acceptance rate (%):", r.get("spec_decode_acceptance_rate"));
      vllmRow(out, "Acceptance length:", r.get("spec_decode_acceptance_length"));
      vllmRow(out, "Drafts:", String.valueOf(r.get("spec_decode_num_drafts")));
      vllmRow(out, "Draft tokens:", String.valueOf(r.get("spec_decode_draft_tokens")));
      vllmRow(out, "Accepted tokens:", String.valueOf(r.get("spec_decode_accepted_tokens")));
      if (r.get("spec_decode_per_position_acceptance_rates") instanceof java.util.List<?> perPos && !perPos.isEmpty()) {
        out.println("Per-position acceptance (%):");
        for (int i = 0; i < perPos.size(); i++) {
          vllmRow(out, "  Position " + i + ":", ((Number) perPos.get(i)).doubleValue() * 100);
        }
      }
    }
    out.println("=".repeat(50));
  }

  private static void metric(PrintWriter out, Map<String, Object> r, VllmResultOptions o, String key, String name,
      String header) {
    if (!o.metrics().contains(key) || !r.containsKey("mean_" + key + "_ms")) {
      return; // not selected, or not applicable (no tokenizer, no --max-concurrency): vLLM prints nothing either
    }
    out.println(center(header, '-'));
    vllmRow(out, "Mean " + name + " (ms):", r.get("mean_" + key + "_ms"));
    vllmRow(out, "Median " + name + " (ms):", r.get("median_" + key + "_ms"));
    for (double p : o.percentiles()) {
      String word = p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p);
      vllmRow(out, "P" + word + " " + name + " (ms):", r.get("p" + word + "_" + key + "_ms"));
    }
  }

  /** Python's {@code "{:<40} {:<10}"} ({@code {:<10.2f}} for a number), trailing spaces included, as vLLM prints. */
  private static void vllmRow(PrintWriter out, String label, Object value) {
    String v = value instanceof Number n && !(value instanceof Long) && !(value instanceof Integer)
        ? python2f(n.doubleValue()) : String.valueOf(value);
    out.println(String.format(Locale.ROOT, "%-40s %-10s", label, v));
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
    StringBuilder f = new StringBuilder();
    s.failuresByCategory().forEach((k, v) -> {
      if (k != io.infermark.core.capture.ErrorCategory.NOT_SENT) { // never sent is not a failure: counted apart
        f.append(f.length() == 0 ? "" : ", ").append(k.name().toLowerCase(Locale.ROOT)).append(' ').append(v);
      }
    });
    if (f.length() > 0) {
      row(out, "Failures by category:", f.toString());
    }
    Integer unsent = s.failuresByCategory().get(io.infermark.core.capture.ErrorCategory.NOT_SENT);
    if (unsent != null && unsent > 0 && run.interruption().isEmpty()) {
      row(out, "Never sent (the run ended first):", Integer.toString(unsent));
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
    ColdStartOptions.line(s).ifPresent(l -> row(out, "Cold starts:", l));
    // The same lines as `report` prints (ConsoleTable): client - server per request, then the prefix cache.
    for (String line : io.infermark.metrics.report.ConsoleTable.clientMinusServer(s)) {
      out.println(line);
    }
    for (String line : io.infermark.metrics.report.ConsoleTable.prefixCache(s)) {
      out.println(line);
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

  /**
   * Python's {@code {:.2f}}: the double's exact binary value rounded half to even (Java's {@code %.2f} rounds its
   * shortest decimal half up: 40.125 gives 40.13 where Python prints 40.12).
   */
  static String python2f(double d) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      return Double.isNaN(d) ? "nan" : d > 0 ? "inf" : "-inf";
    }
    return new java.math.BigDecimal(d).setScale(2, java.math.RoundingMode.HALF_EVEN).toPlainString();
  }

  private static String center(String s, char c) {
    int pad = Math.max(0, 50 - s.length());
    return String.valueOf(c).repeat(pad / 2) + s + String.valueOf(c).repeat(pad - pad / 2);
  }
}
