package io.infermark.cli.vllmsweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The parts of the sweeps checked against vLLM's Python by hand: parameters on commands, names, numbers. */
class SweepPartsTest {

  @TempDir
  Path dir;

  private static SweepParams.Item item(String json) throws IOException {
    return new SweepParams.Item((ObjectNode) SweepParams.JSON.readTree(json));
  }

  @Test
  void parametersReplaceTheFlagOnTheCommandInEitherSpellingOrAreAppendedWithDashes() throws IOException {
    List<String> cmd = List.of("vllm", "serve", "m", "--max_num_seqs", "8", "--enable-prefix-caching");
    SweepParams.Item p = item("{\"max_num_seqs\": 16, \"max-num-batched-tokens\": 2048, "
        + "\"enable_prefix_caching\": false, \"enforce_eager\": true, \"compilation_config\": {\"level\": 3}, "
        + "\"kv.flag\": true, \"gpu_memory_utilization\": 0.9}");

    assertThat(p.applyTo(cmd)).containsExactly("vllm", "serve", "m", "--max-num-seqs", "16",
        "--no-enable-prefix-caching", "--max-num-batched-tokens", "2048", "--enforce-eager", "--compilation-config",
        "{\"level\": 3}", "--kv.flag=true", "--gpu-memory-utilization", "0.9");
  }

  @Test
  void aCombinationIsNamedByItsBenchmarkNameOrItsParametersAsVllmNamesIt() throws IOException {
    SweepParams.Item serve = item("{\"max_num_seqs\": 32, \"enforce_eager\": true}");
    SweepParams.Item bench = item("{\"_benchmark_name\": \"short/../x\", \"random_input_len\": 128}");

    assertThat(serve.name()).isEqualTo("max_num_seqs=32-enforce_eager=True");
    assertThat(ServeSweep.combDir(dir, serve, bench).getFileName().toString())
        .isEqualTo("SERVE--max_num_seqs=32-enforce_eager=True-BENCH--short____x");
    assertThat(serve.toString()).isEqualTo("{'max_num_seqs': 32, 'enforce_eager': True}");
    assertThat(bench.applyTo(List.of("vllm"))).containsExactly("vllm", "--random-input-len", "128");
  }

