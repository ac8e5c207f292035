package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.infermark.cli.InfermarkCliTest.Outcome;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --endpoint}, {@code --base-url} and {@code --url} reach the path given, exactly: a server mounted at its
 * root (Jlama's {@code /chat/completions}), under {@code /v1}, or under another prefix; and a path the server
 * does not serve fails the test request with the path that was asked for and the server's answer.
 */
class EndpointPathTest {

  private static final String STREAM = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\n"
      + "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\" there\"},\"finish_reason\":\"stop\"}]}\n\n"
      + "data: [DONE]\n\n";

  private HttpServer server;
  /** The paths the server was asked for, in order. */
  private final List<String> paths = new CopyOnWriteArrayList<>();
  private String base;

  /** A server that streams two tokens on exactly one path and answers 404 with a Spring-style body elsewhere. */
  private void serve(String path) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.createContext("/", exchange -> {
      String asked = exchange.getRequestURI().getRawPath();
      if (!asked.equals("/metrics")) { // bench reads the server's speculative-decoding counters there, as vLLM's does
        paths.add(asked);
      }
      exchange.getRequestBody().readAllBytes();
      boolean ok = asked.equals(path);
      byte[] body = (ok ? STREAM : "{\"status\":404,\"error\":\"Not Found\",\"path\":\"" + asked + "\"}")
          .getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", ok ? "text/event-stream" : "application/json");
      exchange.sendResponseHeaders(ok ? 200 : 404, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    base = "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @BeforeEach
  void clear() {
    paths.clear();
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  private static Outcome bench(String... target) {
    List<String> args = new java.util.ArrayList<>(List.of("bench", "--model", "m", "--dataset-name", "random",
        "--random-input-len", "8", "--random-output-len", "2", "--num-prompts", "2", "--max-concurrency", "1",
        "--no-save", "--progress", "none"));
    args.addAll(List.of(target));
    return InfermarkCliTest.run(args.toArray(String[]::new));
  }

  @Test
  void anEndpointWithoutV1ReachesAServerMountedAtItsRoot() throws IOException {
    serve("/chat/completions");
    Outcome o = bench("--backend", "openai-chat", "--base-url", base, "--endpoint", "/chat/completions");

    assertThat(o.code()).as(o.out() + o.err()).isZero();
    assertThat(o.out()).contains("infermark bench: " + base + "/chat/completions,",
        "Successful requests:                     2");
    assertThat(paths).containsOnly("/chat/completions").hasSize(3); // the test request and the run's two
  }

  @Test
  void aFullUrlIsPostedToExactlyAsGiven() throws IOException {
    serve("/chat/completions");
    Outcome root = bench("--url", base + "/chat/completions");
    assertThat(root.code()).as(root.out() + root.err()).isZero();
    stop();
    paths.clear();
    serve("/team/llm/v1/completions");
    Outcome prefixed = bench("--backend", "openai", "--url", base + "/team/llm/v1/completions");
    assertThat(prefixed.code()).as(prefixed.out() + prefixed.err()).isZero();
    assertThat(paths).containsOnly("/team/llm/v1/completions");
  }

  @Test
  void theDefaultEndpointIsStillV1() throws IOException {
    serve("/v1/chat/completions");
    Outcome o = bench("--backend", "openai-chat", "--base-url", base);
    assertThat(o.code()).as(o.out() + o.err()).isZero();
    assertThat(paths).containsOnly("/v1/chat/completions");
  }

  @Test
  void aPathTheServerDoesNotServeFailsWithThePathAskedForAndTheServersAnswer() throws IOException {
    serve("/v1/chat/completions");
    Outcome o = bench("--backend", "openai-chat", "--base-url", base, "--endpoint", "/chat/completions");

    assertThat(o.code()).isEqualTo(Infermark.FAILED);
    assertThat(o.err()).contains("the initial test request to " + base + "/chat/completions failed",
        "HTTP 404: POST /chat/completions: Not Found (path /chat/completions)", "--endpoint is sent exactly as given");
    assertThat(paths).containsExactly("/chat/completions");
  }
}
