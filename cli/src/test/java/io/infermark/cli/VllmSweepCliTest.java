package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.cli.InfermarkCliTest.Outcome;
import io.infermark.testkit.simulator.SimulatorMain;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code infermark bench sweep serve | serve_workload | startup} with vLLM's flags and files, the server a real
 * process: the simulator's {@code SimulatorMain} in a JVM of its own (this test's class path), the bench
 * {@code vllm bench serve ...} run as infermark's own in this JVM.
 */
class VllmSweepCliTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** The simulator as a server command, on {@code port}, serving model {@code m} fast. */
  private static String simulator(int port, String extra) {
    return "'" + Path.of(System.getProperty("java.home"), "bin", "java") + "' -XX:TieredStopAtLevel=1 "
        + "-XX:-UsePerfData -cp '" + System.getProperty("java.class.path") + "' " + SimulatorMain.class.getName()
        + " --host 127.0.0.1 --port " + port + " --model m --profile fixed --ttft-ms 1 --itl-ms 1 --output-tokens 4 "
        + extra;
  }

  private static String bench(int port) {
    return "vllm bench serve --model m --tokenizer cl100k_base --dataset-name random --random-input-len 8 "
        + "--random-output-len 4 --num-prompts 6 --ignore-eos --progress none --port " + port;
  }

  private Path params(String name, String json) throws IOException {
    return Files.writeString(dir.resolve(name), json);
  }

  private List<String> grid(int port) throws IOException {
    return new ArrayList<>(List.of("bench", "sweep", "serve", "--serve-cmd", simulator(port, ""),
        "--bench-cmd", bench(port), "--serve-params",
        params("serve.json", "[{\"max_running_seqs\": 4}, {\"max_running_seqs\": 8}]").toString(),
        "--bench-params", params("bench.json", "[{\"random_input_len\": 16}, {\"random_input_len\": 32}]").toString(),
        "--num-runs", "1", "-o", dir.resolve("results").toString(), "-e", "exp"));
  }

  private static Outcome run(List<String> args) {
    return InfermarkCliTest.run(args.toArray(String[]::new));
  }

  private static int count(String text, String what) {
    Matcher m = Pattern.compile(Pattern.quote(what)).matcher(text);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }

  private static final List<String> COMBS = List.of("SERVE--max_running_seqs=4-BENCH--random_input_len=16",
      "SERVE--max_running_seqs=4-BENCH--random_input_len=32", "SERVE--max_running_seqs=8-BENCH--random_input_len=16",
      "SERVE--max_running_seqs=8-BENCH--random_input_len=32");

  @Test
  void aTwoByTwoGridGivesEachCombinationItsDirectoryServerLogResultsAndSummary() throws IOException {
    int port = freePort();
    Outcome o = run(grid(port));

    assertThat(o.code()).as(o.err()).isZero();
    Path exp = dir.resolve("results").resolve("exp");
    assertThat(count(o.out(), "[BEGIN SERVER]")).as("one server per serve combination").isEqualTo(2);
    assertThat(o.out()).contains("'--max-running-seqs', '4'").contains("'--max-running-seqs', '8'")
        .contains("Experiment has been saved at: " + exp);
    for (String comb : COMBS) {
      Path d = exp.resolve(comb);
      JsonNode run = JSON.readTree(d.resolve("run=0.json").toFile());
      int inputLen = comb.endsWith("16") ? 16 : 32;
      assertThat(run.get("run_number").asInt()).isZero();
      assertThat(run.get("max_running_seqs").asInt()).isEqualTo(comb.contains("seqs=4") ? 4 : 8);
      assertThat(run.get("random_input_len").asInt()).isEqualTo(inputLen);
      assertThat(run.get("completed").asInt()).isEqualTo(6);
      assertThat(run.get("total_input_tokens").asInt()).as("the bench parameter reached the bench")
          .isEqualTo(6 * inputLen);
      JsonNode summary = JSON.readTree(d.resolve("summary.json").toFile());
      assertThat(summary.isArray()).isTrue();
      assertThat(summary).hasSize(1);
      assertThat(summary.get(0).get("random_input_len").asInt()).isEqualTo(inputLen);
      assertThat(d.resolve("server.log")).as(comb + "'s server log: what the server wrote while it ran").exists();
    }
    assertThat(Files.readString(exp.resolve(COMBS.get(0)).resolve("server.log"))).as("the start-up is in the first")
        .contains("simulator started");
    JsonNode started = JSON.readTree(exp.resolve("SERVE--max_running_seqs=4.server.json").toFile());
    assertThat(started.get("server_startup_time").asDouble()).as("seconds from launch to healthy").isPositive();
    assertThat(started.get("address").asText()).isEqualTo("http://127.0.0.1:" + port);
    List<String> csv = Files.readAllLines(exp.resolve("summary.csv"));
    assertThat(csv).hasSize(5);
    assertThat(csv.get(0)).startsWith(",").contains(",run_number,max_running_seqs,random_input_len");
    assertThat(csv.get(1)).startsWith("0,");
    assertThat(o.out()).as("the simulator offers no reset: said, not failed")
        .contains("The server does not offer /reset_prefix_cache");
  }

  @Test
  void resumeAfterAnInterruptedRunRunsOnlyTheMissingCombinations() throws IOException {
    int port = freePort();
    Path once = dir.resolve("once");
    List<String> first = grid(port);
    // the second bench run's after-bench command fails: the sweep stops half-way through the grid
    first.addAll(List.of("--after-bench-cmd", "sh -c 'test -e \"" + once + "\" && exit 7; touch \"" + once + "\"'"));
    Outcome interrupted = run(first);

    assertThat(interrupted.code()).isEqualTo(3);
    assertThat(interrupted.err()).contains("after-bench command").contains("exited with code 7")
        .contains("Use `--resume` to continue");
    Path exp = dir.resolve("results").resolve("exp");
    assertThat(exp.resolve(COMBS.get(0)).resolve("summary.json")).exists();
    assertThat(exp.resolve(COMBS.get(1)).resolve("run=0.json")).exists();
    assertThat(exp.resolve(COMBS.get(1)).resolve("summary.json")).doesNotExist();
    assertThat(exp.resolve(COMBS.get(2))).doesNotExist();
    byte[] done0 = Files.readAllBytes(exp.resolve(COMBS.get(0)).resolve("run=0.json"));
    byte[] done1 = Files.readAllBytes(exp.resolve(COMBS.get(1)).resolve("run=0.json"));

    List<String> again = grid(port);
    again.addAll(List.of("--after-bench-cmd", "true", "--resume"));
    Outcome resumed = run(again);

    assertThat(resumed.code()).as(resumed.err()).isZero();
    assertThat(count(resumed.out(), "[SKIPPED BENCHMARK]")).as("the two runs already done").isEqualTo(2);
    assertThat(count(resumed.out(), "[END BENCHMARK]")).as("only the two missing runs ran").isEqualTo(2);
    assertThat(Files.readAllBytes(exp.resolve(COMBS.get(0)).resolve("run=0.json"))).isEqualTo(done0);
    assertThat(Files.readAllBytes(exp.resolve(COMBS.get(1)).resolve("run=0.json"))).isEqualTo(done1);
    for (String comb : COMBS) {
      assertThat(exp.resolve(comb).resolve("summary.json")).exists();
    }
    assertThat(Files.readAllLines(exp.resolve("summary.csv"))).hasSize(5);
    JsonNode resumedSummary = JSON.readTree(exp.resolve(COMBS.get(1)).resolve("summary.json").toFile());
    assertThat(resumedSummary.get(0).get("random_input_len").asInt()).as("the found run carries its overrides")
        .isEqualTo(32);

    Outcome overwrite = run(grid(port));
    assertThat(overwrite.code()).as("without --resume an existing experiment is not overwritten").isEqualTo(2);
    assertThat(overwrite.err()).contains("cannot overwrite the existing experiment");
  }

  @Test
  void dryRunPrintsTheCommandsAndRunsNothing() throws IOException {
    List<String> args = grid(freePort());
    args.set(4, "/nonexistent/vllm serve m --port 1"); // a server that could not start, were it started
    args.add("--dry-run");
    Outcome o = run(args);

    assertThat(o.code()).as(o.err()).isZero();
    assertThat(count(o.out(), "Server command: ['/nonexistent/vllm', 'serve', 'm', '--port', '1',")).isEqualTo(2);
    assertThat(count(o.out(), "Benchmark command: ['vllm', 'bench', 'serve',")).isEqualTo(4);
    assertThat(o.out()).contains("'--percentile-metrics', 'ttft,tpot,itl,e2el', '--save-result', '--result-dir'")
        .contains("Experiment will be saved at: " + dir.resolve("results").resolve("exp"));
    assertThat(dir.resolve("results")).doesNotExist();
  }

  @Test
  void aServeCommandThatExitsImmediatelyIsAClearErrorWithItsLog() throws IOException {
    List<String> args = grid(freePort());
    args.set(4, "sh -c 'echo cannot load the weights; exit 4'");
    Outcome o = run(args);

    assertThat(o.code()).isEqualTo(3);
    assertThat(o.err()).contains("infermark bench sweep serve: the server command exited with code 4 before GET "
        + "http://localhost:8000/health answered 200").contains("  cannot load the weights");
  }

  @Test
  void aServerThatNeverBecomesHealthyTimesOutAndIsStopped() throws IOException {
    List<String> args = grid(freePort());
    args.set(4, "sh -c 'sleep 60'"); // the serve parameters go to sh as $0...
    args.addAll(List.of("--server-ready-timeout", "1"));
    Outcome o = run(args);

    assertThat(o.code()).isEqualTo(3);
    assertThat(o.err()).contains("the server did not answer 200 on GET http://localhost:8000/health within 1 s "
        + "(--server-ready-timeout)").contains("(the log is empty)");
    assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)
        .filter(p -> p.info().command().orElse("").endsWith("sleep"))).as("the server was stopped").isEmpty();
  }

  @Test
  void startupReportsTheMeasuredTimeFromLaunchToHealthy() throws IOException {
    int port = freePort();
    Path startup = params("startup.json",
        "[{\"_benchmark_name\": \"one\", \"num_iters_cold\": 1, \"num_iters_warmup\": 0, \"num_iters_warm\": 1}]");
    Outcome o = InfermarkCliTest.run("bench", "sweep", "startup", "--startup-cmd", simulator(port,
        "--cold-start-ms 300"), "--startup-params", startup.toString(), "-o", dir.toString(), "-e", "st");

    assertThat(o.code()).as(o.err()).isZero();
    JsonNode run = JSON.readTree(dir.resolve("st").resolve("STARTUP--one").resolve("run=0.json").toFile());
    for (String phase : List.of("cold", "warm")) {
      JsonNode times = run.get(phase + "_startup_times");
      assertThat(times).hasSize(1);
      double t = times.get(0).asDouble();
      assertThat(t).as("the simulator answers /health 503 for its 300 ms cold start").isGreaterThanOrEqualTo(0.3);
      assertThat(run.get("avg_" + phase + "_startup_time").asDouble()).isEqualTo(t);
      assertThat(run.get(phase + "_startup_percentiles").get("99").asDouble()).isEqualTo(t);
    }
    assertThat(run.get("_benchmark_name").asText()).isEqualTo("one");
    assertThat(Files.readString(dir.resolve("st").resolve("STARTUP--one").resolve("server.log")))
        .contains("cold 1 start").contains("warm 1 start");
    assertThat(Files.readAllLines(dir.resolve("st").resolve("summary.csv"))).hasSize(2);
  }

  @Test
  void serveWorkloadRunsSerialAndBatchThenLevelsBetween() throws IOException {
    int port = freePort();
    Outcome o = InfermarkCliTest.run("bench", "sweep", "serve_workload", "--serve-cmd", simulator(port, ""),
        "--bench-cmd", bench(port), "--workload-var", "max_concurrency", "--workload-iters", "3", "--num-runs", "1",
        "-o", dir.toString(), "-e", "wl");

    assertThat(o.code()).as(o.err()).isZero();
    Path exp = dir.resolve("wl");
    assertThat(exp.resolve("BENCH--max_concurrency=1-WL--max_concurrency=1").resolve("summary.json")).exists();
    assertThat(exp.resolve("BENCH--max_concurrency=6-WL--max_concurrency=6").resolve("summary.json")).exists();
    assertThat(o.out()).contains("Dataset size: 6").contains("Serial inference: max_concurrency=")
        .contains("Batch inference: max_concurrency=").contains("Exploring: max_concurrency=");
    List<Path> levels;
    try (Stream<Path> s = Files.list(exp)) {
      levels = s.filter(p -> p.getFileName().toString().startsWith("WL--max_concurrency=")).toList();
    }
    assertThat(levels).as("the one level between serial and batch").hasSize(1);
    assertThat(Files.readAllLines(exp.resolve("summary.csv"))).hasSize(4);
  }

  @Test
  void aStopSignalEndsTheSweepAfterTheRunningBenchStopsTheServerAndLeavesItResumable() throws IOException {
    int port = freePort();
    java.util.concurrent.atomic.AtomicInteger signal = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger benches = new java.util.concurrent.atomic.AtomicInteger();
    io.infermark.cli.vllmsweep.VllmSweepCommand sweep = new io.infermark.cli.vllmsweep.VllmSweepCommand(
        (out, err, a) -> {
          benches.incrementAndGet();
          int code = Infermark.run(out, err, a.toArray(String[]::new));
          signal.set(130); // SIGINT arrives as the first run ends
          return code;
        }, io.infermark.core.time.Clock.system(), java.time.Duration.ofSeconds(10), signal::get);
    java.io.StringWriter out = new java.io.StringWriter();
    java.io.StringWriter err = new java.io.StringWriter();
    picocli.CommandLine cl = new picocli.CommandLine(sweep).setOut(new java.io.PrintWriter(out, true))
        .setErr(new java.io.PrintWriter(err, true));
    List<String> args = grid(port);
    int code = cl.execute(args.subList(2, args.size()).toArray(String[]::new));

    assertThat(code).as(err.toString()).isEqualTo(130);
    assertThat(benches.get()).as("no run starts after the signal").isEqualTo(1);
    assertThat(err.toString()).contains("stopped by SIGINT").contains("Use `--resume` to continue");
    assertThat(out.toString()).as("the running server was stopped").contains("[BEGIN SERVER]")
        .doesNotContain("[END SERVER]");
    assertThat(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive)).as("no server left").isEmpty();
    Path exp = dir.resolve("results").resolve("exp");
    assertThat(exp.resolve(COMBS.get(0)).resolve("run=0.json")).exists();
  }

  @Test
  void serveSlaIsRefusedWithWhatToUseInstead() {
    Outcome o = InfermarkCliTest.run("bench", "sweep", "serve_sla", "--serve-cmd", "vllm serve m", "--bench-cmd",
        "vllm bench serve --model m", "--sla-params", "sla.json", "--sla-variable", "max_concurrency");

    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err().strip()).doesNotContain("Unknown option").contains("serve_workload").hasLineCount(1);
  }

  @Test
  void vllmsUnderscoreSpellingsAreAccepted() throws IOException {
    List<String> args = grid(freePort());
    args.set(3, "--serve_cmd");
    args.set(5, "--bench_cmd");
    args.add("--dry_run");
    Outcome o = run(args);

    assertThat(o.code()).as(o.err()).isZero();
    assertThat(o.out()).contains("Experiment will be saved at");
  }

  @Test
  void prefixesAndAConfigFileWorkAsOnBenchServe() throws IOException {
    List<String> grid = grid(freePort());
    // the serve and bench commands and the parameter files from a YAML file, the rest abbreviated on the line
    Path config = Files.writeString(dir.resolve("sweep.yaml"), "serve_cmd: " + JSON.writeValueAsString(grid.get(4))
        + "\nbench-cmd: " + JSON.writeValueAsString(grid.get(6)) + "\nserve_params: " + grid.get(8)
        + "\nbench_params: " + grid.get(10) + "\nnum_runs: 3\n");
    Outcome o = run(List.of("bench", "sweep", "serve", "--config", config.toString(), "--num-r", "1", "--dry",
        "-o", dir.resolve("results").toString(), "-e", "exp"));

    assertThat(o.code()).as(o.err()).isZero();
    assertThat(count(o.out(), "Benchmark command: ['vllm', 'bench', 'serve',")).as("one run a combination: the "
        + "command line's --num-runs wins over the file's").isEqualTo(4);
    assertThat(dir.resolve("results")).doesNotExist();

    Outcome ambiguous = run(List.of("bench", "sweep", "serve", "--config", config.toString(), "--serve", "x"));
    assertThat(ambiguous.code()).isEqualTo(Infermark.USAGE);
    assertThat(ambiguous.err()).contains("ambiguous option: --serve could match ")
        .contains("--serve-cmd", "--serve-params");
  }
}
