package io.infermark.metrics.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Memory thresholds crossed between scrapes, by hand: times, directions, values, and the requests they land on. */
class MemoryThresholdsTest {

  private static final long MS = 1_000_000L;

  /**
   * KV usage scraped at 0, 100, ..., 600 ms (each scrape answered 5 ms after it was sent): 0.10, 0.86, 0.93, 0.95,
   * 0.90, 0.80, 0.96. Against 85 %: up in (0, 105], down in (400, 505], up in (500, 605]. Against 92 %: up in (100,
   * 205], down in (300, 405], up in (500, 605]. Bandwidth, DCGM's ratio: 0.97 at the first scrape (already past
   * 95 %), then 0.50 at 100 ms: down in (0, 105].
   */
  private static final List<ServerSeries> SCRAPED = List.of(
      series("vllm:kv_cache_usage_perc", 0.10, 0.86, 0.93, 0.95, 0.90, 0.80, 0.96),
      series("DCGM_FI_PROF_DRAM_ACTIVE", 0.97, 0.50),
      series("vllm:num_preemptions_total", 0, 1, 1, 1, 1, 1, 1));

  private static ServerSeries series(String name, double... values) {
    long[] t = new long[values.length];
    long[] from = new long[values.length];
    long[] to = new long[values.length];
    for (int i = 0; i < values.length; i++) {
      from[i] = i * 100 * MS;
      to[i] = from[i] + 5 * MS;
      t[i] = from[i] + 2 * MS;
    }
    return new ServerSeries(name, t, values, from, to);
  }

  private static RequestRecord request(int index, long sendMs, long firstMs, long lastMs) {
    return RequestRecord.builder().index(index).requestId("r" + index).sendNanos(sendMs * MS).intendedNanos(sendMs * MS)
        .httpStatus(200).chunks(ChunkTimeline.builder().add((firstMs - sendMs) * MS, ChunkKind.CONTENT, 1)
            .add((lastMs - sendMs) * MS, ChunkKind.CONTENT, 1).build())
        .endOffsetNanos((lastMs - sendMs) * MS).build();
  }

  @Test
  void theSeedsThresholdsAreCrossedUpAndDownAtTheScrapesThatSawIt() {
    List<MemoryThresholds.Crossing> c = MemoryThresholds.defaults().crossings(SCRAPED);

    assertThat(c).extracting(x -> x.threshold().label() + " " + x.direction().word() + " " + x.fromNanos() / MS + ".."
        + x.toNanos() / MS + " " + x.before() + "->" + x.after()).containsExactly(
        "bandwidth 95% up 0..5 NaN->0.97",       // already past at the first scrape
        "kv 85% up 0..105 0.1->0.86",
        "bandwidth 95% down 0..105 0.97->0.5",
        "kv 92% up 100..205 0.86->0.93",
        "kv 92% down 300..405 0.95->0.9",
        "kv 85% down 400..505 0.9->0.8",
        "kv 85% up 500..605 0.8->0.96",
        "kv 92% up 500..605 0.8->0.96");
    assertThat(c.get(3).toString()).isEqualTo("vllm:kv_cache_usage_perc crossed up 92% (KV eviction (seed 000 §3.3)) "
        + "(between scrapes at 100.0 and 205.0 ms: 0.86 -> 0.93)");
    assertThat(c.get(0).toString()).endsWith("(between scrapes at 0.0 and 5.0 ms: already at the first scrape -> 0.97)");
    assertThat(MemoryThresholds.defaults().thresholds()).extracting(MemoryThreshold::toString).containsExactly(
        "kv 85% (shrink the batch, scale out (seed 003 ch.1))", "kv 92% (KV eviction (seed 000 §3.3))",
        "bandwidth 95% (bandwidth starvation (seed 000 §3.3))");
  }

  @Test
  void crossingsLandOnTheRequestsTheyOverlapWithThePhase() {
    MemoryThresholds t = MemoryThresholds.of(List.of(MemoryThreshold.seed000KvEviction()));
    // Sent at 90, first token at 95, last at 450: (100, 205] lies in its decode; (300, 405] too.
    // Sent at 500, first token at 620: (500, 605] fell before its first token. Done by 80 ms: nothing.
    List<RequestRecord> tagged = t.tag(SCRAPED, List.of(request(0, 90, 95, 450), request(1, 500, 620, 700),
        request(2, 10, 20, 80)));

    assertThat(tagged.get(0).tags().get(MemoryThresholds.TAG)).isEqualTo(
        "vllm:kv_cache_usage_perc crossed up 92% (KV eviction (seed 000 §3.3)) during decode (between scrapes at "
            + "100.0 and 205.0 ms: 0.86 -> 0.93); vllm:kv_cache_usage_perc crossed down 92% (KV eviction (seed 000 "
            + "§3.3)) during decode (between scrapes at 300.0 and 405.0 ms: 0.95 -> 0.9)");
    assertThat(tagged.get(1).tags().get(MemoryThresholds.TAG)).contains("crossed up 92%", "before the first token");
    assertThat(tagged.get(2).tags()).doesNotContainKey(MemoryThresholds.TAG);
  }

  @Test
  void thePreV1GaugeIsReadWhenTheV1OneIsAbsentAndAThresholdWithNoSeriesSaysSo() {
    List<ServerSeries> old = List.of(series("vllm:gpu_cache_usage_perc", 0.5, 0.9), series("other", 1));
    MemoryThresholds t = MemoryThresholds.defaults();

    assertThat(t.crossings(old)).singleElement().satisfies(x -> {
      assertThat(x.series()).isEqualTo("vllm:gpu_cache_usage_perc");
      assertThat(x.threshold().level()).isEqualTo(0.85);
    });
    assertThat(t.unread(old)).containsExactly(MemoryThreshold.seed000BandwidthStarvation());
    assertThat(t.seriesNames()).containsExactly("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc",
        "llamacpp:kv_cache_usage_ratio", "sglang:token_usage", "DCGM_FI_PROF_DRAM_ACTIVE");
  }

  @Test
  void aCustomGaugeAndBadLevels() {
    MemoryThreshold waiting = new MemoryThreshold("queue 3", List.of("vllm:num_requests_waiting"), 3, "queueing");
    ServerSeries q = series("vllm:num_requests_waiting", 0, 2, 3, 7, 2.5);
    assertThat(MemoryThresholds.of(List.of(waiting)).crossings(List.of(q))).extracting(x -> x.direction())
        .containsExactly(MemoryThresholds.Direction.UP, MemoryThresholds.Direction.DOWN);
    assertThat(waiting.levelText()).isEqualTo("3");
    assertThatThrownBy(() -> MemoryThreshold.kvCache(92, "x")).hasMessageContaining("ratio in (0, 1] (0.92 for 92 %)");
    assertThatThrownBy(() -> new MemoryThreshold("x", List.of(), 0.5, "x")).hasMessageContaining("at least one series");
  }

  @Test
  void aScrapeReportWatchingThresholdsListsItsCrossings() {
    ScrapeReport r = new ScrapeReport("http://h/metrics", Duration.ofMillis(100), Duration.ofSeconds(1), 7, 0, 0,
        SCRAPED);
    assertThat(r.memoryCrossings()).isEmpty();
    assertThat(r.withMemoryThresholds(MemoryThresholds.defaults()).memoryCrossings()).hasSize(8);
  }
}
