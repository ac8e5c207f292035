package io.infermark.testkit.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.testkit.simulator.ServerTimeline.Outcome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Streams the engine writes itself (fault-free, engine profile): no handler thread is left waiting,
 * so hang-ups and shutdowns must reach them through their connection.
 */
class EnginePushedStreamTest {

  private static final String ENDLESS = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true,"
      + "\"max_tokens\":100000,\"ignore_eos\":true}";

  private Simulator sim;

  @AfterEach
  void close() {
    if (sim != null) {
      sim.close();
    }
  }

  private void start() {
    // 2 ms steps: a 100,000-token stream is far from done when the test acts on it.
    sim = Simulator.start(SimulatorConfig.builder()
        .engine(EngineProfile.nearZeroCost().toBuilder().stepOverheadMs(2).build()).build());
  }

  /** Sends a streaming request on a raw socket and reads until its first content token. */
  private Socket streamUntilFirstToken(String id) throws IOException {
    Socket socket = new Socket("127.0.0.1", sim.port());
    socket.setSoTimeout(10_000);
    socket.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Request-Id: " + id
        + "\r\nContent-Type: application/json\r\nContent-Length: " + ENDLESS.length() + "\r\n\r\n" + ENDLESS)
        .getBytes(StandardCharsets.US_ASCII));
    BufferedReader reader = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
    String line;
    while ((line = reader.readLine()) != null && !line.contains("\"content\":\" ")) {
      // status line, headers, chunk sizes, the role chunk
    }
    assertThat(line).as("a content token arrived").isNotNull();
    return socket;
  }

  /** Waits for a condition the server reaches on its own threads, failing after 10 s. */
  private static void awaitCondition(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() - deadline).as("timed out waiting until " + what).isNegative();
      Thread.onSpinWait();
    }
  }

  @Test
  void aClientHangingUpMidStreamIsAbortedInTheEngineAndRecordedAsClientGone() throws IOException {
    start();
    streamUntilFirstToken("gone").close();

    awaitCondition("the hang-up is recorded", () -> sim.timeline("gone").isPresent());
    ServerTimeline t = sim.timeline("gone").orElseThrow();
    assertThat(t.outcome()).isEqualTo(Outcome.CLIENT_GONE);
    assertThat(t.tokenCount()).isBetween(1, 99_999);
    assertThat(sim.inFlight()).isZero();
    assertThat(sim.running()).isZero();
    awaitCondition("the engine drops the sequence", () -> sim.engineStats().running() == 0);
  }

  @Test
  void closingTheSimulatorEndsItsEngineStreamsAtOnce() throws IOException {
    start();
    try (Socket socket = streamUntilFirstToken("open")) {
      sim.close();

      ServerTimeline t = sim.timeline("open").orElseThrow();
      assertThat(t.outcome()).isEqualTo(Outcome.SIMULATOR_CLOSED);
      assertThat(sim.inFlight()).isZero();
      assertThatThrownBy(() -> {
        while (socket.getInputStream().read() >= 0) {
          // what was sent before the close; then the connection ends without the last chunk
        }
        throw new IOException("ended");
      }).isInstanceOf(IOException.class);
    }
  }

  @Test
  void everyTokenIsWrittenNoEarlierThanTheEngineProducedIt() throws IOException {
    start();
    String body = "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"stream\":true,\"max_tokens\":50,"
        + "\"ignore_eos\":true}";
    SimHttp http = new SimHttp(sim);

    String text = http.post("/v1/chat/completions", body, "X-Request-Id", "order").body();

    ServerTimeline t = sim.timeline("order").orElseThrow();
    SequenceTimeline engine = t.engine().orElseThrow();
    assertThat(SimHttp.events(text)).last().isEqualTo("[DONE]");
    assertThat(t.outcome()).isEqualTo(Outcome.COMPLETED);
    assertThat(t.tokenCount()).isEqualTo(50);
    for (int i = 0; i < 50; i++) {
      assertThat(t.tokenNanos(i)).as("write of token %d", i).isGreaterThanOrEqualTo(engine.tokenNanos(i));
      if (i > 0) {
        assertThat(t.tokenNanos(i)).isGreaterThanOrEqualTo(t.tokenNanos(i - 1));
      }
    }
  }
}
