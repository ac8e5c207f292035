package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.metrics.report.RecordsJsonl;
import io.infermark.metrics.report.VllmResultJson;
import io.infermark.testkit.junit.InjectSimulator;
import io.infermark.testkit.junit.SimulatorExtension;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import io.infermark.testkit.simulator.SimulatorProtocol;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The command line end to end, in-process, against the embedded simulator. */
class InfermarkCliTest {

  @InjectSimulator
  private Simulator sim;

  @TempDir
  Path dir;

  @RegisterExtension
  static final SimulatorExtension SIMULATOR = SimulatorExtension.withConfig(
      SimulatorConfig.builder().port(0).timeToFirstToken(Duration.ofMillis(5))
        .interTokenInterval(Duration.ofMillis(1)).build());

  /** The output, error text and exit code of one command line. */
  record Outcome(int code, String out, String err) {}

  static Outcome run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Infermark.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Outcome(code, out.toString(), err.toString());
  }

  private List<String> bench(String... extra) {
    List<String> args = new ArrayList<>(List.of("bench", "--backend", "openai-chat", "--base-url",
        "http://127.0.0.1:" + sim.port(), "--endpoint", "/v1/chat/completions", "--model", sim.config().model(),
        "--dataset-name", "random", "--random-input-len", "32", "--random-output-len", "8", "--num-prompts", "12",
        "--ignore-eos", "--max-concurrency", "4", "--result-dir", dir.toString()));
    args.addAll(List.of(extra));
    return args;
  }

  /** Every protocol the library has is a backend: the same run against the simulator's serving of each. */
  @ParameterizedTest
  @ValueSource(strings = {"tgi", "tensorrt-llm", "anthropic", "ollama", "ollama-generate", "llama.cpp",
      "openai-responses"})
  void everyNativeProtocolIsABackend(String backend) throws IOException {
    Outcome o = run("bench", "--backend", backend, "--base-url", "http://127.0.0.1:" + sim.port(), "--model",
        sim.config().model(), "--dataset-name", "random", "--random-input-len", "32", "--random-output-len", "8",
        "--num-prompts", "6", "--ignore-eos", "--max-concurrency", "3", "--result-dir", dir.toString(),
        "--result-filename", "r.json", "--progress", "lines");

    assertThat(o.code()).as(o.out() + o.err()).isZero();
    assertThat(o.out()).contains("(" + backend + ")", "Successful requests:                     6");
    JsonNode result = new ObjectMapper().readTree(dir.resolve("r.json").toFile());
    assertThat(result.get("backend").asText()).isEqualTo(backend);
    assertThat(result.get("completed").asInt()).isEqualTo(6);
    assertThat(result.get("total_output_tokens").asInt()).isPositive();
  }

  @Test
  void benchOverH2cAgainstAnHttp2Simulator() throws IOException {
    try (Simulator h2 = Simulator.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(5))
        .interTokenInterval(Duration.ofMillis(1)).build(), SimulatorProtocol.H2C)) {
      Outcome o = run("bench", "--backend", "openai-chat", "--base-url", "http://127.0.0.1:" + h2.port(), "--endpoint",
          "/v1/chat/completions", "--model", h2.config().model(), "--dataset-name", "random", "--random-input-len",
          "32", "--random-output-len", "8", "--num-prompts", "6", "--ignore-eos", "--max-concurrency", "3",
          "--http2", "h2c", "--result-dir", dir.toString(), "--result-filename", "h2.json", "--progress", "lines");

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      JsonNode result = new ObjectMapper().readTree(dir.resolve("h2.json").toFile());
      assertThat(result.get("completed").asInt()).isEqualTo(6);
      assertThat(result.get("total_output_tokens").asInt()).isEqualTo(6 * 8);
    }
  }

  /** Triton's gRPC streaming is a backend too, with either tensor convention, against the simulator's gRPC service. */
  @ParameterizedTest
  @ValueSource(strings = {"triton-grpc", "triton-grpc-vllm"})
  void benchOverGrpcAgainstTheSimulatorsGrpcService(String backend) throws IOException {
    try (Simulator grpc = Simulator.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(5))
        .interTokenInterval(Duration.ofMillis(1)).build(), SimulatorProtocol.H2C)) {
      Outcome o = run("bench", "--backend", backend, "--base-url", "http://127.0.0.1:" + grpc.port(), "--model",
          grpc.config().model(), "--dataset-name", "random", "--random-input-len", "32", "--random-output-len", "8",
          "--num-prompts", "6", "--max-concurrency", "3", "--grpc-keepalive-ms", "60000", "--result-dir",
          dir.toString(), "--result-filename", "grpc.json", "--progress", "lines");

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      assertThat(o.out()).contains("(" + backend + ")");
      JsonNode result = new ObjectMapper().readTree(dir.resolve("grpc.json").toFile());
      assertThat(result.get("backend").asText()).isEqualTo(backend);
      assertThat(result.get("completed").asInt()).isEqualTo(6);
      assertThat(result.get("total_output_tokens").asInt()).isPositive();
    }
    Outcome h2 = run("bench", "--backend", backend, "--base-url", "http://127.0.0.1:" + sim.port(), "--model", "m",
        "--num-prompts", "1", "--http2", "h2c");
    assertThat(h2.code()).isEqualTo(2);
    assertThat(h2.err()).contains("gRPC always speaks HTTP/2");
  }

  /**
   * A Triton model that does not take return_num_output_tokens (an older backend) fails the test request with
   * a message saying to turn it off; --triton-token-counts off then runs, over HTTP and gRPC.
   */
  @ParameterizedTest
  @ValueSource(strings = {"triton", "triton-grpc-vllm"})
  void aTritonModelThatRefusesTokenCountsSaysToTurnThemOff(String backend) throws IOException {
    try (Simulator old = Simulator.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(5))
        .interTokenInterval(Duration.ofMillis(1)).tritonTokenCounts(false).build(),
        backend.startsWith("triton-grpc") ? SimulatorProtocol.H2C : SimulatorProtocol.HTTP_1_1)) {
      String[] common = {"bench", "--backend", backend, "--base-url", "http://127.0.0.1:" + old.port(), "--model",
          old.config().model(), "--dataset-name", "random", "--random-input-len", "16", "--random-output-len", "8",
          "--num-prompts", "2", "--result-dir", dir.toString(), "--result-filename", "old.json", "--progress",
          "lines"};
      Outcome refused = run(common);
      assertThat(refused.code()).as(refused.out() + refused.err()).isNotZero();
      assertThat(refused.err()).contains("unexpected inference input 'return_num_output_tokens'")
          .contains("the model does not take return_num_output_tokens: turn it off")
          .contains("--triton-token-counts off");

      List<String> off = new ArrayList<>(List.of(common));
      off.addAll(List.of("--triton-token-counts", "off"));
      Outcome ran = run(off.toArray(String[]::new));
      assertThat(ran.code()).as(ran.out() + ran.err()).isZero();
      assertThat(new ObjectMapper().readTree(dir.resolve("old.json").toFile()).get("completed").asInt()).isEqualTo(2);
    }
    Outcome bad = run("bench", "--backend", backend, "--base-url", "http://127.0.0.1:" + sim.port(), "--model", "m",
        "--num-prompts", "1", "--triton-token-counts", "maybe");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).contains("--triton-token-counts must be auto, on or off");
  }

  @Test
  void http2ModesThatContradictTheUrlAreRefusedWithTheFix() {
    Outcome h2 = run("bench", "--base-url", "http://127.0.0.1:" + sim.port(), "--model", "m", "--num-prompts", "1",
        "--http2", "h2");
    assertThat(h2.code()).isEqualTo(2);
    assertThat(h2.err()).contains("use --http2 h2c");
    Outcome okhttp = run("bench", "--base-url", "http://127.0.0.1:" + sim.port(), "--model", "m", "--num-prompts",
        "1", "--http2", "h2c", "--transport", "okhttp");
    assertThat(okhttp.code()).isEqualTo(2);
    assertThat(okhttp.err()).contains("--http2 needs the netty transport");
    Outcome bad = run("bench", "--base-url", "http://127.0.0.1:" + sim.port(), "--model", "m", "--num-prompts", "1",
        "--http2", "h3");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).contains("--http2 must be h2, h2c or auto");
  }

  @Test
  void anEndpointWithANativeBackendIsRefusedWithItsReason() {
    Outcome o = run("bench", "--backend", "tgi", "--base-url", "http://127.0.0.1:" + sim.port(), "--endpoint",
        "/v1/completions", "--model", "m", "--num-prompts", "1");
    assertThat(o.code()).isEqualTo(2);
    assertThat(o.err()).contains("--endpoint applies to the OpenAI-compatible backends");
  }

  @Test
  void benchPrintsVllmsSummaryAndWritesVllmsKeysAtTopLevel() throws IOException {
    Outcome o = run(bench("--percentile-metrics", "ttft,tpot,itl,e2el,client_queue_time", "--metric-percentiles",
        "50,90,99", "--goodput", "ttft:200", "tpot:50", "--save-result", "--save-detailed", "--result-filename",
        "r.json", "--progress", "lines").toArray(String[]::new));

    assertThat(o.code()).as(o.err()).isZero();
    assertThat(o.out()).contains("Serving Benchmark Result", "Successful requests:                     12",
        "P99 TTFT (ms):", "Mean E2EL (ms):", "Client health:", "Goodput ratio:");
    assertThat(o.err()).contains("[12/12 100.0%]");
    JsonNode json = new ObjectMapper().readTree(dir.resolve("r.json").toFile());
    Set<String> keys = new HashSet<>();
    json.fieldNames().forEachRemaining(keys::add);
    assertThat(keys).isEqualTo(new HashSet<>(vllmKeys()));
    List<String> order = new ArrayList<>();
    json.fieldNames().forEachRemaining(order::add);
    assertThat(order).as("vLLM's key order").isEqualTo(vllmKeys());
    // --save-detailed writes the texts, as vLLM's client does
    assertThat(json.get("generated_texts")).allSatisfy(t -> assertThat(t.asText()).isNotEmpty());
    assertThat(json.get("start_times")).hasSize(12);
    assertThat(json.get("queue_times")).allSatisfy(t -> assertThat(t.asDouble()).isGreaterThanOrEqualTo(0));
    assertThat(json.get("completed").asInt()).isEqualTo(12);
    assertThat(json.get("max_concurrency").asInt()).isEqualTo(4);
    assertThat(json.get("request_rate").asText()).isEqualTo("inf");
    assertThat(json.get("ttfts")).hasSize(12);
    assertThat(json.get("output_lens")).allSatisfy(n -> assertThat(n.asInt()).isEqualTo(8));
    // vLLM's ITL: a gap before each chunk with choices after the first, the role chunk included.
    assertThat(json.get("itls").get(0).size()).isGreaterThanOrEqualTo(7);
    assertThat(json.get("max_output_tokens_per_s").asDouble()).isPositive();
    assertThat(RecordsJsonl.read(dir.resolve("r.records.jsonl"))).hasSize(12);
    assertThat(new ObjectMapper().readTree(dir.resolve("r.infermark.json").toFile()).get("schema_version").asInt())
        .isEqualTo(2);
  }

  @Test
  void tokenizerIdNamesTheTokenizerThatCountedAndAWarningSaysWhenItIsNotTheModels() throws IOException {
    // A Hugging Face name JTokkit does not know: the prompts are counted with cl100k_base, and the file says so.
    Outcome hf = run(bench("--progress", "none", "--save-result", "--result-filename", "hf.json", "--tokenizer",
        "meta-llama/Meta-Llama-3-8B-Instruct").toArray(String[]::new));
    assertThat(hf.code()).as(hf.err()).isZero();
    assertThat(new ObjectMapper().readTree(dir.resolve("hf.json").toFile()).get("tokenizer_id").asText())
        .isEqualTo("cl100k_base");
    assertThat(hf.err()).contains("warning: prompt token lengths are counted with cl100k_base, not with "
        + "meta-llama/Meta-Llama-3-8B-Instruct");

    // No --tokenizer and a model JTokkit does not know: the same, naming the model.
    Outcome none = run(bench("--progress", "none", "--save-result", "--result-filename", "none.json")
        .toArray(String[]::new));
    assertThat(new ObjectMapper().readTree(dir.resolve("none.json").toFile()).get("tokenizer_id").asText())
        .isEqualTo("cl100k_base");
    assertThat(none.err()).contains("not with " + sim.config().model() + "'s own tokenizer");

    // An OpenAI model name JTokkit knows is that model's vocabulary: no warning.
    Outcome gpt = run(bench("--progress", "none", "--save-result", "--result-filename", "gpt.json", "--tokenizer",
        "gpt-4o").toArray(String[]::new));
    assertThat(new ObjectMapper().readTree(dir.resolve("gpt.json").toFile()).get("tokenizer_id").asText())
        .isEqualTo("o200k_base");
    assertThat(gpt.err()).doesNotContain("warning");
  }

  private static List<String> vllmKeys() throws IOException {
    try (InputStream in = InfermarkCliTest.class.getResourceAsStream("/vllm-result-keys.txt")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines()
          .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
    }
  }

  @Test
  void failedGateExitsWithOne() {
    Outcome o = run(bench("--no-save", "--slo", "ttft:p50:0.000001").toArray(String[]::new));

    assertThat(o.code()).as(o.err()).isEqualTo(Infermark.GATE_FAILED);
    assertThat(o.out()).contains("Gate FAIL TTFT p50 <= ", "GATE FAILED");
  }

  @Test
  void passedGatesExitWithZero() {
    Outcome o = run(bench("--no-save", "--progress", "none", "--slo", "e2e:p99:60000", "--max-error-rate", "0",
        "--goodput", "e2el:60000", "--min-goodput-ratio", "1", "--tokenizer", "cl100k_base").toArray(String[]::new));

    assertThat(o.code()).as(o.err()).isZero();
    assertThat(o.out()).contains("Gate PASS E2E p99 <= 60000 ms", "PASS goodput ratio >= 1.0 (measured 1.0000)");
    assertThat(o.err()).isEmpty();
  }

  @Test
  void badFlagsGiveAClearErrorAndExitTwo() {
    Outcome notANumber = run("bench", "--model", "m", "--num-prompts", "many");
    assertThat(notANumber.code()).isEqualTo(Infermark.USAGE);
    assertThat(notANumber.err()).contains("--num-prompts", "many");

    Outcome unknown = run("bench", "--model", "m", "--num-promts", "3");
    assertThat(unknown.code()).isEqualTo(Infermark.USAGE);
    assertThat(unknown.err()).contains("Unknown option", "--num-promts", "--num-prompts");

    Outcome noPath = run("bench", "--model", "m", "--dataset-name", "sharegpt");
    assertThat(noPath.code()).isEqualTo(Infermark.USAGE);
    assertThat(noPath.err()).contains("infermark bench: --dataset-name sharegpt needs --dataset-path FILE");

    Outcome topLevel = run("--bogus");
    assertThat(topLevel.code()).isEqualTo(Infermark.USAGE);
    assertThat(topLevel.err()).startsWith("infermark: Unknown option: '--bogus'").doesNotContain("infermark infermark");

    Outcome simBogus = run("sim", "--bogus");
    assertThat(simBogus.code()).isEqualTo(Infermark.USAGE);
    assertThat(simBogus.err()).contains("infermark sim: unknown option --bogus").doesNotContain("needs a value");

    Outcome badSlo = run("bench", "--model", "m", "--slo", "ttft:p99");
    assertThat(badSlo.code()).isEqualTo(Infermark.USAGE);
    assertThat(badSlo.err()).contains("--slo takes METRIC:PERCENTILE:MS");

    Outcome noModel = run("bench", "--base-url", "http://127.0.0.1:1");
    assertThat(noModel.code()).isEqualTo(Infermark.USAGE);
    assertThat(noModel.err()).contains("--model is missing and the server's model list at "
        + "http://127.0.0.1:1/v1/models gave none (it could not be asked", "name the model with --model");

    Outcome withPassword = run("bench", "--base-url", "http://user:s3cret@127.0.0.1:1");
    assertThat(withPassword.code()).isEqualTo(Infermark.USAGE);
    assertThat(withPassword.err()).contains("http://***@127.0.0.1:1/v1/models").doesNotContain("s3cret");

    Outcome nativeNoModel = run("bench", "--backend", "ollama", "--base-url", "http://127.0.0.1:1");
    assertThat(nativeNoModel.code()).isEqualTo(Infermark.USAGE);
    assertThat(nativeNoModel.err()).contains("--model is required with backend ollama");
  }

  @Test
  void withoutModelTheFirstModelTheServerListsIsUsedAsVllmsClientDoes() throws IOException {
    List<String> args = bench("--result-filename", "r.json");
    int at = args.indexOf("--model");
    args.remove(at + 1);
    args.remove(at);

    Outcome o = run(args.toArray(String[]::new));

    assertThat(o.code()).as(o.out() + o.err()).isZero();
    assertThat(o.err()).contains("infermark: no --model: using " + sim.config().model() + ", the first model http://127.0.0.1:"
        + sim.port() + "/v1/models lists");
    assertThat(o.out()).contains("model " + sim.config().model(), "Successful requests:                     12");
    assertThat(new ObjectMapper().readTree(dir.resolve("r.json").toFile()).get("model_id").asText())
        .isEqualTo(sim.config().model());
  }

  @Test
  void unreadableDatasetFileExitsThreeAsDocumented() {
    Outcome o = run("bench", "--model", "m", "--dataset-name", "sharegpt", "--dataset-path",
        dir.resolve("absent.json").toString());

    assertThat(o.code()).isEqualTo(Infermark.FAILED);
    assertThat(o.err()).contains("--dataset-path", "absent.json is not a readable file");
  }

  @Test
  void unreachableServerFailsFastWithExitThree() throws IOException {
    int closedPort;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      closedPort = s.getLocalPort();
    }
    Outcome o = run("bench", "--base-url", "http://127.0.0.1:" + closedPort, "--model", "m", "--num-prompts", "3",
        "--no-save");

    assertThat(o.code()).isEqualTo(Infermark.FAILED);
    assertThat(o.err()).contains("the initial test request to http://127.0.0.1:" + closedPort + "/v1/completions failed");
  }

  @Test
  void everyCommandHasHelp() {
    for (String command : List.of("bench", "sweep", "capacity", "sim", "report", "explain")) {
      Outcome o = run(command, "--help");
      assertThat(o.code()).as(command).isZero();
      assertThat(o.out()).as(command).contains("Usage: infermark " + command);
    }
    assertThat(run("sim", "--help").out()).contains("--ttft-ms X", "--cold-start-ms X", "--cold-start-on WHEN",
        "--scale-to-zero-ms X", "--swap-preemption-ms X");
    Outcome top = run("--help");
    assertThat(top.code()).isZero();
    assertThat(top.out()).contains("bench", "sweep", "capacity", "sim", "report", "explain");
    assertThat(run().code()).isEqualTo(Infermark.USAGE);
  }

  @Test
  void reportAndExplainReadBenchsRecords() throws IOException {
    assertThat(run(bench("--result-filename", "a.json", "--progress", "none").toArray(String[]::new)).code()).isZero();
    assertThat(run(bench("--result-filename", "b.json", "--progress", "none").toArray(String[]::new)).code()).isZero();

    Outcome report = run("report", dir.resolve("b.json").toString(), "--compare", dir.resolve("a.records.jsonl").toString(),
        "-o", dir.resolve("b.html").toString());
    assertThat(report.code()).as(report.err()).isZero();
    assertThat(report.out()).contains("Compared with a", "TTFT p99");
    assertThat(Files.readString(dir.resolve("b.html"))).startsWith("<!DOCTYPE html>");

    Outcome explain = run("explain", dir.resolve("a.json").toString(), dir.resolve("b.json").toString());
    assertThat(explain.code()).as(explain.err()).isZero();
    assertThat(explain.out()).contains("Why did P99 E2E move from a to b?", "Shapley split over phases", "Did E2E drift?");

    Outcome missing = run("explain", dir.resolve("a.json").toString(), dir.resolve("nothing.json").toString());
    assertThat(missing.code()).isEqualTo(Infermark.USAGE);
    assertThat(missing.err()).contains("nothing.json is not a records file");
  }

  @Test
  void reportTellsTheRunsOwnFactsAndComparesOnAPage() throws IOException {
    Outcome bench = run(bench("--result-filename", "p.json", "--progress", "none", "--request-rate", "40")
        .toArray(String[]::new));
    assertThat(bench.code()).as(bench.err()).isZero();
    // bench writes the HTML report beside the JSON by default
    assertThat(bench.out()).contains(dir.resolve("p.html") + " (HTML report)");
    String benchHtml = Files.readString(dir.resolve("p.html"));
    assertThat(benchHtml).startsWith("<!DOCTYPE html>").contains("poisson(40.0/s)");
    JsonNode facts = new ObjectMapper().readTree(dir.resolve("p.infermark.json").toFile());
    String startedAt = facts.path("run").path("started_at").asText();
    String verdict = facts.path("client_health").path("verdict").asText().replace('_', ' ');

    Outcome report = run("report", dir.resolve("p.json").toString(), "-o", dir.resolve("again.html").toString());
    assertThat(report.code()).as(report.err()).isZero();
    String html = Files.readString(dir.resolve("again.html"));
    assertThat(html).contains("started " + startedAt, "poisson(40.0/s)", "client</div><div class='value'>" + verdict)
        .doesNotContain("1970-01-01", "closed loop");
    assertThat(report.out()).doesNotContain("1970-01-01");

    Outcome noHtml = run(bench("--result-filename", "q.json", "--progress", "none", "--no-html").toArray(String[]::new));
    assertThat(noHtml.code()).as(noHtml.err()).isZero();
    assertThat(dir.resolve("q.html")).doesNotExist();

    Outcome compare = run("report", dir.resolve("p.json").toString(), "--compare", dir.resolve("q.json").toString(),
        "-o", dir.resolve("p2.html").toString());
    assertThat(compare.code()).as(compare.err()).isZero();
    assertThat(compare.out()).contains("Verdict: ", "Wrote " + dir.resolve("p-vs-q.html") + " (comparison page)");
    String page = Files.readString(dir.resolve("p-vs-q.html"));
    assertThat(page).startsWith("<!DOCTYPE html>").contains("p compared with q", "Verdict:", "TTFT CDF",
        "TTFT histogram", "interval of Δ (ms)", "TTFT p99");
  }

  @Test
  void sweepWritesItsCurveWithTheKnee() throws IOException {
    Path page = dir.resolve("sweep.html");
    Outcome o = run("sweep", "--base-url", "http://127.0.0.1:" + sim.port(), "--model", sim.config().model(),
        "--random-input-len", "16", "--random-output-len", "4", "--num-prompts", "6", "--concurrencies", "1,2,4",
        "--html", page.toString());

    assertThat(o.code()).as(o.err()).isZero();
    assertThat(o.out()).contains("Wrote " + page + " (latency-load curve)");
    assertThat(Files.readString(page)).contains("Latency vs offered load", "concurrent streams")
        .containsPattern("Kneedle knee at concurrency [124]|Kneedle: no knee in this curve");
  }

  @Test
  void sweepOverConcurrenciesPrintsEveryLevelAndTheKnee() {
    Outcome o = run("sweep", "--base-url", "http://127.0.0.1:" + sim.port(), "--model", sim.config().model(),
        "--random-input-len", "16", "--random-output-len", "4", "--num-prompts", "6", "--concurrencies", "1,2",
        "--slo", "e2e:p50:60000", "--no-html");

    assertThat(o.code()).as(o.err()).isZero();
    assertThat(o.out()).contains("Knee of the P99 TTFT curve", "Last level meeting every gate: 2");
    assertThat(o.out().lines().filter(l -> l.matches("\\s+[12] \\|.*"))).hasSize(2);
  }
}
