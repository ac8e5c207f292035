package io.infermark.metrics;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The per-request latency metrics infermark reports, each defined once, here, from the facts on a
 * {@link RequestRecord}. All values are in milliseconds; the record's own times are nanoseconds
 * (intended and send time from the run origin, chunk and end offsets from the request's send).
 *
 * <p>A constant computes the values one record contributes ({@link #valuesMillis(RequestRecord)}):
 * none when the metric is undefined for the record (no token-bearing chunk, N too small), one for
 * per-request metrics, one per gap for the pooled ITL metrics. It does not look at success or
 * warmup: which records count is {@link RunSummary}'s decision (successful, measured ones only).
 *
 * <p>"Token-bearing" chunks are {@link ChunkKind#CONTENT}, {@link ChunkKind#REASONING} and
 * {@link ChunkKind#TOOL_CALL}; role-only, empty and usage-only chunks never start or stop a clock.
 * N is {@link RequestRecord#outputTokens()}: the server's {@code usage.completion_tokens} when it
 * sent one, else the client's count (see {@link RequestRecord#outputTokensSource()}).
 *
 * <h2>Definitions and aliases</h2>
 *
 * <p>The names other tools give the same (or the nearest) quantity, as {@link #aliases()} returns
 * them. A dash means the tool has no such metric. Where an alias differs in detail the difference is
 * noted in the definition.
 *
 * <table>
 * <caption>Latency metrics (all in ms)</caption>
 * <tr><th>infermark</th><th>definition</th><th>vLLM {@code bench serve}</th><th>GuideLLM</th><th>AIPerf</th></tr>
 * <tr><td>{@code TTFT}</td><td>first token-bearing chunk − send</td>
 *     <td>—</td><td>{@code time_to_first_token_ms}</td><td>{@code time_to_first_token}</td></tr>
 * <tr><td>{@code TTFC}</td><td>first content chunk − send (reasoning and tool calls skipped)</td>
 *     <td>—</td><td>—</td><td>{@code time_to_first_output_token} (TTFO)</td></tr>
 * <tr><td>{@code TTFT_VLLM_COMPAT}</td><td>first chunk that is not usage-only − send; counts the role
 *     chunk, as vLLM counts the first chunk with non-empty {@code choices}</td>
 *     <td>{@code ttft_ms} (TTFT)</td><td>—</td><td>—</td></tr>
 * <tr><td>{@code ITL}</td><td>each gap between consecutive token-bearing chunks, pooled over requests</td>
 *     <td>{@code itl_ms} (ITL)</td><td>—</td><td>{@code inter_chunk_latency} (ICL; gaps between all
 *     responses)</td></tr>
 * <tr><td>{@code ITL_PER_TOKEN}</td><td>each ITL gap ÷ the tokens the later chunk carried, when that
 *     count is known and &gt; 0; pooled</td><td>—</td><td>—</td><td>—</td></tr>
 * <tr><td>{@code TPOT}</td><td>(last token-bearing chunk − first) ÷ (N − 1), N &gt; 1</td>
 *     <td>{@code tpot_ms} (TPOT)</td><td>{@code inter_token_latency_ms} (ITL)</td>
 *     <td>{@code inter_token_latency} (ITL)</td></tr>
 * <tr><td>{@code NTPOT}</td><td>E2E ÷ N, N ≥ 1 (inference-perf's NTPOT)</td>
 *     <td>—</td><td>{@code time_per_output_token_ms} (TPOT)</td><td>—</td></tr>
 * <tr><td>{@code E2E}</td><td>last token-bearing chunk − send</td>
 *     <td>{@code e2el_ms} (E2EL; ends at the last data chunk, usage chunk included)</td><td>—</td>
 *     <td>{@code request_latency} (ends at the last response)</td></tr>
 * <tr><td>{@code STREAM_CLOSE}</td><td>stream closed − send ({@link RequestRecord#endOffsetNanos()})</td>
 *     <td>—</td><td>{@code request_latency} (seconds)</td><td>—</td></tr>
 * <tr><td>{@code TTFT_FROM_INTENDED}</td><td>TTFT + schedule lag: first token − intended send
 *     (response time, free of coordinated omission)</td><td>—</td><td>—</td><td>—</td></tr>
 * <tr><td>{@code E2E_FROM_INTENDED}</td><td>E2E + schedule lag: last token − intended send</td>
 *     <td>—</td><td>—</td><td>—</td></tr>
 * <tr><td>{@code SCHEDULE_LAG}</td><td>send − intended send</td><td>—</td><td>—</td><td>—</td></tr>
 * </table>
 */
public enum LatencyMetric {

  /** Time to first token: first token-bearing chunk minus send. */
  TTFT("first token-bearing chunk (content, reasoning, tool call) - send",
      aliases(null, "time_to_first_token_ms", "time_to_first_token")) {
    @Override
    void collect(RequestRecord r, DoubleArray out) {
      addOffset(r.chunks().firstTokenOffsetNanos(), 0, out);
    }
  },

  /** Time to first content chunk: reasoning and tool-call chunks do not count. */
  TTFC("first content chunk - send (reasoning and tool calls skipped)",
      aliases(null, null, "time_to_first_output_token (TTFO)")) {
    @Override
    void collect(RequestRecord r, DoubleArray out) {
      addOffset(r.chunks().firstOffsetNanos(ChunkKind.CONTENT), 0, out);
    }
  },

  /** vLLM's TTFT: the first chunk that is not usage-only, the role chunk included. */
  TTFT_VLLM_COMPAT("first chunk that is not usage-only - send (counts the role chunk, like vLLM)",
      aliases("ttft_ms (TTFT)", null, null)) {
    @Override
    void collect(RequestRecord r, DoubleArray out) {
      ChunkTimeline.Cursor c = r.chunks().cursor();
      while (c.next()) {
        if (c.kind() != ChunkKind.USAGE) {
          out.addNanosAsMillis(c.offsetNanos());
          return;
        }
      }
    }
  },

  /** Inter-token latency: every gap between consecutive token-bearing chunks, one value per gap. */
  ITL("each gap between consecutive token-bearing chunks, pooled over requests",
      aliases("itl_ms (ITL)", null, "inter_chunk_latency (ICL; gaps between all responses)")) {
    @Override
    void collect(RequestRecord r, DoubleArray out) {
      addGaps(r, false, out);
    }

    @Override
    public boolean isPooled() {
      return true;
    }
  },

  /** Each ITL gap divided by the tokens the later chunk carried, when the server stated that count. */
  ITL_PER_TOKEN("each ITL gap / tokens of the later chunk, when known and > 0; pooled over requests",
      aliases(null, null, null)) {
    @Override
    void collect(RequestRecord r, DoubleArray out) {
      addGaps(r, true, out);
    }

    @Override
    public boolean isPooled() {
      return true;
    }
  },

  /** Time per output token after the first: (last − first token-bearing chunk) / (N − 1), N > 1. */
  TPOT("(last token-bearing chunk - first) / (N - 1), N > 1",
      aliases("tpot_ms (TPOT)", "inter_token_latency_ms (ITL)", "inter_token_latency (ITL)")) {
    @Override
    void collect(RequestRecord r, DoubleArray out) {
      ChunkTimeline c = r.chunks();
      int n = r.outputTokens();
      if (n > 1 && c.tokenChunkCount() > 0) {
        long span = c.lastTokenOffsetNanos().getAsLong() - c.firstTokenOffsetNanos().getAsLong();
        out.addNanosAsMillis((double) span / (n - 1));
      }
    }
  },

  /** Normalised time per output token: E2E / N, N ≥ 1. */
  NTPOT("E2E / N, N >= 1", aliases(null, "time_per_output_token_ms (TPOT)", null)) {
    @Override
    void collect(RequestRecord r, DoubleArray out) {
      ChunkTimeline c = r.chunks();
      int n = r.outputTokens();
      if (n >= 1 && c.tokenChunkCount() > 0) {
        out.addNanosAsMillis((double) c.lastTokenOffsetNanos().getAsLong() / n);
      }
    }
  },

  /** End to end: last token-bearing chunk minus send. */
  E2E("last token-bearing chunk - send",
      aliases("e2el_ms (E2EL; ends at the last data chunk)", null, "request_latency (ends at the last response)")) {
    @Override
    void collect(RequestRecord r, DoubleArray out) {
      addOffset(r.chunks().lastTokenOffsetNanos(), 0, out);
    }
  },

  /** Stream close minus send: includes the trailing usage chunk, {@code [DONE]} and connection close. */
  STREAM_CLOSE("stream closed - send", aliases(null, "request_latency (seconds)", null)) {
    @Override
    void collect(RequestRecord r, DoubleArray out) {
      out.addNanosAsMillis(r.endOffsetNanos());
    }
  },

  /** TTFT measured from the intended send time: the response time a user of the schedule saw. */
  TTFT_FROM_INTENDED("first token-bearing chunk - intended send (TTFT + schedule lag)", aliases(null, null, null)) {
    @Override
    void collect(RequestRecord r, DoubleArray out) {
      addOffset(r.chunks().firstTokenOffsetNanos(), r.scheduleLagNanos(), out);
    }
  },

  /** E2E measured from the intended send time. */
  E2E_FROM_INTENDED("last token-bearing chunk - intended send (E2E + schedule lag)", aliases(null, null, null)) {
    @Override
    void collect(RequestRecord r, DoubleArray out) {
      addOffset(r.chunks().lastTokenOffsetNanos(), r.scheduleLagNanos(), out);
    }
  },

  /** How late the request was sent: actual send minus intended send. */
  SCHEDULE_LAG("send - intended send", aliases(null, null, null)) {
    @Override
    void collect(RequestRecord r, DoubleArray out) {
      out.addNanosAsMillis(r.scheduleLagNanos());
    }
  };

  /** The benchmarking tools whose metric names {@link #aliases()} maps to. */
  public enum Tool {
    /** vLLM's {@code vllm bench serve} (formerly {@code benchmark_serving.py}); JSON result keys. */
    VLLM_BENCH_SERVE,
    /** GuideLLM; per-request statistics field names. */
    GUIDELLM,
    /** NVIDIA AIPerf; metric tags. */
    AIPERF
  }

  /** The unit of every value these metrics produce. */
  public static final String UNIT = "ms";

  private final String definition;
  private final Map<Tool, String> aliases;

  LatencyMetric(String definition, Map<Tool, String> aliases) {
    this.definition = definition;
    this.aliases = aliases;
  }

  /** Adds the values {@code r} contributes, in milliseconds, to {@code out}. */
  abstract void collect(RequestRecord r, DoubleArray out);

  /** The unit of this metric's values: {@value #UNIT}. */
  public String unit() {
    return UNIT;
  }

  /** The formula in one line, for documentation and reports. */
  public String definition() {
    return definition;
  }

  /**
   * Names other tools give this metric (with a parenthesised note when their definition differs in
   * detail); tools without an equivalent are absent. Unmodifiable, in {@link Tool} order.
   */
  public Map<Tool, String> aliases() {
    return aliases;
  }

  /** True for metrics that contribute one value per inter-chunk gap rather than one per request. */
  public boolean isPooled() {
    return false;
  }

  /** The report field name: the lower-case metric name with its unit, e.g. {@code ttft_ms}. */
  public String fieldName() {
    return name().toLowerCase(java.util.Locale.ROOT) + "_" + UNIT;
  }

  /**
   * The values one record contributes, in milliseconds: empty when the metric is undefined for it,
   * one value for per-request metrics, one per gap for pooled ones. Success and warmup are not
   * checked here.
   */
  public double[] valuesMillis(RequestRecord record) {
    DoubleArray out = new DoubleArray(isPooled() ? record.chunks().tokenChunkCount() : 1);
    collect(record, out);
    return out.release();
  }

  /**
   * Adds one value: a chunk's offset from send, plus {@code lagNanos} for the metrics measured from
   * the intended send; nothing when there is no such chunk, for which the metric is undefined.
   */
  private static void addOffset(OptionalLong offsetNanos, long lagNanos, DoubleArray out) {
    if (offsetNanos.isPresent()) {
      out.addNanosAsMillis(offsetNanos.getAsLong() + lagNanos);
    }
  }

  /**
   * Adds one value per gap between consecutive token-bearing chunks: the gap itself, or with
   * {@code perToken} the gap divided by the tokens of the chunk that ends it.
   */
  private static void addGaps(RequestRecord r, boolean perToken, DoubleArray out) {
    if (r.chunks().tokenChunkCount() < 2) {
      return;
    }
    ChunkTimeline.TokenGaps gaps = r.chunks().gaps();
    while (gaps.next()) {
      if (!perToken) {
        out.addNanosAsMillis(gaps.gapNanos());
      } else if (gaps.tokens() > 0) {
        // A chunk of unknown (or zero) size cannot be divided, but it still ends the previous gap.
        out.addNanosAsMillis((double) gaps.gapNanos() / gaps.tokens());
      }
    }
  }

  private static Map<Tool, String> aliases(String vllm, String guidellm, String aiperf) {
    EnumMap<Tool, String> m = new EnumMap<>(Tool.class);
    if (vllm != null) {
      m.put(Tool.VLLM_BENCH_SERVE, vllm);
    }
    if (guidellm != null) {
      m.put(Tool.GUIDELLM, guidellm);
    }
    if (aiperf != null) {
      m.put(Tool.AIPERF, aiperf);
    }
    return Collections.unmodifiableMap(m);
  }
}
