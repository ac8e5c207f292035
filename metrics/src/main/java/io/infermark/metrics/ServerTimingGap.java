package io.infermark.metrics;

import io.infermark.core.capture.RequestRecord;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;

/**
 * A client latency that a server also reports as a duration of its own, and how to read that duration
 * from {@link RequestRecord#serverTimings()}: the difference client − server, per request, in
 * milliseconds, is the share that the network, the client and whatever the server does not count
 * (its HTTP layer, and for Ollama and llama.cpp its queue) add. A request whose server reported
 * nothing comparable contributes no value.
 *
 * <table>
 * <caption>Server durations compared (units as the server reports them; all converted to ms)</caption>
 * <tr><th>gap</th><th>Ollama (ns)</th><th>llama.cpp {@code timings} (ms)</th><th>TGI {@code /generate} headers</th></tr>
 * <tr><td>{@code TTFT_MINUS_SERVER_PREFILL}</td><td>{@code load_duration + prompt_eval_duration}</td>
 *     <td>{@code timings.prompt_ms}</td><td>—</td></tr>
 * <tr><td>{@code E2E_MINUS_SERVER_TOTAL}</td><td>{@code total_duration}</td>
 *     <td>{@code timings.prompt_ms + timings.predicted_ms}</td><td>{@code x-compute-time} (s)</td></tr>
 * <tr><td>{@code TPOT_MINUS_SERVER_PER_TOKEN}</td><td>—</td>
 *     <td>{@code timings.predicted_ms / (timings.predicted_n − 1)}</td><td>—</td></tr>
 * </table>
 *
 * <p>Both clocks measure the same request, the server's from when it read it, so a difference is
 * never negative except by the server's rounding (TGI's whole milliseconds, llama.cpp's decimals) and
 * clock differences between hosts; a negative value is kept, not clamped, so such skew stays visible.
 */
public enum ServerTimingGap {

  /** Client TTFT − the server's prompt processing (model load included when the server reports it). */
  TTFT_MINUS_SERVER_PREFILL("TTFT-srv prefill", "client TTFT - server prompt processing (Ollama load_duration + "
      + "prompt_eval_duration; llama.cpp timings.prompt_ms)") {
    @Override
    OptionalLong clientNanos(RequestRecord r) {
      return r.chunks().firstTokenOffsetNanos();
    }

    @Override
    public OptionalDouble serverMillis(RequestRecord r) {
      Map<String, Double> t = r.serverTimings();
      Double promptEval = t.get("prompt_eval_duration");
      if (promptEval != null) {
        return OptionalDouble.of((promptEval + t.getOrDefault("load_duration", 0.0)) / 1e6);
      }
      Double promptMs = t.get("timings.prompt_ms");
      return promptMs == null ? OptionalDouble.empty() : OptionalDouble.of(promptMs);
    }
  },

  /** Client E2E − the server's whole time for the request. */
  E2E_MINUS_SERVER_TOTAL("E2E-srv total", "client E2E - server total (Ollama total_duration; llama.cpp "
      + "timings.prompt_ms + timings.predicted_ms; TGI x-compute-time)") {
    @Override
    OptionalLong clientNanos(RequestRecord r) {
      return r.chunks().lastTokenOffsetNanos();
    }

    @Override
    public OptionalDouble serverMillis(RequestRecord r) {
      Map<String, Double> t = r.serverTimings();
      Double total = t.get("total_duration");
      if (total != null) {
        return OptionalDouble.of(total / 1e6);
      }
      Double prompt = t.get("timings.prompt_ms");
      Double predicted = t.get("timings.predicted_ms");
      if (prompt != null && predicted != null) {
        return OptionalDouble.of(prompt + predicted);
      }
      Double compute = t.get("x-compute-time");
      return compute == null ? OptionalDouble.empty() : OptionalDouble.of(compute * 1000);
    }
  },

  /**
   * Client TPOT − the server's own time per output token after the first: llama.cpp's
   * {@code timings.predicted_ms / (timings.predicted_n − 1)} ({@code predicted_ms} runs from the first token to the
   * last, so this is the same span and divisor as the client's TPOT). Needs {@code predicted_n > 1} and a client
   * TPOT (N &gt; 1).
   */
  TPOT_MINUS_SERVER_PER_TOKEN("TPOT-srv per token", "client TPOT - server time per output token after the first "
      + "(llama.cpp timings.predicted_ms / (timings.predicted_n - 1))") {
    @Override
    OptionalLong clientNanos(RequestRecord r) {
      return OptionalLong.empty(); // fractional: millis() computes it
    }

    @Override
    public OptionalDouble serverMillis(RequestRecord r) {
      Map<String, Double> t = r.serverTimings();
      Double predicted = t.get("timings.predicted_ms");
      Double n = t.get("timings.predicted_n");
      if (predicted == null || n == null || !(n > 1)) {
        return OptionalDouble.empty();
      }
      return OptionalDouble.of(predicted / (n - 1));
    }

    @Override
    public OptionalDouble millis(RequestRecord r) {
      int n = r.outputTokens();
      if (n < 2 || r.chunks().tokenChunkCount() == 0) {
        return OptionalDouble.empty();
      }
      OptionalDouble server = serverMillis(r);
      if (server.isEmpty() || !Double.isFinite(server.getAsDouble())) {
        return OptionalDouble.empty();
      }
      long span = r.chunks().lastTokenOffsetNanos().getAsLong() - r.chunks().firstTokenOffsetNanos().getAsLong();
      return OptionalDouble.of((double) span / (n - 1) / 1e6 - server.getAsDouble());
    }
  };

  private final String label;
  private final String definition;

  ServerTimingGap(String label, String definition) {
    this.label = label;
    this.definition = definition;
  }

  /** The short name a console row shows, e.g. {@code TTFT-srv prefill}. */
  public String label() {
    return label;
  }

  /** What is subtracted from what, in words. */
  public String definition() {
    return definition;
  }

  /** The key of this gap in the JSON report, e.g. {@code ttft_minus_server_prefill_ms}. */
  public String fieldName() {
    return name().toLowerCase(java.util.Locale.ROOT) + "_ms";
  }

  /** The client's time, ns from send; empty when the record has none. */
  abstract OptionalLong clientNanos(RequestRecord r);

  /** The server's comparable duration in ms, if the record's server reported one. */
  public abstract OptionalDouble serverMillis(RequestRecord r);

  /** Client − server for one record, in ms; empty when either side is missing. */
  public OptionalDouble millis(RequestRecord r) {
    OptionalLong client = clientNanos(r);
    if (client.isEmpty()) {
      return OptionalDouble.empty();
    }
    OptionalDouble server = serverMillis(r);
    if (server.isEmpty() || !Double.isFinite(server.getAsDouble())) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of((double) client.getAsLong() / 1e6 - server.getAsDouble());
  }
}
