package io.infermark.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.Distribution;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.hdr.StreamingSummary;
import io.infermark.metrics.journal.Journal;
import io.infermark.testkit.junit.SimulatorExtension;
import io.infermark.testkit.simulator.Fault;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.DoubleStream;
import java.util.stream.LongStream;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scale-out of docs/kubernetes.md run end to end through the pod's own entrypoint, on one machine: every pod
 * of {@code examples/k8s/shards-job.yaml} started as a process the way the kubelet would start its container
 * ({@link PodEntrypoint}: the image's {@code java} flags and jar, the manifest's args and env with the completion
 * index and {@code __START_AT__} substituted, {@code /results} a directory standing for the claim), against one
 * simulator, then {@code merge-job.yaml}'s {@code infermark merge} the same way.
 *
 * <p>What it changes in the manifest: {@code --base-url} (the simulator, which serves the manifest's model) and the
 * load. The manifest's 20,000 requests at 400 req/s take 50 s; here {@value #PROMPTS} at {@value #RATE} req/s (the
 * same Poisson schedule's shape, 4 s long), so that the whole test takes seconds.
 *
 * <p>Started at once (one wave of JVMs): the {@code completions} pods into volume {@code a}; an unsharded run of the
 * same plan (the same args less {@code --shard-index}/{@code --shard-count}) into volume {@code single}; and a second
 * pod of completion index 2 into volume {@code b}, killed with SIGKILL once its journal holds
 * {@value #KILL_AFTER_RECORDS} records. Volume {@code b} then gets copies of {@code a}'s other shards: the merge sees
 * one run whose shard 2 was killed mid-run while the others finished.
 */
class ShardPodsThroughTheEntrypointTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int PROMPTS = 80;
  private static final String RATE = "20";
  private static final int KILL_AFTER_RECORDS = 3;
  private static final int KILLED_POD = 2;
  /** How far ahead START_AT is: time for every JVM to start and send its test request (a pod that is late starts at once). */
  private static final long BARRIER_LEAD_SECONDS = 10;
  private static final Pattern WAITING = Pattern.compile("Waiting for the start barrier at (\\S+) \\(wall clock now (\\S+)\\)");

  private static final String MODEL;

  static {
    try {
      MODEL = PodEntrypoint.option(
          jsonArgs(PodEntrypoint.container(PodEntrypoint.manifest("shards-job.yaml", "unused"))), "--model");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  // The simulator serves the manifest's model: 5 ms to the first token, then a token every ms, each response delayed
  // by a seeded 0-4 s. The delay spreads the ends of requests sent together: a pod that reached the barrier late
  // sends its overdue requests at once, and the killed pod must still be running after its third record.
  @RegisterExtension
  static final SimulatorExtension SIMULATOR = SimulatorExtension.withConfig(SimulatorConfig.builder().port(0)
      .model(MODEL).timeToFirstToken(Duration.ofMillis(5)).interTokenInterval(Duration.ofMillis(1))
      .fault(Fault.slowdown(1, Duration.ofMillis(4000), Duration.ZERO), 1).build());

  @TempDir
  static Path tmp;

  private static final List<Process> STARTED = new ArrayList<>();
  private static int shards;
  private static Instant startAt;
  private static Path logs;
  private static Path shardsA;
  private static Path shardsB;
  private static Path single;
  private static Map<String, Integer> exits = new TreeMap<>();
  private static Map<String, String> waited = new LinkedHashMap<>();
  private static int killedRecords;
  private static Outcome mergeA;
  private static Outcome refusedB;
  private static Outcome partialB;

  /** A finished process: exit code and output. */
  record Outcome(int code, String out, String err) {}

  private static List<String> jsonArgs(JsonNode container) {
    List<String> args = new ArrayList<>();
    container.get("args").forEach(a -> args.add(a.asText()));
    return args;
  }

  @BeforeAll
  static void runThePodsAndTheMerges(Simulator sim) throws Exception {
    long t0 = System.nanoTime();
    startAt = Instant.now().plusSeconds(BARRIER_LEAD_SECONDS).truncatedTo(ChronoUnit.SECONDS);
    JsonNode job = PodEntrypoint.manifest("shards-job.yaml", startAt.toString());
    JsonNode container = PodEntrypoint.container(job);
    assertThat(container.has("command")).as("no command: the pod runs the image's entrypoint").isFalse();
    String claim = PodEntrypoint.manifest("results-pvc.yaml", startAt.toString()).at("/metadata/name").asText();
    shards = job.at("/spec/completions").asInt();
    assertThat(job.at("/spec/parallelism").asInt()).as("every pod at once").isEqualTo(shards);
    List<String> entrypoint = PodEntrypoint.entrypoint();
    logs = Files.createDirectories(tmp.resolve("logs"));
    Path volumeA = Files.createDirectories(tmp.resolve("a"));
    Path volumeB = Files.createDirectories(tmp.resolve("b"));
    Path volumeSingle = Files.createDirectories(tmp.resolve("single"));

    long childTicks = childCpuTicks();
    long ownCpu = ownCpuNanos();
    Map<String, Process> pods = new LinkedHashMap<>();
    // the pod to be killed first, so that it is the likeliest to reach the barrier in time
    pods.put("b-" + KILLED_POD, startPod(entrypoint, job, container, KILLED_POD, claim, volumeB, sim, false));
    for (int i = 0; i < shards; i++) {
      pods.put("a-" + i, startPod(entrypoint, job, container, i, claim, volumeA, sim, false));
    }
    pods.put("single", startPod(entrypoint, job, container, 0, claim, volumeSingle, sim, true));
    // Where the pods write on the volume: --result-dir below the mount path.
    Path mount = Path.of(container.at("/volumeMounts/0/mountPath").asText());
    String underMount = mount.relativize(Path.of(PodEntrypoint.option(jsonArgs(container), "--result-dir"))).toString();
    shardsA = volumeA.resolve(underMount);
    shardsB = volumeB.resolve(underMount);
    single = volumeSingle.resolve(underMount);

    String stem = "run.shard-" + KILLED_POD + "-of-" + shards;
    Process victim = pods.get("b-" + KILLED_POD);
    killedRecords = killAfterRecords(victim, shardsB.resolve(stem + ".records.jsonl"), "b-" + KILLED_POD);
    for (Map.Entry<String, Process> p : pods.entrySet()) {
      assertThat(p.getValue().waitFor(3, TimeUnit.MINUTES)).as("%s ended", p.getKey()).isTrue();
      exits.put(p.getKey(), p.getValue().exitValue());
      Matcher m = WAITING.matcher(read(logs.resolve(p.getKey() + ".out")));
      waited.put(p.getKey(), m.find() ? m.group(2) : "never waited");
    }
    long podsDone = System.nanoTime();

    // Volume b: the shards of a that were not killed, as if they had run there beside the killed pod.
    for (int i = 0; i < shards; i++) {
      if (i != KILLED_POD) {
        for (String suffix : List.of(".json", ".records.jsonl")) {
          String name = "run.shard-" + i + "-of-" + shards + suffix;
          Files.copy(shardsA.resolve(name), shardsB.resolve(name));
        }
      }
    }
    JsonNode mergeJob = PodEntrypoint.manifest("merge-job.yaml", startAt.toString());
    JsonNode mergeContainer = PodEntrypoint.container(mergeJob);
    List<String> mergeArgsA = PodEntrypoint.args(mergeJob, mergeContainer, PodEntrypoint.env(mergeContainer, 0),
        Map.of(claim, volumeA));
    List<String> mergeArgsB = PodEntrypoint.args(mergeJob, mergeContainer, PodEntrypoint.env(mergeContainer, 0),
        Map.of(claim, volumeB));
    List<String> allowPartial = new ArrayList<>(mergeArgsB);
    allowPartial.add(1, "--allow-partial"); // infermark merge --allow-partial /results/infermark-shards
    // At once: the merges read only the shard files, and write files that are none (run.json, run.*).
    Process a = startMerge(entrypoint, mergeArgsA, "merge-a");
    Process b = startMerge(entrypoint, mergeArgsB, "merge-b");
    Process partial = startMerge(entrypoint, allowPartial, "merge-b-partial");
    mergeA = outcome(a, "merge-a");
    refusedB = outcome(b, "merge-b");
    partialB = outcome(partial, "merge-b-partial");
    long end = System.nanoTime();

    System.out.printf(Locale.ROOT, "entrypoint: %s%nSTART_AT %s; pods at the barrier (wall clock): %s; exits %s; "
        + "killed pod's journal: %d records%npods %.1f s, merges %.1f s, all %.1f s; CPU: child processes %.1f s, "
        + "this JVM %.1f s; load average %s%n",
        entrypoint.stream().map(e -> e.length() > 200 ? "CLASSPATH" : e).collect(Collectors.joining(" ")), startAt,
        waited, exits, killedRecords, (podsDone - t0) / 1e9, (end - podsDone) / 1e9, (end - t0) / 1e9,
        (childCpuTicks() - childTicks) / 100.0, (ownCpuNanos() - ownCpu) / 1e9, loadAverage());
  }

  @AfterAll
  static void killLeftovers() throws InterruptedException {
    for (Process p : STARTED) {
      if (p.isAlive()) {
        p.destroyForcibly();
        p.waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  private static Process startPod(List<String> entrypoint, JsonNode job, JsonNode container, int index, String claim,
      Path volume, Simulator sim, boolean unsharded) throws IOException {
    Map<String, String> env = PodEntrypoint.env(container, index);
    List<String> args = PodEntrypoint.args(job, container, env, Map.of(claim, volume));
    assertThat(args).as("the pod's args after $(JOB_COMPLETION_INDEX) and the sed")
        .contains("--shard-index=" + index, "--start-at=" + startAt);
    args = PodEntrypoint.withOption(args, "--base-url", sim.baseUrl());
    args = PodEntrypoint.withOption(args, "--num-prompts", Integer.toString(PROMPTS));
    args = PodEntrypoint.withOption(args, "--request-rate", RATE);
    if (unsharded) {
      args = PodEntrypoint.withoutOption(PodEntrypoint.withoutOption(args, "--shard-index"), "--shard-count");
    }
    String name = unsharded ? "single" : volume.getFileName() + "-" + index;
    Path workDir = Files.createDirectories(tmp.resolve("workdir-" + name));
    Process p = PodEntrypoint.start(entrypoint, args, env, workDir, logs, name);
    STARTED.add(p);
    return p;
  }

  private static Process startMerge(List<String> entrypoint, List<String> args, String name) throws IOException {
    Process p = PodEntrypoint.start(entrypoint, args, Map.of(), Files.createDirectories(tmp.resolve("workdir-" + name)),
        logs, name);
    STARTED.add(p);
    return p;
  }

  private static Outcome outcome(Process p, String name) throws InterruptedException {
    assertThat(p.waitFor(3, TimeUnit.MINUTES)).as("%s ended", name).isTrue();
    return new Outcome(p.exitValue(), read(logs.resolve(name + ".out")), read(logs.resolve(name + ".err")));
  }

  /**
   * SIGKILLs the pod once its journal holds {@code KILL_AFTER_RECORDS} records, and returns how many it holds after
   * the kill. It is still running then: on time, its schedule goes on for seconds; late at the barrier, it sent its
   * overdue requests at once, but the simulator's 0-4 s delays spread their ends. The caller's assertions on its
   * exit code and journal show that it was killed mid-run.
   */
  private static int killAfterRecords(Process pod, Path journal, String name) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
    while (System.nanoTime() < deadline) {
      if (!pod.isAlive()) {
        throw new AssertionError(name + " ended (exit " + pod.exitValue() + ") before it was killed: "
            + read(logs.resolve(name + ".out")) + read(logs.resolve(name + ".err")));
      }
      if (records(journal) >= KILL_AFTER_RECORDS) {
        pod.destroyForcibly(); // SIGKILL: what an OOM kill, a lost node or a grace period too short do
        assertThat(pod.waitFor(1, TimeUnit.MINUTES)).isTrue();
        return records(journal);
      }
      TimeUnit.MILLISECONDS.sleep(10); // polling a file another process writes: nothing to wait on but time
    }
    throw new AssertionError(name + "'s journal never held " + KILL_AFTER_RECORDS + " records: "
        + read(logs.resolve(name + ".out")) + read(logs.resolve(name + ".err")));
  }

  private static int records(Path journal) {
    if (!Files.exists(journal)) {
      return 0;
    }
    try {
      return Journal.read(journal).records().size();
    } catch (IllegalArgumentException e) {
      return 0; // its header is not written yet
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** CPU time of the child processes this JVM has waited for ({@code /proc/self/stat} cutime + cstime, USER_HZ). */
  private static long childCpuTicks() {
    String stat = read(Path.of("/proc/self/stat"));
    if (stat.isEmpty()) {
      return 0;
    }
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[13]) + Long.parseLong(f[14]); // fields 16 and 17 of proc(5)
  }

  private static long ownCpuNanos() {
    var os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : 0;
  }

  private static String loadAverage() {
    String line = read(Path.of("/proc/loadavg")).strip();
    return line.isEmpty() ? "unknown" : String.join(" ", Arrays.asList(line.split(" ")).subList(0, 3));
  }

  private static Journal shardJournal(Path dir, int index) {
    return Journal.read(dir.resolve("run.shard-" + index + "-of-" + shards + ".records.jsonl"));
  }

  private static Instant startedAt(Journal j) {
    return Instant.parse(j.header().orElseThrow().get("started_at").asText());
  }

  /**
   * The shards' records as one run, each shard's send times moved by how much later than the earliest it started:
   * what {@code ShardMerge} promises; sorted by schedule index.
   */
  private static List<RequestRecord> unionOfShards(List<Journal> journals) {
    Instant earliest = journals.stream().map(ShardPodsThroughTheEntrypointTest::startedAt)
        .min(Comparator.naturalOrder()).orElseThrow();
    List<RequestRecord> all = new ArrayList<>();
    for (Journal j : journals) {
      long offset = Duration.between(earliest, startedAt(j)).toNanos();
      j.records().forEach(r -> all.add(r.toBuilder().sendNanos(r.sendNanos() + offset).build()));
    }
    all.sort(Comparator.comparingLong(RequestRecord::index));
    return all;
  }

  private static List<Journal> journals(Path dir) {
    List<Journal> js = new ArrayList<>();
    for (int i = 0; i < shards; i++) {
      js.add(shardJournal(dir, i));
    }
    return js;
  }

  private static String logsOf(String name) {
    return name + " exited " + exits.get(name) + ": " + read(logs.resolve(name + ".out")) + read(logs.resolve(name + ".err"));
  }

  @Test
  void everyPodRunsItsShardFromTheBarrierAndTheMergeHoldsEveryScheduleIndexOnce() throws IOException {
    for (int i = 0; i < shards; i++) {
      assertThat(exits.get("a-" + i)).as(logsOf("a-" + i)).isZero();
      Journal j = shardJournal(shardsA, i);
      int shard = i;
      assertThat(j.complete()).isTrue();
      assertThat(j.records()).hasSize(PROMPTS / shards).allMatch(r -> r.index() % shards == shard)
          .allMatch(RequestRecord::succeeded);
      // The barrier never releases early; a pod whose JVM reached it late started at once (the merge shifts it).
      assertThat(startedAt(j)).isAfterOrEqualTo(startAt);
      JsonNode facts = JSON.readTree(shardsA.resolve("run.shard-" + i + "-of-" + shards + ".json").toFile());
      assertThat(Instant.parse(facts.get("startedAt").asText())).isEqualTo(startedAt(j));
    }
    assertThat(mergeA.code()).as(mergeA.out() + mergeA.err()).isZero();
    assertThat(mergeA.out()).contains("infermark merge: " + shards + " shards of", "Serving Benchmark Result")
        .doesNotContain("PARTIAL");
    List<RequestRecord> merged = Journal.read(shardsA.resolve("run.records.jsonl")).records();

    assertThat(merged).extracting(RequestRecord::index)
        .containsExactlyElementsOf(LongStream.range(0, PROMPTS).boxed().toList());
    assertThat(merged).allMatch(RequestRecord::succeeded);
    assertThat(merged).as("each shard's records, its send times moved by its start's lateness")
        .containsExactlyElementsOf(unionOfShards(journals(shardsA)));
  }

  @Test
  void theMergedRunIsTheUnshardedRunOfTheSamePlan() throws IOException {
    assertThat(exits.get("single")).as(logsOf("single")).isZero();
    List<RequestRecord> whole = Journal.read(single.resolve("run.records.jsonl")).records().stream()
        .sorted(Comparator.comparingLong(RequestRecord::index)).toList();
    List<RequestRecord> merged = Journal.read(shardsA.resolve("run.records.jsonl")).records();

    assertThat(whole).extracting(RequestRecord::index).containsExactlyElementsOf(merged.stream()
        .map(RequestRecord::index).toList());
    // The same schedule (intended send times from the shared origin) and the same prompts, request by request.
    assertThat(whole).extracting(RequestRecord::intendedNanos)
        .containsExactlyElementsOf(merged.stream().map(RequestRecord::intendedNanos).toList());
    assertThat(whole).extracting(RequestRecord::tags)
        .containsExactlyElementsOf(merged.stream().map(RequestRecord::tags).toList());
    assertThat(whole).extracting(r -> r.usage().promptTokens())
        .containsExactlyElementsOf(merged.stream().map(r -> r.usage().promptTokens()).toList());
    JsonNode one = JSON.readTree(single.resolve("run.json").toFile());
    JsonNode four = JSON.readTree(shardsA.resolve("run.json").toFile());
    for (String field : List.of("num_prompts", "completed", "failed", "request_rate", "total_input_tokens",
        "total_output_tokens")) {
      assertThat(four.get(field)).as(field).isEqualTo(one.get(field));
    }
    assertThat(four.get("completed").asInt()).isEqualTo(PROMPTS);
  }

  @Test
  void theMergedPercentilesAreThoseOfTheUnionOfTheShardsRecordsNotAnAverage() throws IOException {
    List<Journal> journals = journals(shardsA);
    List<RequestRecord> union = unionOfShards(journals);
    JsonNode latency = JSON.readTree(shardsA.resolve("run.infermark.json").toFile()).get("latency");
    int compared = 0;
    for (LatencyMetric metric : LatencyMetric.values()) {
      JsonNode reported = latency.get(metric.fieldName());
      Distribution d = Distribution.of(values(union, metric));
      if (reported == null || d.isEmpty()) {
        continue;
      }
      compared++;
      assertThat(reported.get("count").asInt()).as(metric + " count").isEqualTo(d.count());
      assertThat(reported.get("min").asDouble()).as(metric + " min").isEqualTo(d.min().getAsDouble());
      assertThat(reported.get("max").asDouble()).as(metric + " max").isEqualTo(d.max().getAsDouble());
      assertThat(reported.get("p50").asDouble()).as(metric + " p50").isEqualTo(d.p50().getAsDouble());
      assertThat(reported.get("p90").asDouble()).as(metric + " p90").isEqualTo(d.p90().getAsDouble());
      assertThat(reported.get("p99").asDouble()).as(metric + " p99").isEqualTo(d.p99().getAsDouble());
      assertThat(reported.get("mean").asDouble()).as(metric + " mean")
          .isCloseTo(d.mean().getAsDouble(), within(1e-9 * Math.abs(d.mean().getAsDouble()) + 1e-12));
    }
    assertThat(compared).as("latency metrics compared").isGreaterThanOrEqualTo(8);
    // numpy's linear percentile over the union by hand, and vLLM's field for it (TTFT as vLLM counts it)
    double[] ttft = values(union, LatencyMetric.TTFT_VLLM_COMPAT);
    Arrays.sort(ttft);
    double h = 0.99 * (ttft.length - 1);
    int lo = (int) Math.floor(h);
    double p99 = ttft[lo] + (h - lo) * (ttft[lo + 1] - ttft[lo]);
    JsonNode vllm = JSON.readTree(shardsA.resolve("run.json").toFile());
    // run.json computes vLLM's statistics its own way (as vLLM does, from seconds): equal to within a few ulps
    assertThat(vllm.get("p99_ttft_ms").asDouble()).isCloseTo(p99, within(1e-9));
    assertThat(Distribution.of(ttft).p99().getAsDouble()).isEqualTo(p99);
    double averageOfShards = journals.stream()
        .mapToDouble(j -> Distribution.of(values(j.records(), LatencyMetric.TTFT_VLLM_COMPAT)).p99().getAsDouble())
        .average().orElseThrow();
    System.out.printf(Locale.ROOT, "TTFT p99: merged %.3f ms, the mean of the shards' p99 %.3f ms%n", p99,
        averageOfShards);

    // A record-less run (StreamingSummary) merges its shards' HdrHistograms: the same histogram as the union's.
    StreamingSummary all = summary(union);
    for (LatencyMetric metric : List.of(LatencyMetric.TTFT, LatencyMetric.ITL, LatencyMetric.TPOT, LatencyMetric.E2E)) {
      Histogram added = null;
      for (Journal j : journals) {
        Histogram h1 = summary(j.records()).distribution(metric).histogramNanos();
        if (added == null) {
          added = h1.copy();
        } else {
          added.add(h1);
        }
      }
      assertThat(added).as(metric + " histograms added").isEqualTo(all.distribution(metric).histogramNanos());
    }
  }

  private static StreamingSummary summary(List<RequestRecord> records) {
    StreamingSummary s = new StreamingSummary();
    records.forEach(s::onRecord);
    return s;
  }

  /** A metric's values over the successful measured records, in ms. */
  private static double[] values(List<RequestRecord> records, LatencyMetric metric) {
    return records.stream().filter(r -> r.succeeded() && r.measured())
        .flatMapToDouble(r -> DoubleStream.of(metric.valuesMillis(r))).toArray();
  }

  @Test
  void aPodKilledMidRunIsRefusedByTheMergeThenMergedAsPartialWithItsRecordsKept() throws IOException {
    String name = "b-" + KILLED_POD;
    String stem = "run.shard-" + KILLED_POD + "-of-" + shards;
    Journal killed = Journal.read(shardsB.resolve(stem + ".records.jsonl"));
    int planned = PROMPTS / shards;

    assertThat(exits.get(name)).as("SIGKILL: 128 + 9").isEqualTo(137);
    assertThat(killed.complete()).as("a killed pod's journal has no end line").isFalse();
    assertThat(shardsB.resolve(stem + ".json")).as("nor a facts file").doesNotExist();
    assertThat(killed.records()).hasSize(killedRecords).allMatch(r -> r.index() % shards == KILLED_POD);
    assertThat(killedRecords).isBetween(KILL_AFTER_RECORDS, planned);

    assertThat(refusedB.code()).as(refusedB.out() + refusedB.err()).isEqualTo(2);
    assertThat(refusedB.err()).contains("shard " + KILLED_POD + " of " + shards + " never ended",
        killedRecords + " of its " + planned + " records exist in " + stem + ".records.jsonl", "--allow-partial");
    assertThat(partialB.code()).as(partialB.out() + partialB.err()).isZero();
    assertThat(partialB.out()).contains("PARTIAL (shard " + KILLED_POD + " of " + shards + ")", "INTERRUPTED");

    List<RequestRecord> merged = Journal.read(shardsB.resolve("run.records.jsonl")).records();
    List<Journal> journals = journals(shardsB);
    assertThat(merged).as("every record of every shard, the killed pod's included")
        .containsExactlyElementsOf(unionOfShards(journals));
    assertThat(merged).hasSize(PROMPTS - planned + killedRecords);
    assertThat(merged.stream().map(RequestRecord::requestId).collect(Collectors.toSet()))
        .containsAll(killed.records().stream().map(RequestRecord::requestId).toList());
    JsonNode interruption = JSON.readTree(shardsB.resolve("run.infermark.json").toFile()).at("/run/interruption");
    assertThat(interruption.get("reason").asText()).contains("shard " + KILLED_POD + " of " + shards);
    assertThat(interruption.get("completed").asLong()).isEqualTo(PROMPTS - planned + killedRecords);
    assertThat(interruption.get("unknown").asLong()).isEqualTo(planned - killedRecords);
    assertThat(JSON.readTree(shardsB.resolve("run.json").toFile()).get("interrupted").asBoolean()).isTrue();
  }
}
