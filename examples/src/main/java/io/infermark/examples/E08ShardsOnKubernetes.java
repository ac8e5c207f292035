package io.infermark.examples;

import io.infermark.cli.Infermark;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Example 08, shards on Kubernetes: one open-loop schedule split over several load generators, each
 * running {@code infermark bench --shard-index I --shard-count N --start-at T}, then
 * {@code infermark merge} making their files one run. Here the "pods" are threads of this JVM against the
 * embedded simulator; {@code examples/k8s} runs the same command lines as an Indexed Job (docs/kubernetes.md).
 *
 * <p>The lesson: every shard gets the same arguments but its index, and the same start instant, so
 * their union is exactly the schedule one machine would send; a shard that starts late shows it as
 * schedule lag in the merged run, and the merge refuses shards of different settings.
 *
 * <p>Run: {@code E08ShardsOnKubernetes [result dir = target/e08-shards]}.
 */
public final class E08ShardsOnKubernetes {

  /** How many shards (pods) the example runs. */
  public static final int SHARDS = 2;

  private E08ShardsOnKubernetes() {}

  /** Runs the shards and the merge against the embedded simulator. */
  public static void main(String[] args) {
    Path dir = Path.of(args.length > 0 ? args[0] : "target/e08-shards");
    SimulatorConfig config = SimulatorConfig.builder().port(0).timeToFirstToken(Duration.ofMillis(20))
        .interTokenInterval(Duration.ofMillis(2)).build();
    try (Simulator simulator = Simulator.start(config)) {
      int code = run(simulator.baseUrl(), config.model(), dir, new PrintWriter(System.out, true, StandardCharsets.UTF_8));
      System.exit(code);
    }
  }

  /**
   * The arguments of shard {@code index}: what the Job's pod template gives every pod, with its
   * completion index in {@code --shard-index}.
   */
  public static List<String> shardArgs(String baseUrl, String model, int index, Instant startAt, Path dir) {
    return List.of("bench", "--backend", "openai-chat", "--base-url", baseUrl, "--endpoint", "/v1/chat/completions",
        "--model", model, "--dataset-name", "random", "--random-input-len", "64", "--random-output-len", "16",
        "--ignore-eos", "--num-prompts", "60", "--request-rate", "40", "--seed", "1",
        "--shard-index", Integer.toString(index), "--shard-count", Integer.toString(SHARDS),
        "--start-at", startAt.toString(), "--progress", "none", "--result-filename", "run.json",
        "--result-dir", dir.toString());
  }

  /**
   * Runs {@link #SHARDS} shards at once (one thread each, as pods would), waits for all, merges them
   * into {@code dir/run.json}, {@code run.infermark.json} and {@code run.records.jsonl}, and returns
   * the merge's exit code (0 when every gate passed), or the first failing shard's.
   */
  public static int run(String baseUrl, String model, Path dir, PrintWriter out) {
    // Far enough ahead for every shard to start and send its test request; on Kubernetes, for every
    // pod to be scheduled and its image pulled (minutes).
    Instant startAt = Instant.now().plusSeconds(2).truncatedTo(ChronoUnit.SECONDS);
    List<CompletableFuture<Integer>> shards = new ArrayList<>();
    for (int i = 0; i < SHARDS; i++) {
      List<String> args = shardArgs(baseUrl, model, i, startAt, dir);
      shards.add(CompletableFuture.supplyAsync(() -> Infermark.run(out, out, args.toArray(String[]::new))));
    }
    for (CompletableFuture<Integer> shard : shards) {
      int code = shard.join();
      if (code != Infermark.OK) {
        return code;
      }
    }
    return Infermark.run(out, out, "merge", dir.toString());
  }
}
