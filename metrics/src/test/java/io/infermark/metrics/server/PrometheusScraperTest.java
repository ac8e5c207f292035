package io.infermark.metrics.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.RunStart;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.metrics.TestRuns;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.DoubleSupplier;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PrometheusScraperTest {

  private static String vllm(int running, int waiting, double cache) {
    return "# HELP vllm:num_requests_running Number of requests in model execution batches.\n"
        + "# TYPE vllm:num_requests_running gauge\n"
        + "vllm:num_requests_running{engine=\"0\",model_name=\"llama\"} " + running + ".0\n"
        + "# TYPE vllm:num_requests_waiting gauge\n"
        + "vllm:num_requests_waiting{engine=\"0\",model_name=\"llama\"} " + waiting + ".0\n"
        + "vllm:num_requests_waiting{engine=\"1\",model_name=\"llama\"} 1.0\n"
        + "# TYPE vllm:gpu_cache_usage_perc gauge\n"
        + "vllm:gpu_cache_usage_perc{engine=\"0\",model_name=\"llama\"} " + cache + "\n"
        + "vllm:e2e_request_latency_seconds_bucket{le=\"+Inf\",model_name=\"llama\"} 12\n";
  }

  private MockWebServer server;
  private final AtomicLong now = new AtomicLong(1_000_000_000L);

  @BeforeEach
  void setUp() throws Exception {
    server = new MockWebServer();
    server.start();
  }

  @AfterEach
  void tearDown() {
    server.close();
  }

  private PrometheusScraper scraper() {
    return PrometheusScraper.builder(server.url("/metrics").toString())
        .series("vllm:num_requests_running")
        .series("vllm:num_requests_waiting")
        .series(new SeriesSelector("vllm:gpu_cache_usage_perc", Map.of("engine", "0")))
        .series("sglang:absent")
        .build();
  }

  @Test
  void keepsChosenSeriesOnTheRunClock() {
    server.enqueue(new MockResponse.Builder().body(vllm(3, 2, 0.25)).build());
    server.enqueue(new MockResponse.Builder().body(vllm(5, 0, 0.5)).build());
    PrometheusScraper s = scraper();
    s.bindClock(now::get, 1_000_000_000L);
    now.set(1_500_000_000L);
    assertThat(s.scrapeOnce()).isTrue();
    now.set(2_500_000_000L);
    assertThat(s.scrapeOnce()).isTrue();
    List<ServerSeries> series = s.series();
    assertThat(series).extracting(ServerSeries::name).containsExactly("vllm:num_requests_running",
        "vllm:num_requests_waiting", "vllm:gpu_cache_usage_perc{engine=\"0\"}", "sglang:absent");
    ServerSeries running = series.get(0);
    assertThat(running.size()).isEqualTo(2);
    assertThat(running.value(0)).isEqualTo(3.0);
    assertThat(running.value(1)).isEqualTo(5.0);
    assertThat(series.get(1).value(0)).isEqualTo(3.0); // 2 + 1 over both engines
    assertThat(series.get(2).value(1)).isEqualTo(0.5);
    assertThat(series.get(3).size()).isZero();
    // The clock stands still during each scrape, so the midpoint is the reading minus the origin.
    assertThat(running.timeNanos(0)).isEqualTo(500_000_000L);
    assertThat(running.timeNanos(1)).isEqualTo(1_500_000_000L);
  }

  @Test
  void latestValueIsADoubleSupplierForControllers() {
    server.enqueue(new MockResponse.Builder().body(vllm(7, 4, 0.9)).build());
    server.enqueue(new MockResponse.Builder().body(vllm(7, 4, 0.9)).build()); // the last scrape at the run's end
    PrometheusScraper s = scraper();
    DoubleSupplier waiting = s.latest("vllm:num_requests_waiting");
    assertThat(waiting.getAsDouble()).isNaN();
    s.onRunStarted(new RunStart(TestRuns.STARTED_AT, 0, now::get, "t", LoadProfile.concurrency(1).requests(1),
        GenerationParams.defaults(), OptionalLong.of(1)));
    try {
      // The scraper's own daemon thread takes the page; wait for the server to see the request.
      assertThat(server.takeRequest(5, TimeUnit.SECONDS)).isNotNull();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (s.successfulScrapes() == 0 && System.nanoTime() < deadline) {
        Thread.onSpinWait(); // the response is parsed just after the server saw the request
      }
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    } finally {
      s.onRunFinished(null);
    }
    assertThat(waiting.getAsDouble()).isEqualTo(5.0);
    assertThatThrownBy(() -> s.latest("nope")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("selected are");
  }

  @Test
  void latestValueIsAControlSignalEmptyUntilTheFirstScrape() {
    server.enqueue(new MockResponse.Builder().body(vllm(7, 4, 0.9)).build());
    PrometheusScraper s = scraper();
    s.bindClock(now::get, 1_000_000_000L);
    io.infermark.core.control.ControlSignal.Probe waiting = s.controlSignal("vllm:num_requests_waiting").open();
    assertThat(waiting.read(0)).isEmpty();

    assertThat(s.scrapeOnce()).isTrue();

    assertThat(waiting.read(0)).hasValue(5.0);
    assertThatThrownBy(() -> s.controlSignal("nope")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void failedScrapesAreCountedAndDoNotStopTheSeries() {
    server.enqueue(new MockResponse.Builder().code(503).build());
    server.enqueue(new MockResponse.Builder().body(vllm(1, 0, 0.1)).build());
    PrometheusScraper s = scraper();
    s.bindClock(now::get, 0);
    assertThat(s.scrapeOnce()).isFalse();
    assertThat(s.scrapeOnce()).isTrue();
    assertThat(s.failedScrapes()).isEqualTo(1);
    assertThat(s.series().get(0).latest()).hasValue(1.0);
  }

  @Test
  void aSlowPageIsLateNotLostAndTheTicksItOverranAreSkipped() {
    // llama.cpp answers /metrics only between batches: this page takes 3.5 s on the run's clock
    server.setDispatcher(new mockwebserver3.Dispatcher() {
      @Override
      public MockResponse dispatch(mockwebserver3.RecordedRequest request) {
        now.addAndGet(3_500_000_000L);
        return new MockResponse.Builder().body(vllm(2, 1, 0.3)).build();
      }
    });
    PrometheusScraper s = scraper();
    s.bindClock(now::get, 0); // the first scrape is due now, at 1 s
    s.tick();
    assertThat(s.successfulScrapes()).isEqualTo(1);
    assertThat(s.failedScrapes()).isZero();
    assertThat(s.lateScrapes()).isEqualTo(1);
    assertThat(s.skippedTicks()).isEqualTo(3); // the ticks due at 2, 3 and 4 s; the next one is at 5 s
    ServerSeries running = s.series().get(0);
    assertThat(running.fromNanos(0)).isEqualTo(1_000_000_000L);
    assertThat(running.toNanos(0)).isEqualTo(4_500_000_000L);
    ScrapeReport report = s.report();
    assertThat(report.late()).isEqualTo(1);
    assertThat(report.successful()).isEqualTo(1);
    assertThat(report.timeout()).isEqualTo(Duration.ofSeconds(PrometheusScraper.DEFAULT_TIMEOUT_SECONDS));
    assertThat(report.summary()).contains("1 scrape every 1 s, 1 late, 0 failed (timeout 30 s)");
  }

  @Test
  void theRunsEndStateIsScrapedEvenWhenTheRunIsShorterThanTheInterval() {
    server.enqueue(new MockResponse.Builder().body(vllm(0, 0, 0.1)).build());
    server.enqueue(new MockResponse.Builder().body(vllm(0, 0, 0.1)).build());
    PrometheusScraper s = PrometheusScraper.builder(server.url("/metrics").toString()).series("vllm:num_requests_running")
        .interval(Duration.ofSeconds(60)).build();
    s.onRunStarted(new RunStart(TestRuns.STARTED_AT, 0, now::get, "t", LoadProfile.concurrency(1).requests(1),
        GenerationParams.defaults(), OptionalLong.of(1)));
    s.onRunFinished(null); // waits for the first scrape if it is in flight, then takes the last one
    assertThat(s.successfulScrapes()).isBetween(1, 2);
    assertThat(s.series().get(0).latest()).hasValue(0.0);
  }

  @Test
  void aPageSlowerThanTheTimeoutIsAFailedScrape() {
    server.enqueue(new MockResponse.Builder().body(vllm(1, 0, 0.1)).headersDelay(5, TimeUnit.SECONDS).build());
    PrometheusScraper s = PrometheusScraper.builder(server.url("/metrics").toString()).series("vllm:num_requests_running")
        .timeout(Duration.ofMillis(200)).build();
    s.bindClock(now::get, 0);
    assertThat(s.scrapeOnce()).isFalse();
    assertThat(s.failedScrapes()).isEqualTo(1);
    assertThat(s.report().failed()).isEqualTo(1);
    assertThatThrownBy(() -> PrometheusScraper.builder("http://h/m").timeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("positive");
  }

  @Test
  void parsesEscapesSpecialValuesAndSkipsBadLines() {
    PrometheusText.Page page = PrometheusText.parse("a{x=\"q\\\"uote\\\\\",y=\"n\\nl\"} NaN\n"
        + "b +Inf 1700000000\nbroken{x=\"1\" 3\nc{} -2.5e3\n");
    assertThat(page.skippedLines()).isEqualTo(1);
    assertThat(page.samples()).hasSize(3);
    assertThat(page.samples().get(0).labels()).containsEntry("x", "q\"uote\\").containsEntry("y", "n\nl");
    assertThat(page.samples().get(0).value()).isNaN();
    assertThat(page.samples().get(1).value()).isInfinite();
    assertThat(page.samples().get(2).value()).isEqualTo(-2500.0);
  }

  @Test
  void rejectsBadConfiguration() {
    assertThatThrownBy(() -> PrometheusScraper.builder("not a url"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("http or https URL");
    assertThatThrownBy(() -> PrometheusScraper.builder("http://user:secret@h/metrics").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("select at least one series");
    assertThatThrownBy(() -> PrometheusScraper.builder("http://h/metrics").interval(Duration.ofMillis(1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 10 ms");
    assertThatThrownBy(() -> PrometheusScraper.builder("http://h/m").series("a").build().scrapeOnce())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("no clock yet");
    assertThatThrownBy(() -> PrometheusScraper.builder("http://h/m").series("a").series("a"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("already selected");
  }
}
