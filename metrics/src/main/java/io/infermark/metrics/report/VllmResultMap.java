package io.infermark.metrics.report;

import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.workload.WorkloadTags;
import io.infermark.metrics.Distribution;
import io.infermark.metrics.timeseries.TimeSeries;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * Builds the map of a {@link VllmResultJson}: each request as vLLM's client would have seen it, then the keys in
 * the order and with the definitions of vLLM's client (see {@link VllmResultJson} for both).
 */
final class VllmResultMap {

  private VllmResultMap() {}

  /** The run's result map ({@link VllmResultJson#result}). */
  static Map<String, Object> of(RunResult run, VllmResultOptions options) {
    Objects.requireNonNull(options, "options");
    // what happened only: a request a stop left unsent is neither completed nor failed (the interruption counts it)
    List<RequestRecord> records = run.measured().stream().filter(RequestRecord::wasSent).toList();
    PerRequest[] rows = new PerRequest[records.size()];
    for (int i = 0; i < rows.length; i++) {
      rows[i] = PerRequest.of(records.get(i), options.chat);
    }
    return build(run, records, rows, options);
  }

  /** One request as vLLM's client would have seen it (seconds). */
  private record PerRequest(boolean success, int inputLen, int outputLen, double ttft, double[] itl, double latency,
      String text, String error) {

    static PerRequest of(RequestRecord r, boolean chat) {
      int input = inputLength(r);
      if (!r.succeeded()) {
        return new PerRequest(false, input, 0, 0.0, new double[0], 0.0, "",
            r.failure().map(f -> f.category().name().toLowerCase(Locale.ROOT) + ": " + f.message()).orElse("failed"));
      }
      double ttft = 0.0;
      double last = 0.0;
      double lastWithChoices = 0.0;
      boolean first = true;
      List<Double> gaps = new ArrayList<>();
      ChunkTimeline.Cursor c = r.chunks().cursor();
      while (c.next()) {
        double t = c.offsetNanos() / 1e9;
        if (c.kind() != ChunkKind.USAGE) {
          if (first) {
            ttft = t;
            first = false;
          } else {
            gaps.add(t - lastWithChoices);
          }
          lastWithChoices = t;
        }
        last = t;
      }
      double[] itl = gaps.stream().mapToDouble(Double::doubleValue).toArray();
      return new PerRequest(true, input, r.outputTokens(), ttft, itl, chat ? last : lastWithChoices,
          r.text().orElse(""), "");
    }

    private static int inputLength(RequestRecord r) {
      String tagged = r.tags().get(WorkloadTags.INPUT_TOKENS_ACHIEVED);
      if (tagged != null) {
        try {
          return Integer.parseInt(tagged);
        } catch (NumberFormatException e) {
          // fall through to the server's count
        }
      }
      return r.usage().promptTokens().orElse(0);
    }

    double tpot() {
      return outputLen > 1 ? (latency - ttft) / (outputLen - 1) : 0.0;
    }
  }

