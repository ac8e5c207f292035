package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.cli.InfermarkCliTest.Outcome;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every {@code vllm bench sweep} command line of vLLM's sweep docs ({@code vllm-sweep-doc-commands.txt}, with the vLLM
 * commit they came from) run as {@code infermark}: the sweeps as dry runs, the plots on results in vLLM's layout,
 * {@code serve_sla} refused in one line.
 */
class VllmSweepDocCommandsTest {

  @TempDir
  Path dir;

  /** One line of the fixture: what must happen, and the command. */
  record DocCommand(String expect, String line) {
    @Override
    public String toString() {
      return expect + ": " + line.substring(0, Math.min(90, line.length()));
    }
  }

  static Stream<DocCommand> commands() throws IOException {
    List<String> lines;
    try (InputStream in = VllmSweepDocCommandsTest.class.getResourceAsStream("/vllm-sweep-doc-commands.txt")) {
      lines = new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    }
    List<DocCommand> out = new ArrayList<>();
    for (String l : lines) {
      if (l.isBlank() || l.startsWith("#")) {
        continue;
      }
      int colon = l.indexOf(": ");
      out.add(new DocCommand(l.substring(0, colon), l.substring(colon + 2)));
    }
    assertThat(out).hasSize(5);
    return out.stream();
  }

  /** The docs' parameter files, as the page shows them (the startup section's serve file differs from serve's). */
  private void docFiles(Path bench, boolean startup) throws IOException {
    Files.createDirectories(bench);
    Files.writeString(bench.resolve("serve_hparams.json"), startup
        ? "[{\"_benchmark_name\": \"tp1\", \"model\": \"Qwen/Qwen3-0.6B\", \"tensor_parallel_size\": 1, "
            + "\"gpu_memory_utilization\": 0.9}, {\"_benchmark_name\": \"tp2\", \"model\": \"Qwen/Qwen3-0.6B\", "
            + "\"tensor_parallel_size\": 2, \"gpu_memory_utilization\": 0.9}]"
        : "[{\"max_num_seqs\": 32, \"max_num_batched_tokens\": 1024}, {\"max_num_seqs\": 64, "
            + "\"max_num_batched_tokens\": 1024}, {\"max_num_seqs\": 64, \"max_num_batched_tokens\": 2048}, "
            + "{\"max_num_seqs\": 128, \"max_num_batched_tokens\": 2048}, {\"max_num_seqs\": 128, "
            + "\"max_num_batched_tokens\": 4096}, {\"max_num_seqs\": 256, \"max_num_batched_tokens\": 4096}]");
    Files.writeString(bench.resolve("bench_hparams.json"), "[{\"random_input_len\": 128, \"random_output_len\": 32}, "
        + "{\"random_input_len\": 256, \"random_output_len\": 64}, {\"random_input_len\": 512, "
        + "\"random_output_len\": 128}]");
    Files.writeString(bench.resolve("startup_hparams.json"), "[{\"_benchmark_name\": \"qwen3-0.6\", "
        + "\"num_iters_cold\": 2, \"num_iters_warmup\": 1, \"num_iters_warm\": 2}]");
    Files.writeString(bench.resolve("sla_hparams.json"), "[{\"p99_e2el_ms\": \"<=200\"}]");
  }

  /** An experiment in vLLM's layout with the variables the docs' plot lines name. */
  private static void results(Path experiment) throws IOException {
    int i = 0;
    for (int concurrency : new int[] {1, 8, 64}) {
      for (int tp : new int[] {1, 2}) {
        Path d = Files.createDirectories(experiment.resolve("SERVE--tp" + tp + "-BENCH--c" + concurrency));
        double throughput = 100.0 * concurrency / (1 + 0.1 * concurrency);
        Files.writeString(d.resolve("summary.json"), "[{\"max_concurrency\": " + concurrency + ", "
            + "\"random_input_len\": 128, \"random_output_len\": 32, \"api_server_count\": 1, "
            + "\"max_num_batched_tokens\": " + (tp * 1024) + ", \"tensor_parallel_size\": " + tp + ", "
            + "\"pipeline_parallel_size\": 1, \"request_throughput\": " + (throughput / 32) + ", \"output_throughput\": "
            + throughput + ", \"p99_e2el_ms\": " + (50.0 + concurrency * tp) + ", \"run_number\": " + (i++ % 1) + "}]");
      }
    }
  }

  @ParameterizedTest
  @MethodSource("commands")
  void runsWithOnlyTheProgramNameReplaced(DocCommand c) throws IOException {
    Path bench = dir.resolve("benchmarks");
    docFiles(bench, c.line().contains("sweep startup"));
    results(bench.resolve("results").resolve("20250101_000000"));
    List<String> args = new ArrayList<>();
    for (String w : VllmDocCommandsTest.words(c.line())) {
      args.add(w.replace("<timestamp>", "20250101_000000").replaceFirst("^benchmarks/", bench + "/"));
    }
    assertThat(args.get(0)).isEqualTo("vllm");
    args.remove(0);
    if (c.expect().equals("dry")) {
      args.add("--dry-run");
    }
    Outcome o = InfermarkCliTest.run(args.toArray(String[]::new));

    assertThat(o.err()).doesNotContain("Unknown option").doesNotContain("Unmatched argument");
    switch (c.expect()) {
      case "dry" -> {
        assertThat(o.code()).as(o.err()).isZero();
        assertThat(o.out()).contains("Experiment will be saved at: " + bench.resolve("results"));
        if (c.line().contains("sweep serve ")) {
          assertThat(o.out().split("\\[BEGIN SERVER]", -1)).as("six serve combinations").hasSize(7);
          assertThat(o.out().split("Benchmark command: ", -1)).as("6 x 3 combinations x 3 runs").hasSize(55);
          assertThat(o.out()).contains("Server command: ['vllm', 'serve', 'meta-llama/Llama-2-7b-chat-hf', "
              + "'--max-num-seqs', '32', '--max-num-batched-tokens', '1024']");
        } else {
          assertThat(o.out()).contains("Server command: ['vllm', 'serve', '--model', 'Qwen/Qwen3-0.6B', "
              + "'--tensor-parallel-size', '1', '--gpu-memory-utilization', '0.9'] (cold 2, warmup 1, warm 2)");
        }
      }
      case "plot" -> {
        assertThat(o.code()).as(o.err()).isZero();
        Path page = c.line().contains("plot_pareto")
            ? bench.resolve("results").resolve("20250101_000000").resolve("pareto").resolve("PARETO.html")
            : bench.resolve("results").resolve("20250101_000000").resolve("FIGURE.html");
        assertThat(page).exists();
        assertThat(Files.readString(page)).contains("<figure class='chart line'>");
      }
      case "refuse" -> {
        assertThat(o.code()).isEqualTo(2);
        assertThat(o.err().strip()).hasLineCount(1).contains("serve_workload");
      }
      default -> throw new AssertionError("unknown expectation " + c.expect());
    }
  }
}
