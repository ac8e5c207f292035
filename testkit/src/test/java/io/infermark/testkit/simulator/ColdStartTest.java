package io.infermark.testkit.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ColdStartTest {

  private static final long MS = 1_000_000L;

  /** A serving model that admits and generates every request at once, at its submission time. */
  private static final class Instant implements ServingModel {
    @Override
    public Generation submit(String id, long arrival, int prompt, long[] hashes, int output) {
      return new Generation() {
        @Override
        public long awaitAdmission() {
          return arrival;
        }

        @Override
        public long awaitToken(int index) {
          return arrival;
        }

        @Override
        public boolean isAdmitted() {
          return true;
        }

        @Override
        public boolean isReady(int index) {
          return true;
        }

        @Override
        public SequenceTimeline engineTimeline() {
          return new SequenceTimeline(id, arrival, prompt, output, arrival, arrival, arrival, new long[] {arrival},
              arrival, new long[0], 0);
        }

        @Override
        public void close() {}
      };
    }

    @Override
    public EngineStats stats() {
      return EngineStats.empty(0);
    }

    @Override
    public void close() {}
  }

  @Test
  void aRequestAfterTheIdleTimeoutWaitsForAnotherLoadAndOneBeforeItDoesNot() throws InterruptedException {
    AtomicLong now = new AtomicLong();
    ColdStart cold = ColdStart.onFirstRequest(Duration.ofMillis(100)).scaleToZeroAfter(Duration.ofMillis(150));
    try (ColdStartServingModel model = new ColdStartServingModel(new Instant(), cold, now::get)) {
      assertThat(model.ready()).as("nothing loading before the first request").isTrue();
      ServingModel.Generation r1 = model.submit("r1", 0, 5, new long[0], 1);
      now.set(50 * MS);
      assertThat(model.ready()).as("loading from 0 to 100 ms").isFalse();
      // The engine sees r1 when the load ends: 100 ms.
      assertThat(r1.awaitAdmission()).isEqualTo(100 * MS);
      assertThat(r1.engineTimeline().loadDurationNanos()).isEqualTo(100 * MS);
      assertThat(r1.engineTimeline().arrivalNanos()).isZero();
      assertThat(r1.engineTimeline().timeToFirstTokenNanos()).hasValue(100 * MS);
      now.set(120 * MS);
      assertThat(model.ready()).isTrue();
      r1.close(); // idle from 120 ms

      now.set(200 * MS); // 80 ms idle < 150 ms: still loaded
      ServingModel.Generation r2 = model.submit("r2", 200 * MS, 5, new long[0], 1);
      assertThat(r2.awaitAdmission()).isEqualTo(200 * MS);
      assertThat(r2.engineTimeline().loadDurationNanos()).isZero();
      now.set(210 * MS);
      r2.close(); // idle from 210 ms

      now.set(400 * MS); // 190 ms idle >= 150 ms: scaled to zero, loads again until 500 ms
      ServingModel.Generation r3 = model.submit("r3", 400 * MS, 5, new long[0], 1);
      now.set(430 * MS);
      ServingModel.Generation r4 = model.submit("r4", 430 * MS, 5, new long[0], 1); // joins the same load
      assertThat(r3.awaitAdmission()).isEqualTo(500 * MS);
      assertThat(r3.engineTimeline().loadDurationNanos()).isEqualTo(100 * MS);
      assertThat(r4.engineTimeline().loadDurationNanos()).isEqualTo(70 * MS);
      assertThat(model.loads()).isEqualTo(2);
      r3.close();
      r4.close();
    }
  }

  @Test
  void healthAnswers503WhileTheModelLoadsAtStartAndRequestsWaitForIt() throws Exception {
    long loadMs = 400;
    long beforeStart = System.nanoTime();
    SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(10))
        .interTokenInterval(Duration.ofMillis(1)).coldStart(ColdStart.atStart(Duration.ofMillis(loadMs))).build();
    try (Simulator sim = Simulator.start(config)) {
      SimHttp http = new SimHttp(sim);
      java.util.concurrent.CompletableFuture<HttpResponse<String>> sent =
          java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
              return http.post("/v1/completions", SimHttp.completion("\"max_tokens\": 4, \"ignore_eos\": true"),
                  "X-Request-Id", "cold");
            } catch (java.io.IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
          });
      long loadEnd = beforeStart + loadMs * MS; // the earliest the load can end: it began inside start()
      while (true) {
        int status = http.get("/health").statusCode();
        long answered = System.nanoTime();
        if (answered < loadEnd) {
          assertThat(status).as("health answered before the load can have ended").isEqualTo(503);
        }
        if (status == 200) {
          assertThat(answered).as("ready no earlier than the load's end").isGreaterThanOrEqualTo(loadEnd);
          break;
        }
        assertThat(status).isEqualTo(503);
        Thread.sleep(5);
      }
      HttpResponse<String> response = sent.get();
      ServerTimeline cold = sim.timeline("cold").orElseThrow();
      long load = cold.engine().orElseThrow().loadDurationNanos();
      // The load began inside start(), so it ended at least loadMs after beforeStart; the request
      // reached the engine then: arrival + load is that end.
      assertThat(cold.arrivalNanos() + load).isGreaterThanOrEqualTo(beforeStart + loadMs * MS);
      assertThat(cold.firstTokenNanos().getAsLong() - cold.arrivalNanos()).isGreaterThanOrEqualTo(load + 10 * MS);
      assertThat(http.get("/health").statusCode()).isEqualTo(200);

      http.post("/v1/completions", SimHttp.completion("\"max_tokens\": 4"), "X-Request-Id", "warm");
      assertThat(sim.timeline("warm").orElseThrow().engine().orElseThrow().loadDurationNanos()).isZero();
    }
  }

  @Test
  void theFirstRequestToAnEngineOnDemandWaitsExactlyTheLoadTime() throws Exception {
    SimulatorConfig config = SimulatorConfig.builder().engine(EngineProfile.nearZeroCost())
        .coldStart(ColdStart.onFirstRequest(Duration.ofMillis(150))).build();
    try (Simulator sim = Simulator.start(config)) {
      SimHttp http = new SimHttp(sim);
      assertThat(http.get("/health").statusCode()).as("nothing loads before a request").isEqualTo(200);
      HttpResponse<String> first = http.post("/v1/completions",
          SimHttp.completion("\"max_tokens\": 4, \"ignore_eos\": true, \"stream\": true"), "X-Request-Id", "first");
      assertThat(first.statusCode()).isEqualTo(200);
      assertThat(first.body()).contains("[DONE]");
      ServerTimeline t = sim.timeline("first").orElseThrow();
      // The request started the load: it waited the whole 150 ms, exactly.
      assertThat(t.engine().orElseThrow().loadDurationNanos()).isEqualTo(150 * MS);
      assertThat(t.firstTokenNanos().getAsLong() - t.arrivalNanos()).isGreaterThanOrEqualTo(150 * MS);
      http.post("/v1/completions", SimHttp.completion("\"max_tokens\": 4, \"stream\": true"), "X-Request-Id", "second");
      assertThat(sim.timeline("second").orElseThrow().engine().orElseThrow().loadDurationNanos()).isZero();
    }
  }

  @Test
  void rejectsALoadTimeOfZero() {
    assertThatThrownBy(() -> ColdStart.atStart(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("loadTime");
  }
}
