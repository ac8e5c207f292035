package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.cli.InfermarkCliTest.Outcome;
import io.infermark.testkit.simulator.EngineProfile;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bench} against a simulator whose engine caches prefixes and reports them as llama.cpp does: the console
 * summary shows the client − server gaps and the prefix cache (measured and ideal), and the infermark JSON and the
 * HTML report carry them.
 */
class PrefixCacheCliTest {

  @TempDir
  Path dir;

  @Test
  void benchShowsCacheHitsIdealRatioAndClientMinusServer() throws Exception {
    try (Simulator sim = Simulator.start(SimulatorConfig.builder().engine(EngineProfile.llama8bH200()).seed(5)
        .build())) {
      Outcome o = InfermarkCliTest.run("bench", "--backend", "llama.cpp", "--base-url", "http://127.0.0.1:" + sim.port(),
          "--model", sim.config().model(), "--dataset-name", "random", "--random-prefix-len", "96",
          "--random-input-len", "16", "--random-output-len", "6", "--num-prompts", "8", "--ignore-eos",
          "--max-concurrency", "1", "--result-dir", dir.toString(), "--result-filename", "r.json", "--html",
          "--progress", "none");
      assertThat(o.code()).as(o.out() + o.err()).isZero();
      assertThat(o.out()).contains("client-server (ms)").contains("TTFT-srv prefill").contains("TPOT-srv per token")
          .containsPattern("prefix cache: hit ratio [0-9.]+ % \\([0-9]+ of [0-9]+ prompt tokens cached; 8 of 8 "
              + "requests reported, [1-9][0-9]* hits?\\),\\s+ideal [0-9.]+ %")
          .contains("TTFT cache hit");
      JsonNode c = new ObjectMapper().readTree(dir.resolve("r.infermark.json").toFile()).get("prefix_cache");
      assertThat(c.get("reporting_requests").asInt()).isEqualTo(8);
      assertThat(c.get("cached_tokens").asLong()).isPositive();
      // 7 of 8 prompts repeat the 96-token prefix: the ideal share is well above zero
      assertThat(c.get("ideal_hit_ratio").asDouble()).isGreaterThan(0.5);
      assertThat(c.get("ideal_requests").asInt()).isEqualTo(8);
      assertThat(Files.readString(dir.resolve("r.html"))).contains("<h2>Prefix cache</h2>")
          .contains("<h2>Client − server</h2>");
      // report rebuilds the same lines from the journal (the records keep cached counts and server timings)
      Outcome report = InfermarkCliTest.run("report", dir.resolve("r.records.jsonl").toString(), "-o",
          dir.resolve("again.html").toString(), "--result-dir", dir.resolve("again").toString());
      assertThat(report.code()).as(report.out() + report.err()).isZero();
      assertThat(report.out()).contains("TPOT-srv per token")
          .contains("prefix cache: hit ratio " + o.out().split("prefix cache: hit ratio ")[1].split(" ")[0]);
    }
  }

  @Test
  void benchScrapesTheServersMetricsDuringTheRun() throws Exception {
    try (Simulator sim = Simulator.start(SimulatorConfig.builder().engine(EngineProfile.llama8bH200()).seed(5)
        .build())) {
      Outcome o = InfermarkCliTest.run("bench", "--backend", "openai-chat", "--base-url",
          "http://127.0.0.1:" + sim.port(), "--endpoint", "/v1/chat/completions", "--model", sim.config().model(),
          "--dataset-name", "random", "--random-input-len", "32", "--random-output-len", "6", "--num-prompts", "6",
          "--ignore-eos", "--max-concurrency", "2", "--result-dir", dir.toString(), "--result-filename", "s.json",
          "--html", "--progress", "none", "--scrape-metrics", "http://127.0.0.1:" + sim.port() + "/metrics",
          "--scrape-interval", "0.05", "--scrape-series", "vllm:num_requests_running,vllm:prefix_cache_queries_total");
      assertThat(o.code()).as(o.out() + o.err()).isZero();
      assertThat(o.out()).containsPattern("server metrics http://127\\.0\\.0\\.1:[0-9]+/metrics\\s+[1-9][0-9]* scrapes? "
          + "every 0\\.05 s, [0-9]+ late, 0 failed\\s+\\(timeout 30 s\\)")
          .containsPattern("vllm:prefix_cache_queries_total: [1-9][0-9]* samples");
      JsonNode m = new ObjectMapper().readTree(dir.resolve("s.infermark.json").toFile()).get("server_metrics");
      assertThat(m.get("successful_scrapes").asInt()).isPositive();
      assertThat(m.get("failed_scrapes").asInt()).isZero();
      assertThat(m.get("series").get("vllm:prefix_cache_queries_total").get("samples").asInt()).isPositive();
      assertThat(Files.readString(dir.resolve("s.html"))).contains("<h2>Server metrics</h2>")
          .contains("vllm:num_requests_running");
    }
  }

  @Test
  void aBadScrapeFlagIsAUsageError() {
    Outcome o = InfermarkCliTest.run("bench", "--backend", "openai-chat", "--base-url", "http://127.0.0.1:1", "--model",
        "m", "--scrape-metrics", "http://127.0.0.1:1/metrics", "--scrape-interval", "0", "--no-save");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err()).contains("--scrape-interval must be a positive number of seconds");
  }

  @Test
  void aSharedPrefixRatioIsServedFromCacheAndTheCacheBustMarkerDefeatsIt() throws Exception {
    try (Simulator sim = Simulator.start(SimulatorConfig.builder().engine(EngineProfile.llama8bH200()).seed(5)
        .build())) {
      JsonNode shared = cache(sim, "shared.json");
      JsonNode busted = cache(sim, "busted.json", "--cache-bust");
      assertThat(shared.get("cached_tokens").asLong()).isPositive();
      assertThat(shared.get("ideal_hit_ratio").asDouble()).isGreaterThan(0.6);
      // The marker leads every prompt: the engine finds no full block of it cached, and the ideal sees no shared
      // prefix beyond a few characters of the marker's bracket.
      assertThat(busted.get("cached_tokens").asLong()).isZero();
      assertThat(busted.get("hits").asInt()).isZero();
      assertThat(busted.get("ideal_hit_ratio").asDouble()).isLessThan(0.05);
    }
  }

  private JsonNode cache(Simulator sim, String file, String... extra) throws Exception {
    java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("bench", "--backend", "llama.cpp",
        "--base-url", "http://127.0.0.1:" + sim.port(), "--model", sim.config().model(), "--dataset-name", "random",
        "--random-input-len", "128", "--shared-prefix-ratio", "0.75", "--random-output-len", "4", "--num-prompts", "6",
        "--ignore-eos", "--max-concurrency", "1", "--result-dir", dir.toString(), "--result-filename", file,
        "--progress", "none"));
    args.addAll(java.util.List.of(extra));
    Outcome o = InfermarkCliTest.run(args.toArray(String[]::new));
    assertThat(o.code()).as(o.out() + o.err()).isZero();
    return new ObjectMapper().readTree(dir.resolve(file.replace(".json", ".infermark.json")).toFile())
        .get("prefix_cache");
  }

  @Test
  void aSharedPrefixRatioOutsideZeroToOneIsAUsageError() {
    Outcome o = InfermarkCliTest.run("bench", "--backend", "openai-chat", "--base-url", "http://127.0.0.1:1", "--model",
        "m", "--shared-prefix-ratio", "1.5", "--no-save");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err()).contains("--shared-prefix-ratio must be in [0, 1]");
  }
}
