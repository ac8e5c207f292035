package io.infermark.cli;

import io.infermark.metrics.server.MemoryThreshold;
import io.infermark.metrics.server.MemoryThresholds;
import io.infermark.metrics.server.PrometheusScraper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.Option;

/** Scraping a server's Prometheus {@code /metrics} during a run ({@code --scrape-metrics URL}). */
final class ScrapeOptions {

  /**
   * The series kept when {@code --scrape-series} is not given: the queue, batch and cache gauges and token counters of
   * llama.cpp, vLLM, SGLang and TGI (a series the server does not expose gets no samples and is listed as such).
   */
  static final List<String> DEFAULT_SERIES = List.of(
      "llamacpp:requests_processing", "llamacpp:requests_deferred", "llamacpp:prompt_tokens_total",
      "llamacpp:tokens_predicted_total", "llamacpp:n_decode_total",
      "vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc",
      "vllm:gpu_cache_usage_perc", "vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total",
      "sglang:num_running_reqs", "sglang:num_queue_reqs", "sglang:cache_hit_rate",
      "tgi_queue_size", "tgi_batch_current_size");

  @Option(names = {"--scrape-metrics", "--metrics-url"}, paramLabel = "URL",
      description = "Scrape this Prometheus endpoint (e.g. http://host:8000/metrics) during the run; the series "
          + "go to the console summary, the infermark JSON (server_metrics) and the HTML report.")
  String url;

  @Option(names = "--scrape-interval", paramLabel = "SECONDS", defaultValue = "1",
      description = "Seconds between scrapes (default: ${DEFAULT-VALUE}); a scrape slower than this is late, not lost.")
  double intervalSeconds;

  @Option(names = "--scrape-timeout", paramLabel = "SECONDS", defaultValue = "30",
      description = "Seconds one scrape may take before it counts as failed (default: ${DEFAULT-VALUE}; llama.cpp's "
          + "/metrics waits behind prompt processing).")
  double timeoutSeconds;

  @Option(names = "--scrape-series", paramLabel = "NAME", split = ",",
      description = "Metric names to keep (repeatable or comma-separated; default: queue, batch, cache and token "
          + "series of llama.cpp, vLLM, SGLang and TGI).")
  List<String> series;

  @Option(names = "--memory-threshold", paramLabel = "GAUGE:LEVEL",
      description = "A memory threshold whose crossings (up and down, between two scrapes) are events on the console, "
          + "in the infermark JSON, the HTML report and the requests they overlap (tag memory_events); repeatable. "
          + "GAUGE is kv (vllm:kv_cache_usage_perc, vllm:gpu_cache_usage_perc, llamacpp:kv_cache_usage_ratio or "
          + "sglang:token_usage, the first exported), bandwidth (DCGM_FI_PROF_DRAM_ACTIVE) or any scraped gauge; "
          + "LEVEL a ratio (0.92) or a percentage (92%%). Default: the seeds' kv:85%% (seed 003: shrink the batch, "
          + "scale out), kv:92%% (seed 000: KV eviction), bandwidth:95%% (seed 000: bandwidth starvation); none "
          + "watches nothing.")
  List<String> memoryThresholds;

  /**
   * The memory thresholds {@code --memory-threshold} asks for: the seeds' three by default, none for {@code none}.
   *
   * @throws IllegalArgumentException for a malformed threshold
   */
  MemoryThresholds memoryThresholds() {
    if (memoryThresholds == null || memoryThresholds.isEmpty()) {
      return MemoryThresholds.defaults();
    }
    List<MemoryThreshold> out = new ArrayList<>();
    for (String spec : memoryThresholds) {
      String s = spec.strip();
      if (s.equalsIgnoreCase("none")) {
        continue;
      }
      int colon = s.lastIndexOf(':');
      if (colon <= 0 || colon == s.length() - 1) {
        throw new IllegalArgumentException("--memory-threshold takes GAUGE:LEVEL (kv:0.92, bandwidth:95%, "
            + "vllm:num_requests_waiting:8) or none, was '" + spec + "'");
      }
      String gauge = s.substring(0, colon).strip();
      String levelText = s.substring(colon + 1).strip();
      double level;
      try {
        level = levelText.endsWith("%") ? Double.parseDouble(levelText.substring(0, levelText.length() - 1)) / 100
            : Double.parseDouble(levelText);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("--memory-threshold " + spec + ": '" + levelText + "' is not a number");
      }
      String meaning = "--memory-threshold " + s;
      out.add(switch (gauge.toLowerCase(Locale.ROOT)) {
        case "kv" -> MemoryThreshold.kvCache(level, meaning);
        case "bandwidth" -> MemoryThreshold.bandwidth(level, meaning);
        default -> new MemoryThreshold(gauge + " " + levelText, List.of(gauge), level, meaning);
      });
    }
    return MemoryThresholds.of(out);
  }

  /**
   * The scraper the flags ask for, or empty without {@code --scrape-metrics}.
   *
   * @throws IllegalArgumentException for a bad URL, interval or timeout
   */
  Optional<PrometheusScraper> scraper() {
    if (url == null) {
      return Optional.empty();
    }
    PrometheusScraper.Builder b = PrometheusScraper.builder(url).interval(seconds("--scrape-interval", intervalSeconds))
        .timeout(seconds("--scrape-timeout", timeoutSeconds));
    List<String> names = new ArrayList<>(series == null || series.isEmpty() ? DEFAULT_SERIES : series);
    for (String watched : memoryThresholds().seriesNames()) {
      if (!names.contains(watched)) {
        names.add(watched); // a threshold's gauge is scraped even when --scrape-series leaves it out
      }
    }
    for (String name : names) {
      if (!name.isBlank()) {
        b.series(name.strip());
      }
    }
    return Optional.of(b.build());
  }

  private static Duration seconds(String flag, double s) {
    if (!(s > 0) || Double.isInfinite(s)) {
      throw new IllegalArgumentException(flag + " must be a positive number of seconds, was " + s);
    }
    return Duration.ofNanos(Math.round(s * 1e9));
  }
}
