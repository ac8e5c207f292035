package io.infermark.testkit.simulator;

import static io.infermark.testkit.simulator.SimHttp.chat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.testkit.simulator.ServerTimeline.Outcome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class SimulatorLifecycleTest {

  @Test
  void baseUrlIsLoopbackWithTheBoundEphemeralPort() {
    try (Simulator sim = Simulator.start()) {
      assertThat(sim.port()).isPositive();
      assertThat(sim.baseUrl()).isEqualTo("http://127.0.0.1:" + sim.port());
      assertThat(sim.config()).isEqualTo(SimulatorConfig.defaults());
      assertThat(sim.toString()).isEqualTo("Simulator{" + sim.baseUrl()
          + ", model=infermark-sim, requests=0, inFlight=0}");
    }
  }

  @Test
  void aModelNameWithQuotesAndBackslashesIsServedAsGiven() throws IOException {
    // Before: the warm-up request was built by concatenation, so the quote broke its JSON and
    // Simulator.start failed.
    String model = "team \"blue\" \\ llama\t3";
    try (Simulator sim = Simulator.start(SimulatorConfig.builder().model(model).build())) {
      SimHttp http = new SimHttp(sim);
      assertThat(SimHttp.MAPPER.readTree(http.get("/v1/models").body()).at("/data/0/id").asText()).isEqualTo(model);
      String body = SimHttp.MAPPER.createObjectNode().put("model", model).put("max_tokens", 3)
          .set("messages", SimHttp.MAPPER.createArrayNode().add(SimHttp.MAPPER.createObjectNode().put("role", "user")
              .put("content", "Hello"))).toString();
      HttpResponse<String> response = http.post("/v1/chat/completions", body);
      assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
      assertThat(SimHttp.MAPPER.readTree(response.body()).get("model").asText()).isEqualTo(model);
    }
  }

  @Test
  void bindsTheConfiguredPortAndFailsClearlyWhenItIsTaken() throws IOException {
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    SimulatorConfig config = SimulatorConfig.builder().port(port).build();
    try (Simulator sim = Simulator.start(config)) {
      assertThat(sim.port()).isEqualTo(port);
      assertThat(new SimHttp(sim).get("/health").statusCode()).isEqualTo(200);

      assertThatThrownBy(() -> Simulator.start(config)).isInstanceOf(UncheckedIOException.class)
          .hasMessage("could not bind the simulator to 127.0.0.1:" + port
              + "; choose another port or 0 for an ephemeral one");
    }
  }

  @Test
  void closeEndsActiveStreamsPromptlyAndRecordsWhy() throws IOException {
    Simulator sim = Simulator.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(1))
        .interTokenInterval(Duration.ofMillis(10)).build());
    SimHttp http = new SimHttp(sim);
    HttpResponse<InputStream> response = http.open("/v1/chat/completions",
        chat("\"stream\":true,\"max_tokens\":100000,\"ignore_eos\":true"), "X-Request-Id", "endless");
    BufferedReader reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8));
    reader.readLine(); // the role chunk: the stream is running

    long before = System.nanoTime();
    sim.close();
    long closeMillis = (System.nanoTime() - before) / 1_000_000;

    assertThat(closeMillis).isLessThan(1_000);
    assertThatThrownBy(() -> {
      while (reader.readLine() != null) {
        // drain what was sent before the close; the stream must then fail, not end
      }
    }).isInstanceOf(IOException.class);
    ServerTimeline t = sim.timeline("endless").orElseThrow();
    assertThat(t.outcome()).isEqualTo(Outcome.SIMULATOR_CLOSED);
    assertThat(t.tokenCount()).isLessThan(100_000);
    assertThat(sim.inFlight()).isZero();
    assertThatThrownBy(() -> http.get("/health")).isInstanceOf(ConnectException.class);
  }

  @Test
  void closeAlsoEndsRequestsWaitingForASlot() throws Exception {
    Simulator sim = Simulator.start(SimulatorConfig.builder().maxConcurrency(1)
        .timeToFirstToken(Duration.ofMillis(1)).interTokenInterval(Duration.ofMillis(10)).build());
    SimHttp http = new SimHttp(sim);
    String endless = chat("\"stream\":true,\"max_tokens\":100000,\"ignore_eos\":true");
    CompletableFuture<Void> first = CompletableFuture.runAsync(() -> drain(http, endless, "holder"));
    Await.until("the first request runs", () -> sim.running() == 1);
    CompletableFuture<Void> second = CompletableFuture.runAsync(() -> drain(http, endless, "queued"));
    Await.until("the second request waits", () -> sim.waiting() == 1);

    sim.close();

    first.handle((v, e) -> null).get();
    second.handle((v, e) -> null).get();
    assertThat(sim.timeline("holder").orElseThrow().outcome()).isEqualTo(Outcome.SIMULATOR_CLOSED);
    ServerTimeline queued = sim.timeline("queued").orElseThrow();
    assertThat(queued.outcome()).isEqualTo(Outcome.SIMULATOR_CLOSED);
    assertThat(queued.admissionNanos()).isEmpty();
    assertThat(sim.waiting()).isZero();
    assertThat(sim.running()).isZero();
  }

  @Test
  void closeIsIdempotent() {
    Simulator sim = Simulator.start();
    sim.close();
    sim.close();

    assertThat(sim.toString()).contains(" closed");
  }

  private static void drain(SimHttp http, String body, String id) {
    try (InputStream in = http.open("/v1/chat/completions", body, "X-Request-Id", id).body()) {
      in.transferTo(OutputStreamSink.INSTANCE);
    } catch (IOException expected) {
      // the simulator closes under the stream
    }
  }

  /** Discards bytes. */
  private static final class OutputStreamSink extends java.io.OutputStream {
    static final OutputStreamSink INSTANCE = new OutputStreamSink();

    @Override
    public void write(int b) {}

    @Override
    public void write(byte[] b, int off, int len) {}
  }
}
