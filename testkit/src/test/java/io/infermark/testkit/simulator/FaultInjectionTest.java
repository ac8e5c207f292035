package io.infermark.testkit.simulator;

import static io.infermark.testkit.simulator.SimHttp.chat;
import static io.infermark.testkit.simulator.SimHttp.completion;
import static io.infermark.testkit.simulator.SimHttp.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.infermark.testkit.simulator.ServerTimeline.Outcome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.HttpURLConnection;
import java.net.URL;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FaultInjectionTest {

  private Simulator sim;
  private SimHttp http;

  private void start(SimulatorConfig.Builder config) {
    sim = Simulator.start(config.timeToFirstToken(Duration.ofMillis(1)).interTokenInterval(Duration.ofMillis(1))
        .defaultOutputTokens(6).build());
    http = new SimHttp(sim);
  }

  @AfterEach
  void close() {
    if (sim != null) {
      sim.close();
    }
  }

  /** The statuses of the first {@code requests} requests to a fresh simulator, which is closed afterwards. */
  private List<Integer> statusesOf(SimulatorConfig.Builder config, int requests) throws IOException {
    start(config);
    List<Integer> statuses = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      statuses.add(http.post("/v1/completions", completion("\"max_tokens\":1")).statusCode());
    }
    sim.close();
    return statuses;
  }

  /** Reads a dropped stream's non-empty lines until the read fails, as it must: the body never ends cleanly. */
  private static List<String> linesUntilTheDrop(InputStream body) throws IOException {
    List<String> lines = new ArrayList<>();
    try (BufferedReader reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
      assertThatThrownBy(() -> {
        String line;
        while ((line = reader.readLine()) != null) {
          if (!line.isEmpty()) {
            lines.add(line);
          }
        }
      }).isInstanceOf(IOException.class);
    }
    return lines;
  }

  @Test
  void serverErrorsFailTheSameRequestsForTheSameSeed() throws IOException {
    int requests = 60;
    List<Integer> first = statusesOf(SimulatorConfig.builder().seed(2024).serverErrors(0.25), requests);
    List<Integer> second = statusesOf(SimulatorConfig.builder().seed(2024).serverErrors(0.25), requests);

    assertThat(second).isEqualTo(first);
    FaultPolicy policy = FaultPolicy.of(SimulatorConfig.builder().seed(2024).serverErrors(0.25).build());
    for (int i = 0; i < requests; i++) {
      int expected = policy.decide(i).isPresent() ? 500 : 200;
      assertThat(first.get(i)).as("request #%d", i).isEqualTo(expected);
    }
    // The seed fixes which requests fail, and so how many: request i fails when
    // unit(2024 ^ 0x5DEECE66D, i) < 0.25, unit being the top 53 bits of SplitMix64 over (seed + (i + 1) * golden
    // gamma) (FaultPolicy, Mix). Replayed in Python:
    //   M = (1 << 64) - 1; G = 0x9E3779B97F4A7C15
    //   def mix64(s, i):
    //       z = (s + (i + 1) * G) & M
    //       z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    //       z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    //       return z ^ (z >> 31)
    //   [i for i in range(60) if (mix64((2024 ^ 0x5DEECE66D) & M, i) >> 11) * 2.0 ** -53 < 0.25]
    // gives 11 requests (15 expected at 25 %): 2, 5, 10, 23, 24, 29, 31, 34, 36, 38, 56.
    List<Integer> failed = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      if (first.get(i) == 500) {
        failed.add(i);
      }
    }
    assertThat(failed).containsExactly(2, 5, 10, 23, 24, 29, 31, 34, 36, 38, 56);
  }

  @Test
  void anotherSeedFailsOtherRequests() throws IOException {
    List<Integer> seedOne = statusesOf(SimulatorConfig.builder().seed(1).serverErrors(0.5), 40);

    assertThat(statusesOf(SimulatorConfig.builder().seed(2).serverErrors(0.5), 40)).isNotEqualTo(seedOne);
  }

  @Test
  void serverErrorIsAnOpenAiShaped500WithATimeline() throws IOException {
    start(SimulatorConfig.builder().serverErrors(1.0));

    HttpResponse<String> response = http.post("/v1/chat/completions", chat("\"stream\":true"),
        "X-Request-Id", "boom");

    assertThat(response.statusCode()).isEqualTo(500);
    JsonNode error = json(response.body()).get("error");
    assertThat(error.get("type").asText()).isEqualTo("InternalServerError");
    assertThat(error.get("code").asInt()).isEqualTo(500);
    assertThat(error.get("param").isNull()).isTrue();
    assertThat(error.get("message").asText()).startsWith("Injected server error");
    ServerTimeline t = sim.timeline("boom").orElseThrow();
    assertThat(t.outcome()).isEqualTo(Outcome.SERVER_ERROR);
    assertThat(t.status()).hasValue(500);
    assertThat(t.admissionNanos()).isEmpty();
    assertThat(t.tokenCount()).isZero();
  }

  @Test
  void droppedStreamFailsTheReadAfterKTokensInsteadOfEndingCleanly() throws IOException {
    start(SimulatorConfig.builder().disconnects(1.0, 3));
    HttpResponse<InputStream> response = http.open("/v1/chat/completions",
        chat("\"stream\":true,\"stream_options\":{\"include_usage\":true}"), "X-Request-Id", "drop");
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValueAsLong("Content-Length")).isPresent();

    List<String> lines = linesUntilTheDrop(response.body());

    // role chunk and exactly three tokens, then nothing: no finish reason, usage or [DONE]
    assertThat(lines).hasSize(4);
    assertThat(lines).noneMatch(l -> l.contains("finish_reason\":\"") || l.contains("[DONE]"));
    ServerTimeline t = sim.timeline("drop").orElseThrow();
    assertThat(t.outcome()).isEqualTo(Outcome.DISCONNECTED);
    assertThat(t.tokenCount()).isEqualTo(3);
    assertThat(t.status()).hasValue(200);
  }

  @Test
  void droppedStreamLooksTruncatedToHttpUrlConnectionToo() throws IOException {
    start(SimulatorConfig.builder().disconnects(1.0, 2));
    HttpURLConnection connection = (HttpURLConnection) new URL(sim.baseUrl() + "/v1/completions").openConnection();
    connection.setDoOutput(true);
    connection.setRequestMethod("POST");
    connection.getOutputStream().write(completion("\"stream\":true").getBytes(StandardCharsets.UTF_8));

    assertThat(connection.getResponseCode()).isEqualTo(200);
    long announced = connection.getContentLengthLong();
    byte[] received = new byte[(int) announced];
    int total = 0;
    try (InputStream body = connection.getInputStream()) {
      int n;
      while (total < received.length && (n = body.read(received, total, received.length - total)) >= 0) {
        total += n;
      }
    } catch (IOException prematureEof) {
      // newer JDKs report the drop this way; JDK 17 returns end of stream early
    } finally {
      connection.disconnect();
    }

    // JDK 17's HttpURLConnection ends a short fixed-length body as if it were complete, so the
    // shortfall against Content-Length is what shows the truncation on every JDK.
    assertThat(total).as("bytes received of %d announced", announced).isLessThan((int) announced);
    assertThat(SimHttp.events(new String(received, 0, total, StandardCharsets.UTF_8))).hasSize(2);
  }

  @Test
  void dropAfterMoreTokensThanTheOutputStillCutsTheStreamBeforeDone() throws IOException {
    start(SimulatorConfig.builder().disconnects(1.0, 100));
    HttpResponse<InputStream> response = http.open("/v1/chat/completions", chat("\"stream\":true"),
        "X-Request-Id", "late-drop");

    List<String> lines = linesUntilTheDrop(response.body());

    assertThat(lines).hasSize(1 + 6).noneMatch(l -> l.contains("[DONE]"));
    assertThat(lines.get(6)).contains("\"finish_reason\":\"stop\"");
    assertThat(sim.timeline("late-drop").orElseThrow().outcome()).isEqualTo(Outcome.DISCONNECTED);
  }

  @Test
  void droppedNonStreamingRequestGetsNoResponseAtAll() {
    start(SimulatorConfig.builder().disconnects(1.0, 2));

    assertThatThrownBy(() -> http.post("/v1/chat/completions", chat(""), "X-Request-Id", "silent"))
        .isInstanceOf(IOException.class);
    ServerTimeline t = sim.timeline("silent").orElseThrow();
    assertThat(t.outcome()).isEqualTo(Outcome.DISCONNECTED);
    assertThat(t.status()).isEmpty();
    assertThat(t.tokenCount()).isZero();
    assertThat(t.finishNanos()).isGreaterThanOrEqualTo(t.admissionNanos().getAsLong() + 2_000_000);
  }

  @Test
  void afterADroppedConnectionTheNextRequestIsServedNormally() throws IOException {
    start(SimulatorConfig.builder().seed(5).disconnects(0.5, 1));
    FaultPolicy policy = FaultPolicy.of(sim.config());
    int served = 0;
    for (int i = 0; i < 10; i++) {
      boolean dropped = policy.decide(i).isPresent();
      if (dropped) {
        assertThatThrownBy(() -> http.post("/v1/completions", completion(""))).isInstanceOf(IOException.class);
      } else {
        assertThat(http.post("/v1/completions", completion("")).statusCode()).isEqualTo(200);
        served++;
      }
    }
    assertThat(served).isBetween(1, 9);
  }

  @Test
  void rateLimitsAndUnavailabilityCarryRetryAfterInWholeSeconds() throws IOException {
    start(SimulatorConfig.builder().faultOnRequests(Fault.rateLimited(Duration.ofMillis(1500)), 0)
        .faultOnRequests(Fault.unavailable(Duration.ofSeconds(4)), 1));

    HttpResponse<String> limited = http.post("/v1/chat/completions", chat(""));
    HttpResponse<String> unavailable = http.post("/v1/chat/completions", chat(""));

    assertThat(limited.statusCode()).isEqualTo(429);
    assertThat(limited.headers().firstValue("Retry-After")).hasValue("2");
    assertThat(json(limited.body()).get("error").get("type").asText()).isEqualTo("RateLimitError");
    assertThat(unavailable.statusCode()).isEqualTo(503);
    assertThat(unavailable.headers().firstValue("Retry-After")).hasValue("4");
    assertThat(http.post("/v1/chat/completions", chat("")).statusCode()).isEqualTo(200);
  }

  @Test
  void malformedChunkAndStreamErrorEndTheStreamAsAdvertised() throws IOException {
    start(SimulatorConfig.builder().faultOnRequests(Fault.malformedChunk(1), 0)
        .faultOnRequests(Fault.streamError(1), 1));

    List<String> malformed = SimHttp.events(http.post("/v1/chat/completions", chat("\"stream\":true")).body());
    List<String> error = SimHttp.events(http.post("/v1/chat/completions", chat("\"stream\":true")).body());

    assertThat(malformed).hasSize(3); // role, one token, the cut-off chunk
    assertThatThrownBy(() -> SimHttp.MAPPER.readTree(malformed.get(2))).isInstanceOf(IOException.class);
    assertThat(error).hasSize(4); // role, one token, the error, [DONE]
    assertThat(json(error.get(2)).get("error").get("code").asInt()).isEqualTo(500);
    assertThat(error.get(3)).isEqualTo("[DONE]");
  }
}
