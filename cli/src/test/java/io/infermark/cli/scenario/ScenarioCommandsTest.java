package io.infermark.cli.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.cli.Infermark;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.ColdStarts;
import io.infermark.metrics.report.RecordsJsonl;
import io.infermark.metrics.server.ServerEvents;
import io.infermark.perturbation.workload.DensityWeightedClustering;
import io.infermark.perturbation.workload.LogWorkload;
import io.infermark.perturbation.workload.QueryCluster;
import io.infermark.testkit.simulator.ColdStart;
import io.infermark.testkit.simulator.EngineProfile;
import io.infermark.testkit.simulator.PromptBehaviour;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every {@code infermark scenario} kit end to end against the in-JVM simulator, with small parameters: its exit code
 * is its verdict, and its JSON report holds the figures the kit's own test documents (docs/scenarios.md).
 */
class ScenarioCommandsTest {

  @TempDir
  Path dir;

  /** The output, error text, exit code and JSON report of one command line. */
  record Outcome(int code, String out, String err, JsonNode json) {
    String all() {
      return out + err;
    }
  }

  /** Runs a kit without the client warm-up (this JVM is warm; the context-inflation test keeps it). */
  private Outcome run(Simulator sim, String kit, String... flags) throws IOException {
    List<String> all = new ArrayList<>(List.of(flags));
    all.add("--no-client-warmup");
    return runAsGiven(sim, kit, all.toArray(String[]::new));
  }

  private Outcome runAsGiven(Simulator sim, String kit, String... flags) throws IOException {
    Path json = dir.resolve(kit + ".json");
    List<String> args = new ArrayList<>(List.of("scenario", kit, "--base-url", sim.baseUrl(), "--model",
        sim.config().model(), "--json", json.toString()));
    args.addAll(List.of(flags));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Infermark.run(new PrintWriter(out, true), new PrintWriter(err, true), args.toArray(String[]::new));
    JsonNode tree = Files.exists(json) ? new ObjectMapper().readTree(json.toFile()) : null;
    return new Outcome(code, out.toString(), err.toString(), tree);
  }

  private static SimulatorConfig.Builder fast() {
    return SimulatorConfig.builder().port(0).timeToFirstToken(Duration.ofMillis(5))
        .interTokenInterval(Duration.ofMillis(1));
  }

  @Test
  void coldStartMeasuresReadinessAndFailsAPenaltyLimitBelowTheLoad() throws IOException {
    // Ollama's protocol carries load_duration, so the server itself says which requests waited for the load. The
    // model loads on the first request (as Ollama's), for 1 s: both cold requests, sent at once, wait for it however
    // long this JVM took to send them.
    try (Simulator sim = Simulator.start(fast().timeToFirstToken(Duration.ofMillis(10))
        .coldStart(ColdStart.onFirstRequest(Duration.ofMillis(1000))).build())) {
      long before = System.nanoTime();
      Outcome o = run(sim, "cold-start", "--backend", "ollama", "--cold-requests", "2", "--warm-requests", "10",
          "--max-cold-penalty", "50ms");
      double commandMs = (System.nanoTime() - before) / 1e6;

      assertThat(o.code()).as(o.all()).isEqualTo(1);
      JsonNode v = o.json().path("verdict");
      assertThat(o.json().path("pass").asBoolean()).isFalse();
      assertThat(v.path("cold_requests").asInt()).isEqualTo(2);
      assertThat(v.path("warm_requests").asInt()).isEqualTo(10);
      // both cold requests waited for the load, as the server's load_duration says; no warm one did
      assertThat(o.json().path("marked_cold").path("cold_requests").asInt()).isEqualTo(2);
      assertThat(o.json().path("marked_cold").path("warm_requests").asInt()).isZero();
      assertThat(v.path("cold_penalty_ms").asDouble()).isCloseTo(v.path("cold_ttft_ms").asDouble()
          - v.path("warm_ttft_p50_ms").asDouble(), within(1e-9)).isGreaterThan(50);
      assertThat(v.path("time_to_ready_ms").asDouble()).isPositive().isLessThan(commandMs);
      assertThat(v.path("reasons").get(0).asText()).contains("cold-start penalty");
      assertThat(o.out()).contains("cold-start: FAIL").contains("VERDICT FAILED: exit code 1");
      assertThat(o.json().path("parameters").path("max-cold-penalty").asDouble()).isEqualTo(50.0);
      // the records file holds every request, the cold ones tagged with the server's reason
      List<RequestRecord> records = RecordsJsonl.read(dir.resolve("cold-start.records.jsonl"));
      assertThat(records.stream().filter(r -> r.tags().containsKey(ColdStarts.TAG)).map(r -> r.tags()
          .get(ColdStarts.TAG))).hasSize(2).allMatch(why -> why.startsWith("server load_duration"));
    }
  }