  private static Map<String, Object> build(RunResult run, List<RequestRecord> records, PerRequest[] rows,
      VllmResultOptions o) {
    double duration = run.durationNanos() / 1e9;
    int completed = 0;
    long totalInput = 0;
    long totalOutput = 0;
    int good = 0;
    List<Double> ttfts = new ArrayList<>();
    List<Double> tpots = new ArrayList<>();
    List<Double> itls = new ArrayList<>();
    List<Double> e2els = new ArrayList<>();
    for (PerRequest r : rows) {
      if (!r.success) {
        continue;
      }
      completed++;
      totalInput += r.inputLen;
      totalOutput += r.outputLen;
      ttfts.add(r.ttft);
      if (r.outputLen > 1) {
        tpots.add(r.tpot());
      }
      for (double gap : r.itl) {
        itls.add(gap);
      }
      e2els.add(r.latency);
      if (isGood(r, o.goodput)) {
        good++;
      }
    }
    TimeSeries series = TimeSeries.of(records, TimeSeries.DEFAULT_INTERVAL);

    Map<String, Object> m = new LinkedHashMap<>();
    m.put("date", VllmResultOptions.DATE.format(o.date));
    m.put("endpoint_type", o.backend);
    m.put("backend", o.backend);
    m.put("label", o.label.orElse(null));
    m.put("model_id", o.modelId);
    m.put("tokenizer_id", o.skipTokenizer ? null : o.tokenizerId);
    m.put("num_prompts", (long) o.numPrompts.orElse(rows.length));
    m.putAll(o.metadata);
    m.put("request_rate", Double.isInfinite(o.requestRate) ? "inf" : (Object) o.requestRate);
    m.put("burstiness", o.burstiness);
    m.put("max_concurrency", o.maxConcurrency.isPresent() ? (Object) (long) o.maxConcurrency.getAsInt() : null);
    o.rampUp.ifPresent(r -> {
      m.put("ramp_up_strategy", r.strategy());
      m.put("ramp_up_start_rps", (long) r.startRps());
      m.put("ramp_up_end_rps", (long) r.endRps());
    });
    m.put("duration", duration);
    m.put("completed", (long) completed);
    m.put("failed", (long) (rows.length - completed));
    m.put("total_input_tokens", totalInput);
    m.put("total_output_tokens", totalOutput);
    m.put("request_throughput", rate(completed, duration));
    m.put("request_goodput", o.goodput.isEmpty() ? null : (Object) rate(good, duration));
    m.put("output_throughput", rate(totalOutput, duration));
    m.put("total_token_throughput", rate(totalInput + totalOutput, duration));
    List<Object> inputLens = new ArrayList<>();
    List<Object> outputLens = new ArrayList<>();
    List<Object> ttftList = new ArrayList<>();
    List<Object> itlList = new ArrayList<>();
    List<Object> latencies = new ArrayList<>();
    List<Object> startTimes = new ArrayList<>();
    List<Object> queueTimes = new ArrayList<>();
    List<Object> texts = new ArrayList<>();
    List<Object> errors = new ArrayList<>();
    List<Double> queues = new ArrayList<>();
    List<Double> e2elsWithQueue = new ArrayList<>();
    boolean infinite = Double.isInfinite(o.requestRate);
    for (int i = 0; i < rows.length; i++) {
      PerRequest r = rows[i];
      RequestRecord rec = records.get(i);
      // vLLM's client_queue_time: its send minus the request's arrival at the client (every request arrives at
      // once for an infinite rate, else at its scheduled time), i.e. the wait for a --max-concurrency slot
      double start = rec.wasSent() ? rec.sendNanos() / 1e9 : rec.intendedNanos() / 1e9;
      double queue = Math.max(0, start - (infinite ? 0 : rec.intendedNanos() / 1e9));
      inputLens.add((long) r.inputLen);
      outputLens.add((long) r.outputLen);
      ttftList.add(r.ttft);
      itlList.add(r.itl);
      latencies.add(r.latency);
      startTimes.add(start);
      queueTimes.add(queue);
      texts.add(r.text);
      errors.add(r.error);
      if (r.success) {
        queues.add(queue);
        e2elsWithQueue.add(r.latency + queue);
      }
    }
    m.put("input_lens", inputLens);
    m.put("output_lens", outputLens);
    m.put("ttfts", ttftList);
    m.put("itls", itlList);
    m.put("latencies", latencies);
    m.put("start_times", startTimes);
    m.put("queue_times", queueTimes);
    m.put("generated_texts", texts);
    m.put("errors", errors);
    m.put("max_output_tokens_per_s", series.peakOutputTokensPerSecond().value());
    m.put("max_concurrent_requests", (long) series.peakConcurrency().value());
    m.put("rtfx", 0.0); // input audio seconds per second of run: vLLM's ASR figure; no audio input is timed here
    m.putAll(o.extras);
    Map<String, List<Double>> values = Map.of("ttft", ttfts, "tpot", tpots, "itl", itls, "e2el", e2els,
        "client_queue_time", queues, "e2el_including_client_queue", e2elsWithQueue);
    for (String metric : VllmResultOptions.METRICS) {
      if (!o.metrics.contains(metric)
          || (o.skipTokenizer && List.of("ttft", "tpot", "itl").contains(metric))
          || (metric.equals("client_queue_time") && o.maxConcurrency.isEmpty())
          || (metric.equals("e2el_including_client_queue") && (o.maxConcurrency.isEmpty() || infinite))) {
        continue; // as vLLM's client: no token metrics without a tokenizer, queue metrics only with a limit
      }
      // numpy's mean, population std and linear percentiles, as vLLM's client: 0 for a metric without values
      Distribution d = Distribution.of(values.get(metric).stream().mapToDouble(Double::doubleValue).toArray());
      m.put("mean_" + metric + "_ms", d.mean().orElse(0) * 1000);
      m.put("median_" + metric + "_ms", d.p50().orElse(0) * 1000);
      m.put("std_" + metric + "_ms", d.std().orElse(0) * 1000);
      for (double p : o.percentiles) {
        m.put("p" + VllmResultJson.percentWord(p) + "_" + metric + "_ms", d.percentile(p / 100).orElse(0) * 1000);
      }
    }
    run.interruption().ifPresent(i -> {
      // infermark's own keys, only in an interrupted run's file: vLLM's readers ignore keys they do not know.
      Map<String, Object> how = new LinkedHashMap<>();
      how.put("reason", i.reason());
      how.put("at", i.at().toString());
      how.put("at_s", i.atNanos() / 1e9);
      how.put("completed", i.completed());
      how.put("cancelled", i.cancelled());
      how.put("not_sent", i.notSent());
      how.put("unknown", i.unknown());
      m.put("interrupted", true);
      m.put("interruption", how);
    });
    return java.util.Collections.unmodifiableMap(m);
  }

  private static boolean isGood(PerRequest r, Map<String, Double> goodput) {
    if (goodput.isEmpty()) {
      return false;
    }
    for (Map.Entry<String, Double> e : goodput.entrySet()) {
      double v = switch (e.getKey()) {
        case "ttft" -> r.ttft;
        case "tpot" -> r.tpot();
        default -> r.latency;
      };
      if (v > e.getValue() / 1000) {
        return false;
      }
    }
    return true;
  }

  private static double rate(double count, double seconds) {
    return seconds > 0 ? count / seconds : 0.0;
  }
}
