package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.cli.InfermarkCliTest.Outcome;
import io.infermark.metrics.server.MemoryThresholds;
import io.infermark.testkit.simulator.EngineProfile;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench --scrape-metrics} watches the seeds' memory thresholds against a simulator whose KV usage is known:
 * 25 blocks of 16 tokens, 3 ms a step, one stream. Each request's sequence grows one token a step from its prompt
 * (a few tokens) to 384 more, its last block the 24th or 25th: the usage the simulator exports (its engine's blocks in use
 * / 25, ground truth) climbs in steps of 0.04 through 0.88 (block 22, past 85 %) and 0.92 (block 23) to 0.96 or 1.0, each
 * of the blocks from 22 on held for 16 steps, then falls to a block or two when the next request starts, for about
 * 350 steps below 85 %. So every request crosses 85 % and 92 % up (a scrape every 10 ms sees the 144 ms or more above 92 %),
 * and every next one crosses both down. Steps that come late on a busy machine last longer: the windows only widen.
 */
class MemoryThresholdsCliTest {

  private static final EngineProfile KV_25 = EngineProfile.builder().name("kv-25").stepOverheadMs(3)
      .decodeBaseMs(0).decodePerSequenceMs(0).decodePerContextTokenMs(0).prefillBaseMs(0).prefillPerTokenMs(0)
      .prefillQuadraticMs(0).maxRunningSequences(4).maxBatchedTokens(8192).kvCacheBlocks(25).blockSize(16)
      .prefixCaching(false).build();

  @TempDir
  Path dir;

  @Test
  void everyRequestCrossesTheSeedsKvThresholdsUpAndTheNextOneDown() throws Exception {
    try (Simulator sim = Simulator.start(SimulatorConfig.builder().engine(KV_25).seed(3).build())) {
      Outcome o = InfermarkCliTest.run("bench", "--backend", "openai-chat", "--base-url",
          "http://127.0.0.1:" + sim.port(), "--endpoint", "/v1/chat/completions", "--model", sim.config().model(),
          "--dataset-name", "random", "--random-input-len", "4", "--random-output-len", "384", "--num-prompts", "3",
          "--ignore-eos", "--max-concurrency", "1", "--result-dir", dir.toString(), "--result-filename", "m.json",
          "--html", "--save-detailed", "--progress", "none", "--scrape-metrics",
          "http://127.0.0.1:" + sim.port() + "/metrics", "--scrape-interval", "0.01", "--scrape-series",
          "vllm:num_requests_running");
      assertThat(o.code()).as(o.out() + o.err()).isZero();

      JsonNode m = new ObjectMapper().readTree(dir.resolve("m.infermark.json").toFile()).get("server_metrics");
      // The thresholds' gauge is scraped although --scrape-series left it out.
      double peak = m.get("series").get("vllm:kv_cache_usage_perc").get("max").asDouble();
      assertThat(peak).isBetween(0.96, 1.0);
      // Ground truth: no scrape read more than the engine's own peak of blocks in use.
      assertThat(peak).isLessThanOrEqualTo(sim.engineStats().peakKvBlocksUsed() / 25.0);
      JsonNode watched = m.get("memory_thresholds").get("watched");
      assertThat(watched).hasSize(3);
      assertThat(watched.get(0).get("label").asText()).isEqualTo("kv 85%");
      assertThat(watched.get(0).get("series").asText()).isEqualTo("vllm:kv_cache_usage_perc");
      assertThat(watched.get(2).get("label").asText()).isEqualTo("bandwidth 95%");
      assertThat(watched.get(2).get("series").isNull()).isTrue(); // the simulator exports no bandwidth gauge
      List<String> kv85 = new ArrayList<>();
      List<String> kv92 = new ArrayList<>();
      for (JsonNode c : m.get("memory_thresholds").get("crossings")) {
        double before = c.get("before").asDouble();
        double after = c.get("after").asDouble();
        double level = c.get("label").asText().equals("kv 85%") ? 0.85 : 0.92;
        boolean up = c.get("direction").asText().equals("up");
        // Ground truth: the gauge is whole blocks of 25, and a crossing's values straddle its level.
        assertThat(after * 25).isCloseTo(Math.rint(after * 25), org.assertj.core.api.Assertions.within(1e-9));
        assertThat(up ? before < level && after >= level : before >= level && after < level).as(c.toString()).isTrue();
        assertThat(c.get("to_s").asDouble()).isGreaterThan(c.get("from_s").asDouble());
        (level == 0.85 ? kv85 : kv92).add(c.get("direction").asText());
      }
      // Three requests: up, down, up, down, up (the last fall may come after the run's last scrape).
      assertThat(kv85).startsWith("up", "down", "up", "down", "up");
      assertThat(kv92).startsWith("up", "down", "up", "down", "up");
      // The console wraps long lines at its width: compare with the whitespace folded.
      assertThat(o.out().replaceAll("\\s+", " ")).contains("memory thresholds: kv 85% on vllm:kv_cache_usage_perc, kv 92% on "
          + "vllm:kv_cache_usage_perc, bandwidth 95% (not exported): ")
          .contains("vllm:kv_cache_usage_perc crossed up 92% (KV eviction (seed 000 §3.3)) (between scrapes at ");
      assertThat(Files.readString(dir.resolve("m.html"))).contains("<h3>Memory thresholds</h3>",
          "kv 85%: shrink the batch, scale out (seed 003 ch.1)");
      // On the records (the HTML report's sample responses show their tags): each request saw its own climb through 92 %.
      String html = Files.readString(dir.resolve("m.html"));
      assertThat(html.split("memory_events=", -1).length - 1).as("requests tagged memory_events").isEqualTo(3);
      assertThat(html).contains("memory_events=vllm:kv_cache_usage_perc crossed up 85%");
    }
  }

  @Test
  void badOrNoThresholds() {
    Outcome bad = InfermarkCliTest.run("bench", "--backend", "openai-chat", "--base-url", "http://127.0.0.1:1",
        "--model", "m", "--scrape-metrics", "http://127.0.0.1:1/metrics", "--memory-threshold", "kv:lots", "--no-save");
    assertThat(bad.code()).isEqualTo(Infermark.USAGE);
    assertThat(bad.err()).contains("--memory-threshold kv:lots: 'lots' is not a number");
    Outcome ratio = InfermarkCliTest.run("bench", "--backend", "openai-chat", "--base-url", "http://127.0.0.1:1",
        "--model", "m", "--scrape-metrics", "http://127.0.0.1:1/metrics", "--memory-threshold", "kv:92", "--no-save");
    assertThat(ratio.code()).isEqualTo(Infermark.USAGE);
    assertThat(ratio.err()).contains("a usage threshold is a ratio in (0, 1] (0.92 for 92 %), was 92.0");

    ScrapeOptions options = new ScrapeOptions();
    options.memoryThresholds = List.of("none");
    assertThat(options.memoryThresholds().thresholds()).isEmpty();
    options.memoryThresholds = List.of("kv:90%", "vllm:num_requests_waiting:8");
    assertThat(options.memoryThresholds().thresholds()).extracting(t -> t.label() + " " + t.level() + " " + t.series())
        .containsExactly("kv 90% 0.9 [vllm:kv_cache_usage_perc, vllm:gpu_cache_usage_perc, llamacpp:kv_cache_usage_ratio, "
            + "sglang:token_usage]", "vllm:num_requests_waiting 8 8.0 [vllm:num_requests_waiting]");
    options.memoryThresholds = null;
    assertThat(options.memoryThresholds().thresholds()).hasSize(3);
    assertThat(MemoryThresholds.TAG).isEqualTo("memory_events");
  }

}
