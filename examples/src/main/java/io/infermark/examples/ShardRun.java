package io.infermark.examples;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.shard.StartBarrier;
import io.infermark.core.target.OpenAiTarget;
import io.infermark.core.workload.Mix;
import io.infermark.metrics.report.RecordsJsonl;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Properties;

/**
 * Runs one shard of a Poisson schedule (for a Kubernetes Indexed Job, see {@code examples/k8s}) and
 * writes its records to {@code OUT_DIR/shard-<i>.jsonl} and its run facts to
 * {@code OUT_DIR/shard-<i>.properties}; {@link ShardMerge} makes the shards one result.
 *
 * <p>Configured by environment variables: {@code JOB_COMPLETION_INDEX} (this shard, default 0),
 * {@code SHARDS} (how many, default 1), {@code RATE} (requests/s of the whole schedule, default 20),
 * {@code REQUESTS} (of the whole schedule, default 200), {@code SEED} (default 1), {@code START_AT}
 * (an ISO-8601 instant every shard waits for; default: start now), {@code TARGET_URL} and
 * {@code MODEL} (an OpenAI-compatible {@code /v1} base URL and model; default: an embedded
 * simulator), {@code OUT_DIR} (default {@code target/shards}). Every shard must get the same
 * values except its index. The workload is the single-turn mix, identical on every shard.
 */
public final class ShardRun {

  private ShardRun() {}

  /** Runs the shard the environment names. */
  public static void main(String[] args) throws IOException {
    run(System.getenv());
  }

  /** Runs the shard the given settings name (the environment variables above). */
  public static RunResult run(Map<String, String> env) throws IOException {
    int index = Integer.parseInt(env.getOrDefault("JOB_COMPLETION_INDEX", "0"));
    int shards = Integer.parseInt(env.getOrDefault("SHARDS", "1"));
    double rate = Double.parseDouble(env.getOrDefault("RATE", "20"));
    int requests = Integer.parseInt(env.getOrDefault("REQUESTS", "200"));
    long seed = Long.parseLong(env.getOrDefault("SEED", "1"));
    Path out = Path.of(env.getOrDefault("OUT_DIR", "target/shards"));
    LoadProfile load = LoadProfile.poisson(rate).requests(requests).seed(seed).shard(index, shards);

    SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(5)).build();
    Simulator simulator = env.containsKey("TARGET_URL") ? null : Simulator.start(config);
    String url = simulator != null ? simulator.baseUrl() + "/v1" : env.get("TARGET_URL");
    String model = simulator != null ? config.model() : env.getOrDefault("MODEL", "default");
    try (OpenAiTarget target = OpenAiTarget.chat(url, model).build()) {
      Benchmark bench = Benchmark.target(target).workload(Mix.singleTurn())
          .params(GenerationParams.builder().maxTokens(16).ignoreEos(true).build()).load(load);
      if (env.containsKey("START_AT")) {
        bench = bench.startBarrier(StartBarrier.at(Instant.parse(env.get("START_AT"))));
      }
      RunResult result = bench.run();
      Files.createDirectories(out);
      RecordsJsonl.write(result.records(), out.resolve("shard-" + index + ".jsonl"));
      Properties facts = new Properties();
      facts.setProperty("index", Integer.toString(index));
      facts.setProperty("shards", Integer.toString(shards));
      facts.setProperty("rate", Double.toString(rate));
      facts.setProperty("requests", Integer.toString(requests));
      facts.setProperty("seed", Long.toString(seed));
      facts.setProperty("startedAt", result.startedAt().toString());
      facts.setProperty("durationNanos", Long.toString(result.durationNanos()));
      facts.setProperty("target", result.target());
      try (Writer w = Files.newBufferedWriter(out.resolve("shard-" + index + ".properties"))) {
        facts.store(w, "infermark shard " + index + " of " + shards);
      }
      System.out.println("shard " + index + "/" + shards + ": " + result);
      return result;
    } finally {
      if (simulator != null) {
        simulator.close();
      }
    }
  }
}
