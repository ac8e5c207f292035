package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import io.infermark.cli.InfermarkCliTest.Outcome;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server that answers some requests with a 200 stream carrying no token (as Jlama does under concurrency), and
 * stops short of {@code max_tokens} on the others (it reads it as prompt + output): the empty replies are
 * failures of their own category, counted in the failure table and in {@code --max-error-rate}, with a console
 * line; the short outputs are counted and warned.
 */
class EmptyRepliesCliTest {

  /** Every third request after the test request comes back empty; the others carry 3 tokens of the 8 asked. */
  private static final String TOKENS = "data:{\"choices\":[{\"index\":0,\"delta\":{\"content\":\" a\"}}],\"model\":null}\n\n"
      + "data:{\"choices\":[{\"index\":1,\"delta\":{\"content\":\" b\"}}],\"model\":null}\n\n"
      + "data:{\"choices\":[{\"index\":2,\"delta\":{\"content\":\" c\"}}],\"model\":null}\n\n"
      + "data:{\"choices\":[{\"index\":null,\"delta\":{\"content\":\"\"},\"finish_reason\":\"stop\"}]}\n\n";
  private static final String EMPTY =
      "data:{\"choices\":[{\"index\":null,\"delta\":{\"content\":\"\"},\"finish_reason\":\"stop\"}]}\n\n";

  @TempDir
  Path dir;

  private HttpServer server;
  private final AtomicInteger served = new AtomicInteger();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.createContext("/v1/chat/completions", exchange -> {
      exchange.getRequestBody().readAllBytes();
      int n = served.getAndIncrement();
      byte[] body = (n > 0 && n % 3 == 0 ? EMPTY : TOKENS).getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void emptyRepliesFailTheErrorRateGateWithTheirOwnCategoryAndALine() throws IOException {
    Outcome o = InfermarkCliTest.run("bench", "--backend", "openai-chat", "--base-url",
        "http://127.0.0.1:" + server.getAddress().getPort(), "--model", "m", "--dataset-name", "random",
        "--random-input-len", "8", "--random-output-len", "8", "--ignore-eos", "--num-prompts", "12",
        "--max-concurrency", "1", "--max-error-rate", "0.1", "--result-dir", dir.toString(), "--result-filename",
        "r.json", "--progress", "none");

    // requests 3, 6, 9, 12 of the 13 served (the first is the test request) came back empty
    assertThat(o.code()).as(o.out() + o.err()).isEqualTo(Infermark.GATE_FAILED);
    assertThat(o.out()).contains("Successful requests:                     8",
        "Failed requests:                         4", "Failures by category:                    empty_response 4",
        "WARNING: 4 of 12 requests came back empty (a successful reply without a single token): counted as "
            + "EMPTY_RESPONSE failures, with no TTFT, TPOT or E2E; vLLM's client would count them as successful",
        "WARNING: 8 of 8 requests stopped short of the output asked with ignore_eos (the server stopped at 3 of 8 "
            + "tokens): it may read max_tokens as a total (prompt + output) or ignore ignore_eos");
    JsonNode report = new ObjectMapper().readTree(dir.resolve("r.infermark.json").toFile());
    assertThat(report.get("failures_by_category").get("empty_response").asInt()).isEqualTo(4);
    assertThat(report.get("latency").get("ttft_ms").get("count").asInt()).isEqualTo(8);
    assertThat(report.get("tokens").get("short_outputs").get("requests").asInt()).isEqualTo(8);
    assertThat(report.get("notices")).hasSize(2);
    JsonNode vllm = new ObjectMapper().readTree(dir.resolve("r.json").toFile());
    assertThat(vllm.get("completed").asInt()).isEqualTo(8);
    assertThat(vllm.get("total_output_tokens").asInt()).isEqualTo(24);
  }
}