  @Test
  void contextInflationStepsThroughTheLengthsAndATtftLimitDegradesTheFirstStep() throws IOException {
    try (Simulator sim = Simulator.start(fast().build())) {
      Outcome ok = runAsGiven(sim, "context-inflation", "--start", "64", "--step", "64", "--max", "256",
          "--requests-per-step", "2");
      assertThat(ok.code()).as(ok.all()).isZero();
      assertThat(ok.out()).containsPattern("client warm-up against an in-process simulator: [0-9.]+ ms");
      JsonNode steps = ok.json().path("verdict").path("steps");
      assertThat(steps).hasSize(4);
      for (int k = 0; k < 4; k++) {
        assertThat(steps.get(k).path("context_tokens").asInt()).isEqualTo(64 * (k + 1));
        assertThat(steps.get(k).path("requests").asInt()).isEqualTo(2);
        assertThat(steps.get(k).path("failed").asInt()).isZero();
        assertThat(steps.get(k).path("ttft_p50_ms").asDouble()).isGreaterThanOrEqualTo(5);
      }
      // The simulator's TTFT is 5 ms at every length: a 1 ms limit degrades the first step.
      Outcome strict = run(sim, "context-inflation", "--start", "64", "--step", "64", "--max", "128",
          "--requests-per-step", "2", "--ttft-limit", "1ms");
      assertThat(strict.code()).as(strict.all()).isEqualTo(1);
      assertThat(strict.json().path("verdict").path("degraded_at").asInt()).isEqualTo(64);
    }
  }

  @Test
  void kvPressureFindsThePreemptionOnsetAndPutsServerEventsOnTheRequests() throws IOException {
    // 64 blocks of 16 tokens: ~64-token prompts growing by 256 tokens need 20 blocks each; 2 streams fit (40 blocks,
    // under 90 % of 64), 4 are admitted together (4 blocks each) and outgrow the cache: preemption (KvPressureKitTest).
    EngineProfile smallKv = EngineProfile.builder().name("small-kv").stepOverheadMs(1).decodeBaseMs(0)
        .decodePerSequenceMs(0).decodePerContextTokenMs(0).prefillBaseMs(0).prefillPerTokenMs(0).prefillQuadraticMs(0)
        .maxRunningSequences(16).maxBatchedTokens(8192).kvCacheBlocks(64).blockSize(16).prefixCaching(false).build();
    try (Simulator sim = Simulator.start(SimulatorConfig.builder().port(0).engine(smallKv).build())) {
      Outcome o = run(sim, "kv-pressure", "--backend", "openai", "--contexts", "64", "--concurrencies", "2,4",
          "--requests-per-stream", "2", "--output-len", "256", "--memory-threshold", "0.9", "--ttft-p99-limit", "10s",
          "--scrape-interval", "10ms");

      assertThat(o.code()).as(o.all()).isEqualTo(1);
      JsonNode cells = o.json().path("verdict").path("cells");
      assertThat(cells).hasSize(2);
      assertThat(cells.get(0).path("quadrant").asText()).isEqualTo("ok");
      assertThat(cells.get(0).path("preemptions").asDouble()).isZero();
      assertThat(cells.get(1).path("quadrant").asText()).isEqualTo("memory_bound");
      assertThat(cells.get(1).path("preemptions").asDouble()).isPositive();
      assertThat(cells.get(0).path("preemptions").asDouble() + cells.get(1).path("preemptions").asDouble())
          .as("the scraped counter's rises are the engine's preemptions").isEqualTo(sim.engineStats().preemptions());
      assertThat(o.json().path("verdict").path("preemption_onset").path("concurrency").asInt()).isEqualTo(4);
      assertThat(o.json().path("requests_with_server_events").asInt()).isPositive();
      assertThat(o.out()).contains("preemption onset: 64 tokens x 4 streams").contains("vllm:num_preemptions_total");
      // server events on the records: every request the preemption counter's rises overlap carries them
      List<RequestRecord> records = RecordsJsonl.read(dir.resolve("kv-pressure.records.jsonl"));
      assertThat(records).hasSize(12);
      assertThat(records.stream().filter(r -> r.tags().containsKey(ServerEvents.TAG)).count())
          .isEqualTo(o.json().path("requests_with_server_events").asLong());
      assertThat(records).filteredOn(r -> r.tags().containsKey(ServerEvents.TAG))
          .allMatch(r -> r.tags().get("kv.concurrency").equals("4"))
          .allMatch(r -> r.tags().get(ServerEvents.TAG).contains("vllm:num_preemptions_total"));
      String html = Files.readString(dir.resolve("kv-pressure.html"));
      assertThat(html).contains("vllm:kv_cache_usage_perc").contains("onset at 64 tokens x 4 streams");
    }
  }

