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
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Against a server that reports no usage (Jlama), a JSONL dataset's input tokens are the client's count of each
 * prompt, labelled so, as its output tokens are the stream's own count: neither side reads 0.
 */
class ClientCountsCliTest {

  private static final String STREAM = "data:{\"choices\":[{\"index\":0,\"delta\":{\"content\":\" a\"}}]}\n\n"
      + "data:{\"choices\":[{\"index\":1,\"delta\":{\"content\":\" b\"}}]}\n\n"
      + "data:{\"choices\":[{\"index\":null,\"delta\":{\"content\":\"\"},\"finish_reason\":\"stop\"}]}\n\n";

  @TempDir
  Path dir;

  private HttpServer server;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.createContext("/v1/chat/completions", exchange -> {
      exchange.getRequestBody().readAllBytes();
      byte[] body = STREAM.getBytes(StandardCharsets.UTF_8);
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
  void aJsonlDatasetsInputIsCountedByTheClientWhenTheServerReportsNone() throws IOException {
    // "Hello, world!" is 4 cl100k tokens, "the of and" 3: 7 per two rows, 4 requests = 14
    Path prompts = dir.resolve("prompts.jsonl");
    Files.writeString(prompts, "{\"prompt\": \"Hello, world!\"}\n{\"prompt\": \"the of and\"}\n");
    Outcome o = InfermarkCliTest.run("bench", "--backend", "openai-chat", "--base-url",
        "http://127.0.0.1:" + server.getAddress().getPort(), "--model", "m", "--dataset-name", "jsonl",
        "--dataset-path", prompts.toString(), "--num-prompts", "4", "--max-concurrency", "1", "--result-dir",
        dir.toString(), "--result-filename", "r.json", "--progress", "none");

    assertThat(o.code()).as(o.out() + o.err()).isZero();
    assertThat(o.out()).contains("Total input tokens:                      14",
        "Total generated tokens:                  8");
    JsonNode tokens = new ObjectMapper().readTree(dir.resolve("r.infermark.json").toFile()).get("tokens");
    assertThat(tokens.get("input_tokens").asInt()).isEqualTo(14);
    assertThat(tokens.get("requests_with_client_input_tokens").asInt()).isEqualTo(4);
    assertThat(tokens.get("requests_without_input_tokens").asInt()).isZero();
    assertThat(tokens.get("output_tokens").asInt()).isEqualTo(8);
    assertThat(tokens.get("count_sources").get("chunk_count").asInt()).isEqualTo(4);
  }
}
