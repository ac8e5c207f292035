package io.infermark.metrics.report;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.workload.WorkloadTags;
import io.infermark.metrics.Distribution;
import io.infermark.metrics.timeseries.TimeSeries;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;

/**
 * Writes a run as the result JSON of vLLM's {@code benchmark_serving.py} / {@code vllm bench serve
 * --save-result}: the same top-level keys, the same units (seconds for per-request values and the
 * duration, milliseconds for statistics) and vLLM's own definitions, so scripts and dashboards that
 * read vLLM's files read this one unchanged.
 *
 * <p>Keys, in the order of vLLM's current client ({@code vllm/benchmarks/serve.py}; docs/formats.md lists them
 * all, with {@code endpoint_type}, {@code label}, {@code latencies}, {@code start_times}, {@code queue_times},
 * {@code rtfx}, the ramp-up keys, {@link VllmResultOptions.Builder#extra extras} and the client queue metrics): {@code date}
 * ({@code yyyyMMdd-HHmmss}), {@code backend}, {@code model_id},
 * {@code tokenizer_id}, {@code num_prompts}, any {@code --metadata} pairs, {@code request_rate} (a
 * number, or the string {@code "inf"}), {@code burstiness}, {@code max_concurrency} (null when
 * unlimited), {@code duration} (s), {@code completed}, {@code total_input_tokens},
 * {@code total_output_tokens}, {@code request_throughput}, {@code request_goodput} (null without goodput
 * objectives; vLLM's older client spelled it with a trailing colon), {@code output_throughput},
 * {@code total_token_throughput}, the per-request arrays {@code input_lens}, {@code output_lens},
 * {@code ttfts} (s), {@code itls} (s, one list per request), {@code generated_texts} (empty strings
 * unless the run captured text) and {@code errors} (empty for successes), then for each selected
 * metric ({@code ttft}, {@code tpot}, {@code itl}, {@code e2el}) {@code mean_*_ms},
 * {@code median_*_ms}, {@code std_*_ms} and {@code p<P>_*_ms} per selected percentile ({@code p99},
 * {@code p99.9}). Three keys that later vLLM releases added are written too (see {@link #NEWER_VLLM_KEYS}):
 * {@code failed}, {@code max_output_tokens_per_s} (the most output tokens in any one-second window,
 * always computed) and {@code max_concurrent_requests}. An interrupted run's file
 * ({@link RunResult#interruption()}) also has {@code interrupted: true} and {@code interruption} (reason,
 * when, and how many requests completed, were cancelled and were never sent).
 *
 * <p>Definitions, as vLLM's client measures on the same stream (not infermark's own, see
 * {@code LatencyMetric}): TTFT ends at the first chunk with non-empty {@code choices} (a chat
 * stream's role-only chunk included); ITL is every gap between consecutive chunks with choices (the
 * gap from the role chunk to the first content, and to an empty finish chunk, included); latency
 * (e2el) ends at the last chunk a chat stream carried (its usage chunk included) or, on the
 * completions endpoint, at the last chunk with choices; TPOT is {@code (latency - ttft) / (N - 1)}
 * for {@code N > 1}; statistics are numpy's (population std, linear percentiles) over successful
 * requests, and 0 when there are none. Differences that remain: {@code duration} is the run's, from its
 * origin to the end of its last request, where vLLM times its whole loop; input lengths are the
 * client's count of the prompt when the workload tagged it ({@code input_tokens_achieved}), else
 * the server's reported prompt tokens; warmup and cooldown requests are left out, and so are requests a stop
 * left unsent (neither {@code completed} nor {@code failed}, no per-request entry; {@code interruption} counts them).
 */
public final class VllmResultJson {

  /**
   * Keys later vLLM releases write that {@code benchmark_serving.py} at commit 0049e29c did not (a subset of what
   * the current client writes, docs/formats.md).
   */
  public static final Set<String> NEWER_VLLM_KEYS = Set.of("failed", "max_output_tokens_per_s",
      "max_concurrent_requests");

  private static final JsonFactory JSON = JsonFactory.builder().build();
  /** The per-request arrays vLLM's client writes only with {@code --save-detailed}. */
  static final List<String> DETAILED_KEYS = List.of("input_lens", "output_lens", "start_times", "ttfts", "itls",
      "generated_texts", "errors");

  private VllmResultJson() {}

  /**
   * The run's result as vLLM would save it: an ordered map of the keys above to numbers, strings,
   * nulls and lists (per-request ITLs as lists of lists), from which the file is written. A command
   * line tool prints its summary from the same map, so the two never disagree.
   *
   * @throws IllegalStateException if the run did not retain its records
   */
  public static Map<String, Object> result(RunResult run, VllmResultOptions options) {
    return VllmResultMap.of(run, options);
  }

  /** The run as vLLM's result JSON (one line, as {@code json.dump} writes it). */
  public static String toJson(RunResult run, VllmResultOptions options) {
    StringWriter out = new StringWriter();
    write(run, options, out);
    return out.toString();
  }

  /**
   * Writes the run to a file (UTF-8), replacing it.
   *
   * @throws UncheckedIOException if the file cannot be written
   */
  public static void write(RunResult run, VllmResultOptions options, Path file) {
    try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      write(run, options, out);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the vLLM result JSON to " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Writes the run to a writer, flushed and left open.
   *
   * @throws UncheckedIOException if the writer fails
   * @throws IllegalStateException if the run did not retain its records
   */
  public static void write(RunResult run, VllmResultOptions options, Writer out) {
    Map<String, Object> result = result(run, options);
    if (!options.detailed) {
      Map<String, Object> kept = new LinkedHashMap<>(result);
      DETAILED_KEYS.forEach(kept::remove);
      result = kept;
    }
    try (JsonGenerator g = JSON.createGenerator(out)) {
      g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
      writeValue(g, result);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the vLLM result JSON: " + e.getMessage(), e);
    }
  }

  private static void writeValue(JsonGenerator g, Object v) throws IOException {
    if (v == null) {
      g.writeNull();
    } else if (v instanceof Map<?, ?> m) {
      g.writeStartObject();
      for (Map.Entry<?, ?> e : m.entrySet()) {
        g.writeFieldName((String) e.getKey());
        writeValue(g, e.getValue());
      }
      g.writeEndObject();
    } else if (v instanceof List<?> l) {
      g.writeStartArray();
      for (Object o : l) {
        writeValue(g, o);
      }
      g.writeEndArray();
    } else if (v instanceof double[] d) {
      g.writeStartArray();
      for (double x : d) {
        g.writeNumber(x);
      }
      g.writeEndArray();
    } else if (v instanceof Double d) {
      g.writeNumber(d);
    } else if (v instanceof Number n) {
      g.writeNumber(n.longValue());
    } else {
      g.writeString(v.toString());
    }
  }

  /** vLLM's key word for a percentile: {@code 99} for whole numbers, {@code 99.9} otherwise. */
  static String percentWord(double p) {
    return p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p);
  }

  /** How Python prints a float: {@code inf}, {@code 10.0}. */
  static String pythonFloat(double v) {
    return Double.isInfinite(v) ? "inf" : Double.toString(v);
  }
}