  @Test
  void promptInjectionAgainstAModelThatObeysFailsAndTheBreakerContainsIt() throws IOException {
    try (Simulator sim = Simulator.start(fast().promptBehaviour(PromptBehaviour.followInjections()).build())) {
      Outcome o = run(sim, "prompt-injection", "--rounds", "5", "--output-len", "8");
      // 45 calls one at a time: 5 controls and 40 injections, six of the eight payloads obeyed: 30 successes.
      // The default breaker (window 20, 10 calls, 50 %) opens after the 10th call, blocks the 35 others: 6 leaked.
      assertThat(o.code()).as(o.all()).isEqualTo(1);
      JsonNode v = o.json().path("verdict");
      assertThat(v.path("success_rate").path("valid").asInt()).isEqualTo(30);
      assertThat(v.path("success_rate").path("total").asInt()).isEqualTo(40);
      assertThat(v.path("control_leaks")).isEmpty();
      JsonNode b = o.json().path("circuit_breaker");
      assertThat(b.path("calls_before_first_open").asInt()).isEqualTo(10);
      assertThat(b.path("leaked").asInt()).isEqualTo(6);
      assertThat(b.path("blocked").asInt()).isEqualTo(35);
      assertThat(b.path("pass").asBoolean()).isTrue();
    }
    try (Simulator sim = Simulator.start(fast().build())) {
      Outcome o = run(sim, "prompt-injection", "--rounds", "2", "--output-len", "8");
      assertThat(o.code()).as(o.all()).isZero();
      assertThat(o.json().path("verdict").path("success_rate").path("valid").asInt()).isZero();
      assertThat(o.json().path("verdict").path("success_rate").path("total").asInt()).isEqualTo(16);
      assertThat(o.json().path("circuit_breaker").path("openings").asInt()).isZero();
    }
  }

  @Test
  void tenantIsolationCatchesAContextCacheKeyedWithoutTheTenant() throws IOException {
    try (Simulator sim = Simulator.start(fast().promptBehaviour(PromptBehaviour.leakPreviousContext()).build())) {
      Outcome o = run(sim, "tenant-isolation", "--requests", "40", "--output-len", "8");
      // one stream alternating two tenants: every answer but the first begins with the previous tenant's canary
      assertThat(o.code()).as(o.all()).isEqualTo(1);
      assertThat(o.json().path("verdict").path("leaking_responses").asInt()).isEqualTo(39);
      assertThat(o.json().path("verdict").path("judged").asInt()).isEqualTo(40);
      assertThat(o.out()).contains("acme -> globex").contains("globex -> acme");
    }
    try (Simulator sim = Simulator.start(fast().build())) {
      Outcome o = run(sim, "tenant-isolation", "--requests", "20", "--leak-rate-below", "0.0001", "--output-len",
          "8");
      // no leak, but 20 answers cannot show a rate below 0.01 %: 29,956 are needed
      assertThat(o.code()).as(o.all()).isEqualTo(1);
      assertThat(o.json().path("verdict").path("leaking_responses").asInt()).isZero();
      assertThat(o.out()).contains("29956 responses needed");
      Outcome zero = run(sim, "tenant-isolation", "--requests", "20", "--output-len", "8");
      assertThat(zero.code()).as(zero.all()).isZero();
    }
  }

