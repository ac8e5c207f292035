package io.infermark.metrics.server;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A level of a scraped memory gauge (a ratio, 1 = 100 %) whose crossings are events: KV-cache usage at 85 % (seed
 * 003 ch. 1: "GPU显存使用率>85%" → shrink the batch and scale out) or 92 % (seed 000 §3.3: "显存占用 > 92%" → KV
 * eviction), memory bandwidth at 95 % of peak (seed 000 §3.3: "BW > 95% × peak" → bandwidth starvation), or any
 * gauge a server exports. {@link MemoryThresholds} finds the crossings.
 *
 * <p>The seeds speak of GPU memory occupancy; a vLLM-like server allocates its GPU memory up front
 * ({@code gpu_memory_utilization}) and what then fills and empties is its KV cache, so the KV thresholds read
 * {@code vllm:kv_cache_usage_perc} (vLLM V1, and the simulator, whose value is its engine's block usage),
 * {@code vllm:gpu_cache_usage_perc} (pre-V1), llama.cpp's {@code llamacpp:kv_cache_usage_ratio} or SGLang's
 * {@code sglang:token_usage}, all ratios whatever the name says. Memory bandwidth reads DCGM's
 * {@code DCGM_FI_PROF_DRAM_ACTIVE} (the share of cycles the device memory interface was busy, a ratio of peak);
 * the simulator models step times, not memory traffic, and exports no bandwidth gauge.
 *
 * @param label a short name for the threshold, e.g. {@code kv 92%}
 * @param series the gauges it reads, in order of preference: the first one that has samples is used
 * @param level the level, a ratio in (0, 1] for the named gauges (any finite number for another gauge)
 * @param meaning what crossing it means, with its source, e.g. {@code KV eviction (seed 000 §3.3)}
 */
public record MemoryThreshold(String label, List<String> series, double level, String meaning) {

  /** The KV-cache usage gauges: vLLM V1's (and the simulator's), vLLM's pre-V1 name, llama.cpp's, SGLang's. */
  public static final List<String> KV_CACHE_SERIES = List.of("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc",
      "llamacpp:kv_cache_usage_ratio", "sglang:token_usage");

  /** The memory-bandwidth gauge (ratio of peak): DCGM's. */
  public static final List<String> BANDWIDTH_SERIES = List.of("DCGM_FI_PROF_DRAM_ACTIVE");

  /** Validates and copies. */
  public MemoryThreshold {
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(meaning, "meaning");
    series = List.copyOf(series);
    if (series.isEmpty()) {
      throw new IllegalArgumentException("a memory threshold needs at least one series");
    }
    if (!Double.isFinite(level)) {
      throw new IllegalArgumentException("a memory threshold's level must be a finite number, was " + level);
    }
  }

  /** KV-cache usage at {@code level} (a ratio in (0, 1]), meaning {@code meaning}. */
  public static MemoryThreshold kvCache(double level, String meaning) {
    return new MemoryThreshold("kv " + percent(ratio(level)), KV_CACHE_SERIES, level, meaning);
  }

  /** Memory bandwidth at {@code level} of peak (a ratio in (0, 1]), meaning {@code meaning}. */
  public static MemoryThreshold bandwidth(double level, String meaning) {
    return new MemoryThreshold("bandwidth " + percent(ratio(level)), BANDWIDTH_SERIES, level, meaning);
  }

  /** Seed 003 ch. 1: KV (GPU memory) usage above 85 %: shrink the batch and scale out. */
  public static MemoryThreshold seed003ShrinkBatch() {
    return kvCache(0.85, "shrink the batch, scale out (seed 003 ch.1)");
  }

  /** Seed 000 §3.3: KV (GPU memory) usage above 92 %: KV eviction. */
  public static MemoryThreshold seed000KvEviction() {
    return kvCache(0.92, "KV eviction (seed 000 §3.3)");
  }

  /** Seed 000 §3.3: memory bandwidth above 95 % of peak: bandwidth starvation. */
  public static MemoryThreshold seed000BandwidthStarvation() {
    return bandwidth(0.95, "bandwidth starvation (seed 000 §3.3)");
  }

  private static double ratio(double level) {
    if (!(level > 0 && level <= 1)) {
      throw new IllegalArgumentException("a usage threshold is a ratio in (0, 1] (0.92 for 92 %), was " + level);
    }
    return level;
  }

  /** {@code 0.92} as {@code 92%}, {@code 0.875} as {@code 87.5%}. */
  static String percent(double ratio) {
    double p = ratio * 100;
    return (Math.abs(p - Math.rint(p)) < 1e-9 ? Long.toString(Math.round(p)) : String.format(Locale.ROOT, "%.4g", p))
        + "%";
  }

  /** The level in words: a percentage for a ratio in (0, 1] ({@code 92%}), else the number ({@code 1500}). */
  public String levelText() {
    return level > 0 && level <= 1 ? percent(level)
        : level == Math.rint(level) && Math.abs(level) < 1e15 ? Long.toString((long) level)
        : String.format(Locale.ROOT, "%.6g", level);
  }

  @Override
  public String toString() {
    return label + " (" + meaning + ")";
  }
}
