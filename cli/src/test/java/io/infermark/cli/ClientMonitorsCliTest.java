package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.infermark.cli.InfermarkCliTest.Outcome;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code --client-monitors}: a run on a shared machine may watch less of it, or nothing, and says what was off. */
class ClientMonitorsCliTest {

  private static final String STREAM = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n"
      + "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"b\"},\"finish_reason\":\"length\"}]}\n\n"
      + "data: [DONE]\n\n";

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

  private Outcome bench(String level) {
    return InfermarkCliTest.run("bench", "--backend", "openai-chat", "--base-url",
        "http://127.0.0.1:" + server.getAddress().getPort(), "--model", "m", "--dataset-name", "random",
        "--random-input-len", "8", "--random-output-len", "2", "--num-prompts", "3", "--max-concurrency", "1",
        "--no-save", "--progress", "none", "--client-monitors", level);
  }

  @Test
  void monitorsOffLeaveTheHealthUnmeasuredAndSaySo() {
    Outcome o = bench("off");
    assertThat(o.code()).as(o.out() + o.err()).isZero();
    assertThat(o.out()).contains("Client health:                           UNMEASURED (floor 0.00 ms)",
        "  the client's monitors were off (ClientMonitoring.OFF, --client-monitors off): nothing says whether the "
            + "client kept up");
  }

  @Test
  void reducedMonitorsAreNamedBesideTheVerdict() {
    Outcome o = bench("reduced");
    assertThat(o.code()).as(o.out() + o.err()).isZero();
    assertThat(o.out()).contains("; monitors reduced: 10 ms hiccup meter, no probes)");
  }

  @Test
  void anUnknownLevelIsABadFlag() {
    Outcome o = bench("some");
    assertThat(o.code()).isEqualTo(Infermark.USAGE);
    assertThat(o.err()).contains("--client-monitors must be full, reduced or off, was some");
  }
}