  @Test
  void retrievalKeepsRecallAloneAndDegradesWhenSearchesOverlap() throws IOException {
    try (Simulator sim = Simulator.start(fast().timeToFirstToken(Duration.ofMillis(2))
        .promptBehaviour(PromptBehaviour.echoContext()).build())) {
      Outcome o = run(sim, "retrieval", "--concurrency", "1,6", "--requests-per-level", "30", "--top-k", "4",
          "--index-latency", "10ms", "--index-latency-per-search", "5ms", "--index-recall-drop", "0.2",
          "--index-min-recall", "0.25", "--index-rank-drop", "1", "--seed", "7", "--fidelity-fuse");
      assertThat(o.code()).as(o.all()).isEqualTo(1);
      JsonNode alone = o.json().path("verdict").path("levels").get(0);
      assertThat(alone.path("mean_recall").asDouble()).isEqualTo(1.0);
      assertThat(alone.path("mrr").asDouble()).isEqualTo(1.0);
      assertThat(alone.path("fidelity").path("mean_score").asDouble()).isEqualTo(1.0);
      assertThat(alone.path("retrieval_p50_ms").asDouble()).isGreaterThanOrEqualTo(10);
      assertThat(alone.path("degraded").asBoolean()).isFalse();
      JsonNode six = o.json().path("verdict").path("levels").get(1);
      assertThat(six.path("degraded").asBoolean()).isTrue();
      assertThat(six.path("mean_recall").asDouble()).isLessThan(0.9);
      // a search that meets others finds fewer relevant documents behind distractors: recall, MRR and fidelity fall
      assertThat(six.path("mrr").asDouble()).isLessThan(1.0);
      assertThat(six.path("fidelity").path("mean_score").asDouble()).isLessThan(1.0);
      assertThat(o.json().path("verdict").path("degraded_at").path("label").asText()).isEqualTo("concurrency 6");
    }
  }

  @Test
  void toolCascadeFallsBackInTimeAndAStaleFallbackFails() throws IOException {
    // Timeouts far above the fast tool's answer (a busy machine once stretched a 5 ms tool past a 40 ms limit):
    // only the slow tasks' tool times out.
    try (Simulator sim = Simulator.start(fast().build())) {
      Outcome o = run(sim, "tool-cascade", "--sessions", "24", "--concurrency", "4", "--tool-latency", "10ms",
          "--slow-tool-latency", "2s", "--tool-timeout", "200ms", "--fallback-latency", "2ms");
      // every other task is slow: 12 of the 24 measured sessions time out and fall back, correctly
      assertThat(o.code()).as(o.all()).isZero();
      JsonNode v = o.json().path("verdict");
      assertThat(v.path("sessions").asInt()).isEqualTo(24);
      assertThat(v.path("timeouts").asInt()).isEqualTo(12);
      assertThat(v.path("fallbacks").asInt()).isEqualTo(12);
      assertThat(v.path("fallback_correct").asInt()).isEqualTo(12);
      // a fallback session's step took the timeout plus the fallback at least
      assertThat(v.path("fallback_step_mean_ms").asDouble()).isGreaterThanOrEqualTo(202);
      assertThat(v.path("cascade_cost_ms").asDouble()).isPositive();
      Outcome stale = run(sim, "tool-cascade", "--sessions", "8", "--concurrency", "4", "--tool-latency", "5ms",
          "--slow-tool-latency", "2s", "--tool-timeout", "200ms", "--fallback-latency", "1ms", "--fallback-stale");
      assertThat(stale.code()).as(stale.all()).isEqualTo(1);
      assertThat(stale.json().path("verdict").path("fallbacks").asInt()).isEqualTo(4);
      assertThat(stale.json().path("verdict").path("fallback_correct").asInt()).isZero();
      assertThat(stale.out()).contains("fallback correct in 0 of 4");
    }
  }

  @Test
  void calibrateFailsAServerSlowerThanTheSla() throws IOException {
    // Every answer takes 5 + 15 x 1 ms = 20 ms, over a 10 ms SLA: no transaction at all.
    try (Simulator sim = Simulator.start(fast().build())) {
      Outcome o = run(sim, "calibrate", "--max-qps", "20", "--min-tps", "15", "--sla-latency", "10ms",
          "--initial-rate", "10", "--duration", "2s", "--settle", "1s");
      assertThat(o.code()).as(o.all()).isEqualTo(1);
      JsonNode v = o.json().path("verdict");
      assertThat(v.path("transactions").asLong()).isZero();
      assertThat(v.path("tps").asDouble()).isZero();
      assertThat(v.path("qps").asDouble()).isPositive().isLessThanOrEqualTo(20.0 * 1.5);
      assertThat(v.path("tokens_per_second").asDouble()).isPositive();
      assertThat(o.out()).contains("TPS (transactions completed/s):        0.00");
    }
  }

