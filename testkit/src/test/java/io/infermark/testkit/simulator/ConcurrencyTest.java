package io.infermark.testkit.simulator;

import static io.infermark.testkit.simulator.SimHttp.chat;
import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.testkit.simulator.ServerTimeline.Outcome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ConcurrencyTest {

  private Simulator sim;
  private SimHttp http;

  private void start(SimulatorConfig config) {
    sim = Simulator.start(config);
    http = new SimHttp(sim);
  }

  @AfterEach
  void close() {
    if (sim != null) {
      sim.close();
    }
  }

  private CompletableFuture<HttpResponse<String>> sendAsync(String id, String body) {
    return HttpClientHolder.CLIENT.sendAsync(http.request("/v1/chat/completions")
        .header("X-Request-Id", id).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void requestsOverTheLimitWaitInArrivalOrderAndTheWaitCountsTowardTtft() throws Exception {
    long ttftMs = 30;
    start(SimulatorConfig.builder().maxConcurrency(1).timeToFirstToken(Duration.ofMillis(ttftMs))
        .interTokenInterval(Duration.ofMillis(5)).defaultOutputTokens(2).build());
    List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();

    // r0 holds the only slot long enough for r1..r3 to queue behind it one after another.
    responses.add(sendAsync("r0", chat("\"stream\":true,\"max_tokens\":60,\"ignore_eos\":true")));
    Await.until("r0 runs", () -> sim.running() == 1);
    for (int i = 1; i <= 3; i++) {
      responses.add(sendAsync("r" + i, chat("\"stream\":true")));
      int queued = i;
      Await.until(queued + " requests wait", () -> sim.waiting() == queued);
    }
    assertThat(sim.inFlight()).isEqualTo(4);
    assertThat(sim.running()).isEqualTo(1);
    for (CompletableFuture<HttpResponse<String>> r : responses) {
      assertThat(r.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }

    List<ServerTimeline> t = List.of(timeline("r0"), timeline("r1"), timeline("r2"), timeline("r3"));
    for (int i = 1; i < 4; i++) {
      ServerTimeline previous = t.get(i - 1);
      ServerTimeline current = t.get(i);
      assertThat(current.admissionNanos().getAsLong()).as("r%d admitted after r%d finished", i, i - 1)
          .isGreaterThan(previous.finishNanos());
      long waited = current.admissionNanos().getAsLong() - current.arrivalNanos();
      assertThat(current.timeToFirstTokenNanos().getAsLong()).as("r%d TTFT includes its wait", i)
          .isGreaterThanOrEqualTo(waited + ttftMs * 1_000_000);
    }
    // r3 waited at least for r1 and r2 to run, each taking at least the TTFT.
    assertThat(t.get(3).timeToFirstTokenNanos().getAsLong()).isGreaterThan(3 * ttftMs * 1_000_000);
    assertThat(sim.peakRunning()).isEqualTo(1);
    assertThat(sim.peakInFlight()).isEqualTo(4);
    assertThat(sim.waiting()).isZero();
  }

  @Test
  void admittedRequestsNeverExceedTheLimitWhileOthersQueue() throws Exception {
    int limit = 3;
    int requests = 12;
    start(SimulatorConfig.builder().maxConcurrency(limit).timeToFirstToken(Duration.ofMillis(20))
        .interTokenInterval(Duration.ofMillis(5)).defaultOutputTokens(5).build());

    List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      responses.add(sendAsync("q" + i, chat("\"stream\":true")));
    }
    for (CompletableFuture<HttpResponse<String>> r : responses) {
      assertThat(r.get(20, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }

    assertThat(sim.peakRunning()).isEqualTo(limit);
    assertThat(sim.peakInFlight()).isGreaterThan(limit);
    List<ServerTimeline> timelines = sim.timelines();
    assertThat(timelines).hasSize(requests).allMatch(t -> t.outcome() == Outcome.COMPLETED);
    assertThat(maxOverlap(timelines)).isEqualTo(limit);
  }

  /** The most timelines whose [admission, finish] intervals overlap at one instant. */
  private static int maxOverlap(List<ServerTimeline> timelines) {
    List<long[]> edges = new ArrayList<>();
    for (ServerTimeline t : timelines) {
      edges.add(new long[] {t.admissionNanos().getAsLong(), +1});
      edges.add(new long[] {t.finishNanos(), -1});
    }
    edges.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]));
    int now = 0;
    int max = 0;
    for (long[] e : edges) {
      now += (int) e[1];
      max = Math.max(max, now);
    }
    return max;
  }

  @Test
  void sixtyFourStreamsAreInFlightTogether() throws Exception {
    int clients = 64;
    // Streams long enough (minutes) that none can end before every client has its first token.
    start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(5))
        .interTokenInterval(Duration.ofMillis(20)).build());
    String body = chat("\"stream\":true,\"max_tokens\":10000,\"ignore_eos\":true");
    CountDownLatch allStreaming = new CountDownLatch(clients);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    try {
      List<Future<String>> firstTokens = new ArrayList<>();
      for (int i = 0; i < clients; i++) {
        String id = "c" + i;
        firstTokens.add(pool.submit(() -> {
          HttpResponse<InputStream> response = http.open("/v1/chat/completions", body, "X-Request-Id", id);
          try (BufferedReader reader = new BufferedReader(
              new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null && !line.contains("\"content\":\" ")) {
              // skip the role chunk and blank separators until the first token arrives
            }
            allStreaming.countDown();
            release.await();
            return line;
          }
        }));
      }

      assertThat(allStreaming.await(30, TimeUnit.SECONDS)).as("all 64 clients got a token").isTrue();
      assertThat(sim.inFlight()).isEqualTo(clients);
      assertThat(sim.running()).isEqualTo(clients);
      assertThat(sim.peakInFlight()).isEqualTo(clients);
      assertThat(sim.peakRunning()).isEqualTo(clients);
      // The clock streams them all: no thread of the simulator waits in a stream's token wait.
      assertThat(Thread.getAllStackTraces().values()).as("threads waiting for a token")
          .noneMatch(stack -> java.util.Arrays.stream(stack).anyMatch(f -> f.getMethodName().equals("awaitToken")));
      release.countDown();
      List<String> lines = new ArrayList<>();
      for (Future<String> f : firstTokens) {
        lines.add(f.get(20, TimeUnit.SECONDS));
      }
      assertThat(lines).allMatch(l -> l != null && l.startsWith("data: "));
    } finally {
      release.countDown();
      pool.shutdownNow();
    }

    sim.close(); // ends the abandoned streams and publishes their timelines
    assertThat(sim.timelines()).hasSize(clients).extracting(ServerTimeline::outcome)
        .allMatch(o -> o == Outcome.CLIENT_GONE || o == Outcome.SIMULATOR_CLOSED);
    assertThat(sim.inFlight()).isZero();
  }

  private ServerTimeline timeline(String id) {
    return sim.timeline(id).orElseThrow(() -> new AssertionError("no timeline for " + id + " in "
        + sim.timelines().stream().map(ServerTimeline::requestId).collect(Collectors.toList())));
  }

  /** One client for all async requests of this class; it opens a connection per concurrent request. */
  private static final class HttpClientHolder {
    static final java.net.http.HttpClient CLIENT = java.net.http.HttpClient.newBuilder()
        .version(java.net.http.HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
  }
}
