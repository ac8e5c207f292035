package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.metrics.report.VllmResultOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * vLLM's "Serving Benchmark Result" block line for line as the newest {@code vllm/benchmarks/serve.py} prints it
 * (its {@code "{:<40} {:<10}"} rows, trailing spaces included). The expected lines are written out from serve.py's
 * print statements (vllm-project/vllm at 009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1) for the same numbers.
 */
class VllmSummaryFormatTest {

  private static String print(Map<String, Object> r, VllmResultOptions o) {
    StringWriter text = new StringWriter();
    try (PrintWriter out = new PrintWriter(text)) {
      Summaries.printVllm(out, r, o);
    }
    return text.toString();
  }

  /** Python's {@code "{:<40} {:<10}".format(label, value)}. */
  private static String row(String label, String value) {
    return String.format("%-40s %-10s", label, value);
  }

  private static Map<String, Object> result() {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("tokenizer_id", "cl100k_base");
    r.put("request_rate", 10.0);
    r.put("max_concurrency", 4L);
    r.put("duration", 12.345);
    r.put("completed", 118L);
    r.put("failed", 2L);
    r.put("total_input_tokens", 30208L);
    r.put("total_output_tokens", 15104L);
    r.put("request_throughput", 9.558);
    r.put("request_goodput", null);
    r.put("output_throughput", 1223.5);
    r.put("total_token_throughput", 3670.5);
    r.put("max_output_tokens_per_s", 1400.0);
    r.put("max_concurrent_requests", 4L);
    r.put("rtfx", 0.0);
    r.put("probe_completed", 30L);
    r.put("probe_failed", 0L);
    r.put("probe_median_e2el_ms", 21.5);
    r.put("probe_p99_e2el_ms", 40.125);
    r.put("probe_max_e2el_ms", 41.0);
    for (String m : List.of("ttft", "e2el", "client_queue_time", "e2el_including_client_queue")) {
      r.put("mean_" + m + "_ms", 100.0);
      r.put("median_" + m + "_ms", 90.0);
      r.put("p99_" + m + "_ms", 200.456);
    }
    r.put("spec_decode_acceptance_rate", 61.5);
    r.put("spec_decode_acceptance_length", 2.85);
    r.put("spec_decode_num_drafts", 1000L);
    r.put("spec_decode_draft_tokens", 3000L);
    r.put("spec_decode_accepted_tokens", 1845L);
    r.put("spec_decode_per_position_acceptance_rates", List.of(0.8, 0.6, 0.445));
    return r;
  }

  @Test
  void printsServePysBlockLineForLine() {
    VllmResultOptions o = VllmResultOptions.builder("openai-chat", "m").requestRate(10).maxConcurrency(4)
        .metrics(List.of("ttft", "e2el", "client_queue_time", "e2el_including_client_queue")).percentiles(99).build();

    List<String> expected = List.of(
        "============ Serving Benchmark Result ============",
        row("Successful requests:", "118"),
        row("Failed requests:", "2"),
        row("Maximum request concurrency:", "4"),
        row("Request rate configured (RPS):", "10.00"),
        row("Benchmark duration (s):", "12.35"),
        row("Total input tokens:", "30208"),
        row("Total generated tokens:", "15104"),
        row("Request throughput (req/s):", "9.56"),
        row("Output token throughput (tok/s):", "1223.50"),
        row("Peak output token throughput (tok/s):", "1400.00"),
        row("Peak concurrent requests:", "4.00"),
        row("Total token throughput (tok/s):", "3670.50"),
        "------------------Probe Requests------------------",
        row("Probe requests completed:", "30"),
        row("Probe requests failed:", "0"),
        row("Median probe E2EL (ms):", "21.50"),
        row("P99 probe E2EL (ms):", "40.12"), // Python rounds the binary 40.125 half to even
        row("Max probe E2EL (ms):", "41.00"),
        "---------------Time to First Token----------------",
        row("Mean TTFT (ms):", "100.00"),
        row("Median TTFT (ms):", "90.00"),
        row("P99 TTFT (ms):", "200.46"),
        "----------------End-to-end Latency----------------",
        row("Mean E2EL (ms):", "100.00"),
        row("Median E2EL (ms):", "90.00"),
        row("P99 E2EL (ms):", "200.46"),
        "---------------Client-side Queueing---------------",
        row("Mean Client Queue Time (ms):", "100.00"),
        row("Median Client Queue Time (ms):", "90.00"),
        row("P99 Client Queue Time (ms):", "200.46"),
        "--------Queue-inclusive End-to-end Latency--------",
        row("Mean E2EL incl. Client Queue (ms):", "100.00"),
        row("Median E2EL incl. Client Queue (ms):", "90.00"),
        row("P99 E2EL incl. Client Queue (ms):", "200.46"),
        "---------------Speculative Decoding---------------",
        row("Acceptance rate (%):", "61.50"),
        row("Acceptance length:", "2.85"),
        row("Drafts:", "1000"),
        row("Draft tokens:", "3000"),
        row("Accepted tokens:", "1845"),
        "Per-position acceptance (%):",
        row("  Position 0:", "80.00"),
        row("  Position 1:", "60.00"),
        row("  Position 2:", "44.50"),
        "==================================================");
    assertThat(print(result(), o).lines().toList()).containsExactlyElementsOf(expected);
  }

  @Test
  void withoutATokenizerAnInfiniteRateOrAConcurrencyLimitThoseLinesAreLeftOut() {
    Map<String, Object> r = result();
    r.put("tokenizer_id", null);
    r.put("request_rate", "inf");
    r.put("max_concurrency", null);
    r.keySet().removeIf(k -> k.startsWith("probe_") || k.startsWith("spec_decode_") || k.contains("ttft")
        || k.contains("client_queue"));
    VllmResultOptions o = VllmResultOptions.builder("openai", "m").skipTokenizer(true)
        .metrics(List.of("ttft", "e2el")).percentiles(99).build();

    assertThat(print(r, o).lines().toList()).containsExactly(
        "============ Serving Benchmark Result ============",
        row("Successful requests:", "118"),
        row("Failed requests:", "2"),
        row("Benchmark duration (s):", "12.35"),
        row("Total input tokens:", "30208"),
        row("Request throughput (req/s):", "9.56"),
        row("Peak concurrent requests:", "4.00"),
        "----------------End-to-end Latency----------------",
        row("Mean E2EL (ms):", "100.00"),
        row("Median E2EL (ms):", "90.00"),
        row("P99 E2EL (ms):", "200.46"),
        "==================================================");
  }
}