  @Test
  void knobControlDrivesEveryModalityToItsMinimumWhenTheTargetIsOutOfReach() throws IOException {
    try (Simulator sim = Simulator.start(fast().build())) {
      Outcome o = run(sim, "knob-control", "--rate", "40", "--duration", "1500ms", "--interval", "200ms",
          "--queue-target", "1000", "--ttft-p99-target", "0.001ms");
      assertThat(o.code()).as(o.all()).isEqualTo(1);
      JsonNode last = o.json().path("verdict").path("last_items");
      assertThat(last.path("image").asDouble()).isEqualTo(1.0);
      assertThat(last.path("audio").asDouble()).isEqualTo(4.0);
      assertThat(last.path("text").asDouble()).isEqualTo(16.0);
      assertThat(o.json().path("verdict").path("last_pressure").asDouble()).isGreaterThan(1);
    }
  }

  @Test
  void densityGivesEachClusterItsShareOfTheRequests() throws IOException {
    LogWorkload w = LogWorkload.of(DensityCommand.SAMPLE_LOG, DensityWeightedClustering.defaults().k(3).seed(1));
    List<io.infermark.core.request.Prompt> expected = w.interleaved(60);
    try (Simulator sim = Simulator.start(fast().build())) {
      Outcome o = run(sim, "density", "--clusters", "3", "--seed", "1", "--requests", "60", "--rate", "200",
          "--representatives", "--output-len", "4");
      assertThat(o.code()).as(o.all()).isZero();
      JsonNode rows = o.json().path("verdict").path("clusters");
      assertThat(rows).hasSize(3);
      int total = 0;
      for (QueryCluster c : w.clusters()) {
        JsonNode row = rows.get(c.id());
        long quota = expected.stream().filter(p -> Integer.toString(c.id()).equals(p.tags().get("cluster"))).count();
        assertThat(row.path("share").asDouble()).isEqualTo(c.weight());
        assertThat(row.path("quota").asLong()).isEqualTo(quota);
        assertThat(row.path("answered").asLong()).isEqualTo(quota);
        total += (int) quota;
      }
      assertThat(total).isEqualTo(60);
    }
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "kv-pressure --memory-threshold 2|memoryThreshold",
      "retrieval --concurrency 0|--concurrency needs levels >= 1",
      "cold-start --warm-requests 0|--cold-requests and --warm-requests must be >= 1",
      "calibrate --settle 5s --duration 2s|--settle (PT5S) must be shorter than --duration (PT2S)",
      "calibrate --bogus 1|Unknown options: '--bogus'",
      "density --rate abc|Invalid value for option '--rate'",
      "tool-cascade --tool-timeout soon|'soon' is not a duration",
      "knob-control --image 1,8|--image takes MIN,MAX,START",
      "tenant-isolation --tenants solo|at least two tenants"})
  void aBadFlagIsAUsageErrorWithOneLineSayingWhy(String line, String message) {
    List<String> args = new ArrayList<>(List.of("scenario"));
    args.addAll(List.of(line.split(" ")));
    args.addAll(List.of("--base-url", "http://127.0.0.1:9", "--model", "m", "--json", dir.resolve("x.json").toString()));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Infermark.run(new PrintWriter(out, true), new PrintWriter(err, true), args.toArray(String[]::new));
    assertThat(code).as(out + "" + err).isEqualTo(Infermark.USAGE);
    String kit = line.split(" ")[0];
    assertThat(err.toString().lines().findFirst().orElseThrow()).startsWith("infermark scenario " + kit + ": ")
        .contains(message);
    assertThat(Files.exists(dir.resolve("x.json"))).as("nothing ran").isFalse();
  }

  @Test
  void scenarioWithoutAKitNamesThem() {
    StringWriter err = new StringWriter();
    int code = Infermark.run(new PrintWriter(new StringWriter(), true), new PrintWriter(err, true), "scenario");
    assertThat(code).isEqualTo(Infermark.USAGE);
    assertThat(err.toString().lines().findFirst().orElseThrow()).isEqualTo("infermark scenario: a kit is needed: "
        + "cold-start, context-inflation, kv-pressure, prompt-injection, tenant-isolation, retrieval, tool-cascade, "
        + "calibrate, knob-control, density");
  }

  @Test
  void anUnreachableServerFailsTheCommandNotTheVerdict() throws IOException {
    Path json = dir.resolve("x.json");
    StringWriter err = new StringWriter();
    int code = Infermark.run(new PrintWriter(new StringWriter(), true), new PrintWriter(err, true), "scenario",
        "tenant-isolation", "--base-url", "http://127.0.0.1:9", "--model", "m", "--requests", "2", "--json",
        json.toString());
    assertThat(code).as(err.toString()).isEqualTo(Infermark.FAILED);
    assertThat(err.toString()).startsWith("infermark scenario tenant-isolation: ");
    assertThat(Files.exists(json)).isFalse();
  }
}
