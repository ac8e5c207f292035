package io.infermark.testkit.simulator;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * The simulator's Prometheus metrics, under vLLM's names so dashboards and scrapers built for
 * vLLM read it unchanged: request gauges, KV-cache usage, prefix-cache counters, preemptions,
 * token counters, finished requests by reason, and TTFT and end-to-end latency histograms with
 * vLLM's buckets. Every series carries {@code model_name}. Rendered in the Prometheus text
 * exposition format 0.0.4.
 */
final class ServerMetrics {

  /** vLLM's {@code vllm:time_to_first_token_seconds} buckets. */
  static final double[] TTFT_BUCKETS = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0,
      2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
  /** vLLM's {@code vllm:e2e_request_latency_seconds} buckets. */
  static final double[] E2E_BUCKETS = {0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0,
      60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};

  private final String label;
  private final Histogram ttft = new Histogram(TTFT_BUCKETS);
  private final Histogram e2e = new Histogram(E2E_BUCKETS);
  private final LongAdder promptTokens = new LongAdder();
  private final LongAdder generationTokens = new LongAdder();
  private final LongAdder finishedStop = new LongAdder();
  private final LongAdder finishedLength = new LongAdder();
  private final LongAdder[] faults = new LongAdder[Fault.Kind.values().length];

  ServerMetrics(String model) {
    this.label = "model_name=\"" + model.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\"";
    for (int i = 0; i < faults.length; i++) {
      faults[i] = new LongAdder();
    }
  }

  void firstToken(long ttftNanos, int promptTokens) {
    ttft.observe(ttftNanos / 1e9);
    this.promptTokens.add(promptTokens);
  }

  void tokens(int count) {
    generationTokens.add(count);
  }

  void finished(String finishReason, long e2eNanos) {
    (finishReason.equals("stop") ? finishedStop : finishedLength).increment();
    e2e.observe(e2eNanos / 1e9);
  }

  void fault(Fault.Kind kind) {
    faults[kind.ordinal()].increment();
  }

  byte[] render(EngineStats engine) {
    StringBuilder s = new StringBuilder(4096);
    gauge(s, "vllm:num_requests_running", "Number of requests in model execution batches.", engine.running());
    gauge(s, "vllm:num_requests_waiting", "Number of requests waiting to be processed.", engine.waiting());
    gauge(s, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", engine.kvCacheUsage());
    gauge(s, "vllm:gpu_cache_usage_perc", "GPU KV-cache usage. 1 means 100 percent usage (pre-V1 name).",
        engine.kvCacheUsage());
    gauge(s, "vllm:gpu_prefix_cache_hit_rate", "Prefix cache hit rate, by tokens, since start (pre-V1 name).",
        engine.prefixCacheHitRate());
    counter(s, "vllm:prefix_cache_queries", "Prefix cache queries, in terms of number of queried tokens.",
        engine.prefixQueryTokens());
    counter(s, "vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens.",
        engine.prefixHitTokens());
    counter(s, "vllm:num_preemptions", "Cumulative number of preemptions from the engine.", engine.preemptions());
    gauge(s, "infermark_sim:kv_cache_fragmentation_perc", "Internal KV-cache fragmentation: share of the running "
        + "sequences' block slots holding no token. 1 means 100 percent.", engine.kvFragmentation());
    gauge(s, "infermark_sim:kv_blocks_swapped", "KV blocks of preempted sequences held in host memory (swap "
        + "preemption).", engine.kvBlocksSwapped());
    counter(s, "infermark_sim:kv_swap_out_blocks", "KV blocks swapped out to host memory at preemptions.",
        engine.swapOutBlocks());
    counter(s, "infermark_sim:kv_swap_in_blocks", "KV blocks swapped back in at readmissions.",
        engine.swapInBlocks());
    counter(s, "vllm:prompt_tokens", "Number of prefill tokens processed.", promptTokens.sum());
    counter(s, "vllm:generation_tokens", "Number of generation tokens processed.", generationTokens.sum());
    s.append("# HELP vllm:request_success_total Count of successfully processed requests.\n")
        .append("# TYPE vllm:request_success_total counter\n");
    s.append("vllm:request_success_total{finished_reason=\"stop\",").append(label).append("} ")
        .append(number(finishedStop.sum())).append('\n');
    s.append("vllm:request_success_total{finished_reason=\"length\",").append(label).append("} ")
        .append(number(finishedLength.sum())).append('\n');
    ttft.render(s, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.");
    e2e.render(s, "vllm:e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.");
    s.append("# HELP infermark_sim:faults_total Faults injected by the simulator, by kind.\n")
        .append("# TYPE infermark_sim:faults_total counter\n");
    for (Fault.Kind k : Fault.Kind.values()) {
      s.append("infermark_sim:faults_total{kind=\"").append(k.name().toLowerCase(Locale.ROOT)).append("\",")
          .append(label).append("} ").append(number(faults[k.ordinal()].sum())).append('\n');
    }
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  private void gauge(StringBuilder s, String name, String help, double value) {
    s.append("# HELP ").append(name).append(' ').append(help).append('\n')
        .append("# TYPE ").append(name).append(" gauge\n")
        .append(name).append('{').append(label).append("} ").append(number(value)).append('\n');
  }

  private void counter(StringBuilder s, String name, String help, double value) {
    s.append("# HELP ").append(name).append("_total ").append(help).append('\n')
        .append("# TYPE ").append(name).append("_total counter\n")
        .append(name).append("_total{").append(label).append("} ").append(number(value)).append('\n');
  }

  static String number(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? (long) v + ".0" : Double.toString(v);
  }

  /** A cumulative Prometheus histogram. */
  private final class Histogram {

    private final double[] bounds;
    private final AtomicLongArray counts;
    private final DoubleAdder sum = new DoubleAdder();

    Histogram(double[] bounds) {
      this.bounds = bounds;
      this.counts = new AtomicLongArray(bounds.length + 1);
    }

    void observe(double seconds) {
      int i = 0;
      while (i < bounds.length && seconds > bounds[i]) {
        i++;
      }
      counts.incrementAndGet(i);
      sum.add(seconds);
    }

    void render(StringBuilder s, String name, String help) {
      s.append("# HELP ").append(name).append(' ').append(help).append('\n')
          .append("# TYPE ").append(name).append(" histogram\n");
      long cumulative = 0;
      for (int i = 0; i <= bounds.length; i++) {
        cumulative += counts.get(i);
        String le = i == bounds.length ? "+Inf" : Double.toString(bounds[i]);
        s.append(name).append("_bucket{le=\"").append(le).append("\",").append(label).append("} ")
            .append(number(cumulative)).append('\n');
      }
      s.append(name).append("_count{").append(label).append("} ").append(number(cumulative)).append('\n');
      s.append(name).append("_sum{").append(label).append("} ").append(number(sum.sum())).append('\n');
    }
  }
}