  @Test
  void aParameterFileIsAListOrAnObjectOfNamedObjectsWithUniqueNames() throws IOException {
    Path named = Files.writeString(dir.resolve("named.json"), "{\"a\": {\"x\": 1}, \"b\": {\"x\": 2}}");
    List<SweepParams.Item> items = SweepParams.read(named, "--bench-params");
    assertThat(items).hasSize(2);
    assertThat(items.get(1).name()).isEqualTo("b");
    assertThat(items.get(1).applyTo(List.of())).containsExactly("--x", "2");

    Path dup = Files.writeString(dir.resolve("dup.json"), "[{\"_benchmark_name\": \"a\"}, {\"_benchmark_name\": \"a\"}]");
    assertThatThrownBy(() -> SweepParams.read(dup, "--serve-params")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicate _benchmark_name values [a]");
    Path scalar = Files.writeString(dir.resolve("scalar.json"), "[1, 2]");
    assertThatThrownBy(() -> SweepParams.read(scalar, "--serve-params")).hasMessageContaining("should be an object");
  }

  @Test
  void commandStringsSplitAsPythonsShlex() {
    assertThat(Shlex.split("vllm serve 'a b' \"c \\\"d\\\"\" e\\ f # comment"))
        .containsExactly("vllm", "serve", "a b", "c \"d\"", "e f");
    assertThat(Shlex.repr(List.of("a", "it's"))).isEqualTo("['a', \"it's\"]");
    assertThatThrownBy(() -> Shlex.split("vllm 'serve")).hasMessageContaining("no closing quotation");
  }

  @Test
  void workloadLevelsAreNumpyLinspaceRoundedHalfToEven() {
    assertThat(SweepServeWorkloadCommand.interLevels(1, 10, 4)).containsExactly(4L, 7L);
    assertThat(SweepServeWorkloadCommand.interLevels(0, 5, 3)).as("round(2.5) == 2").containsExactly(2L);
    assertThat(SweepServeWorkloadCommand.interLevels(1, 2, 10)).as("duplicates dropped").containsExactly(1L, 2L);
    assertThat(SweepServeWorkloadCommand.interLevels(1, 5, 2)).isEmpty();
  }

  @Test
  void startupPercentilesInterpolateAsNumpy() {
    double[] v = {4, 1, 3, 2};
    assertThat(SweepStartupCommand.percentile(v, 50)).isEqualTo(2.5);
    assertThat(SweepStartupCommand.percentile(v, 10)).isCloseTo(1.3, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(SweepStartupCommand.percentile(v, 99)).isCloseTo(3.97, org.assertj.core.data.Offset.offset(1e-12));
  }

  @Test
  void startupCommandBecomesTheServerCommandWithoutItsIterationOptions() {
    SweepStartupCommand.Plan plan = SweepStartupCommand.plan(List.of("vllm", "bench", "startup", "--model", "m",
        "--num-iters-cold", "2", "--num_iters_warm=4", "--output-json", "x.json"));
    assertThat(plan.server()).containsExactly("vllm", "serve", "--model", "m");
    assertThat(plan.cold()).isEqualTo(2);
    assertThat(plan.warmup()).isEqualTo(1);
    assertThat(plan.warm()).isEqualTo(4);
  }

  @Test
  void pythonNumbersPrintAsPythonPrintsThem() {
    assertThat(SweepParams.pyFloat(0.9)).isEqualTo("0.9");
    assertThat(SweepParams.pyFloat(2.0)).isEqualTo("2.0");
    assertThat(SweepParams.pyFloat(1e-5)).isEqualTo("1e-05");
    assertThat(SweepParams.pyFloat(1e16)).isEqualTo("1e+16");
  }

  @Test
  void cachesAreResetWhereTheServerOffersItAndTheOthersAreNamed() throws IOException {
    List<String> posts = new CopyOnWriteArrayList<>();
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", ex -> {
      posts.add(ex.getRequestMethod() + " " + ex.getRequestURI().getPath());
      int status = ex.getRequestURI().getPath().equals("/reset_prefix_cache") ? 200 : 404;
      ex.sendResponseHeaders(status, -1);
      ex.close();
    });
    server.start();
    try {
      StringWriter out = new StringWriter();
      ServerProcess.resetCaches(HttpClient.newHttpClient(), "http://127.0.0.1:" + server.getAddress().getPort(),
          new PrintWriter(out, true));
      assertThat(posts).containsExactly("POST /reset_prefix_cache", "POST /reset_mm_cache",
          "POST /reset_encoder_cache");
      assertThat(out.toString()).contains("does not offer /reset_mm_cache, /reset_encoder_cache")
          .contains("the others were reset");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void aResetThatFailsOtherwiseIsAnError() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", ex -> {
      ex.sendResponseHeaders(500, -1);
      ex.close();
    });
    server.start();
    try {
      assertThatThrownBy(() -> ServerProcess.resetCaches(HttpClient.newHttpClient(), "http://127.0.0.1:"
          + server.getAddress().getPort(), new PrintWriter(new StringWriter())))
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("answered 500")
          .hasMessageContaining("--after-bench-cmd");
    } finally {
      server.stop(0);
    }
  }

  @Test
  void theServerAddressIsReadFromTheServeCommandAsVllmReadsIt() {
    assertThat(ServerProcess.address(List.of("vllm", "serve", "m"))).isEqualTo("http://localhost:8000");
    assertThat(ServerProcess.address(List.of("vllm", "serve", "m", "--host", "0.0.0.0", "-p", "9000")))
        .isEqualTo("http://0.0.0.0:9000");
    assertThat(ServerProcess.address(List.of("x", "--port=8123"))).isEqualTo("http://localhost:8123");
  }
}
