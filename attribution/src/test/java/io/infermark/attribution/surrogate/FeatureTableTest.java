package io.infermark.attribution.surrogate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.attribution.phase.LatencyBasis;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ConnectionPhases;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.Usage;
import io.infermark.core.workload.WorkloadTags;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class FeatureTableTest {

  static final long MS = 1_000_000;

  /** A successful record sent at {@code sendMs}, ending {@code durationMs} later, with one token chunk at the end. */
  static RequestRecord record(int index, double sendMs, double durationMs, Map<String, String> tags) {
    long send = Math.round(sendMs * MS);
    long end = Math.round(durationMs * MS);
    return RequestRecord.builder().index(index).intendedNanos(send).sendNanos(send).tags(tags)
        .chunks(ChunkTimeline.builder().add(end, ChunkKind.CONTENT, 1).build()).endOffsetNanos(end).build();
  }

  @Test
  void rowsAreMeasuredSuccessfulRequestsOnlyButAllSentRequestsLoadTheServer() {
    // Sends and ends (ms): #0 warmup 0–100, #1 0–50, #2 failed 10–40, #3 20–30, #4 30–60, #5 not sent at 30.
    List<RequestRecord> records = List.of(
        record(0, 0, 100, Map.of()).toBuilder().warmup(true).build(),
        record(1, 0, 50, Map.of()),
        record(2, 10, 30, Map.of()).toBuilder().failure(Optional.of(Failure.httpStatus(503, "busy"))).build(),
        record(3, 20, 10, Map.of()),
        record(4, 30, 30, Map.of()),
        record(5, 30, 0, Map.of()).toBuilder().failure(Optional.of(Failure.of(ErrorCategory.NOT_SENT, "end")))
            .build());

    FeatureTable table = FeatureTable.builder().build(records);

    assertThat(table.rowCount()).isEqualTo(3);
    assertThat(table.skippedRecords()).isEqualTo(3);
    assertThat(table.records()).extracting(RequestRecord::index).containsExactly(1L, 3L, 4L);
    // #1 at 0: #0 (sent at the same instant) is in flight -> 1.
    // #3 at 20: #0, #1, #2 -> 3.  #4 at 30: #0, #1, #2; #3 ended exactly at 30 so is not; #5 never sent -> 3.
    assertThat(table.column(FeatureTable.IN_FLIGHT)).containsExactly(1, 3, 3);
    // Sent in [send − 1 s, send), the request itself and ties excluded: 0, then #0 #1 #2, then #0 #1 #2 #3.
    assertThat(table.column(FeatureTable.ARRIVALS_PREVIOUS_SECOND)).containsExactly(0, 3, 4);
  }

  @Test
  void inFlightAndArrivalsMatchABruteForceCount() {
    SplittableRandom random = new SplittableRandom(9);
    List<RequestRecord> records = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      // Times on a coarse grid so that ties between sends and ends happen.
      records.add(record(i, random.nextInt(200) * 10, random.nextInt(80) * 10, Map.of()));
    }
    FeatureTable table = FeatureTable.builder().arrivalWindow(Duration.ofMillis(250)).build(records);

    double[] inFlight = table.column(FeatureTable.IN_FLIGHT);
    double[] arrivals = table.column("arrivals_prev_250ms");
    for (int i = 0; i < records.size(); i++) {
      long send = records.get(i).sendNanos();
      int busy = 0;
      int recent = 0;
      for (int j = 0; j < records.size(); j++) {
        RequestRecord o = records.get(j);
        if (j != i && o.sendNanos() <= send && o.sendNanos() + o.endOffsetNanos() > send) {
          busy++;
        }
        if (o.sendNanos() >= send - 250 * MS && o.sendNanos() < send) {
          recent++;
        }
      }
      assertThat(inFlight[i]).as("in flight at request %d", i).isEqualTo(busy);
      assertThat(arrivals[i]).as("arrivals before request %d", i).isEqualTo(recent);
    }
  }

  /** A record with {@code prompt} input tokens, its first token {@code ttftMs} and last {@code durationMs} after send. */
  static RequestRecord prompted(int index, double sendMs, double ttftMs, double durationMs, int prompt) {
    long send = Math.round(sendMs * MS);
    long first = Math.round(ttftMs * MS);
    long end = Math.round(durationMs * MS);
    ChunkTimeline.Builder chunks = ChunkTimeline.builder().add(first, ChunkKind.CONTENT, 1);
    if (end > first) {
      chunks.add(end, ChunkKind.CONTENT, 1);
    }
    return RequestRecord.builder().index(index).intendedNanos(send).sendNanos(send)
        .tags(Map.of(WorkloadTags.INPUT_TOKENS_ACHIEVED, Integer.toString(prompt)))
        .chunks(chunks.build()).endOffsetNanos(end).build();
  }

  @Test
  void overlappingPrefillTokensCountOthersPrefillDuringEachRequestsLifetime() {
    // #0 short, 0-100 ms (first token at 10). #1 long prompt, prefill 20-80 (first token at 80), ends 120.
    // #2 short, 90-150 (first token 95): #1's prefill is over by 90. #3 failed at 130 after 10 ms without tokens:
    // its prefill window is its whole life, 130-140.
    List<RequestRecord> records = List.of(
        prompted(0, 0, 10, 100, 50),
        prompted(1, 20, 60, 100, 4000),
        prompted(2, 90, 5, 60, 70),
        record(3, 130, 10, Map.of(WorkloadTags.INPUT_TOKENS_ACHIEVED, "300")).toBuilder()
            .chunks(ChunkTimeline.builder().build())
            .failure(Optional.of(Failure.of(ErrorCategory.RESET, "reset"))).build());

    assertThat(FeatureTable.builder().build(records).columns()).doesNotContain(FeatureTable.OVERLAPPING_PREFILL_TOKENS);
    FeatureTable table = FeatureTable.builder().overlappingPrefillTokens().build(records);

    // #0 (0-100) overlaps #1's prefill (20-80) and #2's (90-95): 4070; #3's starts after it ended.
    // #1 (20-120) does not overlap #0's (0-10), does #2's (90-95): 70. #2 (90-150): not #1's (20-80), #3's: 300.
    assertThat(table.column(FeatureTable.OVERLAPPING_PREFILL_TOKENS)).containsExactly(4070, 70, 300);
  }

  @Test
  void overlappingPrefillTokensMatchABruteForceSum() {
    SplittableRandom random = new SplittableRandom(11);
    List<RequestRecord> records = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      // A coarse grid, so that windows touch exactly; some first tokens at 0 ms, some requests without a length.
      int ttft = random.nextInt(6) * 10;
      RequestRecord r = prompted(i, random.nextInt(200) * 10, ttft, ttft + random.nextInt(8) * 10,
          1 + random.nextInt(5000));
      records.add(i % 17 == 0 ? r.toBuilder().tags(Map.of()).build() : r);
    }
    FeatureTable table = FeatureTable.builder().overlappingPrefillTokens().build(records);

    double[] column = table.column(FeatureTable.OVERLAPPING_PREFILL_TOKENS);
    for (int i = 0; i < records.size(); i++) {
      RequestRecord me = records.get(i);
      long end = me.sendNanos() + me.endOffsetNanos();
      double sum = 0;
      for (int j = 0; j < records.size(); j++) {
        RequestRecord o = records.get(j);
        String tokens = o.tags().get(WorkloadTags.INPUT_TOKENS_ACHIEVED);
        long prefillEnd = o.sendNanos() + o.chunks().firstTokenOffsetNanos().getAsLong();
        if (j != i && tokens != null && end > me.sendNanos() && o.sendNanos() < end && prefillEnd > me.sendNanos()) {
          sum += Integer.parseInt(tokens);
        }
      }
      assertThat(column[i]).as("request %d", i).isEqualTo(sum);
    }
  }

  @Test
  void inputTokensPreferServerUsageThenAchievedThenRequestedTags() {
    List<RequestRecord> records = List.of(
        record(0, 0, 10, Map.of(WorkloadTags.INPUT_TOKENS_ACHIEVED, "90", WorkloadTags.INPUT_TOKENS_REQUESTED, "80"))
            .toBuilder().usage(Usage.of(100, 7)).build(),
        record(1, 1, 10, Map.of(WorkloadTags.INPUT_TOKENS_ACHIEVED, "90", WorkloadTags.INPUT_TOKENS_REQUESTED, "80")),
        record(2, 2, 10, Map.of(WorkloadTags.INPUT_TOKENS_REQUESTED, "80")),
        record(3, 3, 10, Map.of()));

    FeatureTable table = FeatureTable.builder().build(records);

    assertThat(table.column(FeatureTable.INPUT_TOKENS)).containsExactly(100, 90, 80, Double.NaN);
    // Output tokens: server usage (7), else the single chunk's count (1).
    assertThat(table.column(FeatureTable.OUTPUT_TOKENS)).containsExactly(7, 1, 1, 1);
  }

  @Test
  void workloadAndCallerTagsBecomeColumnsAndAllNanBuiltInsAreDropped() {
    List<RequestRecord> records = List.of(
        record(0, 0, 10, Map.of(WorkloadTags.BURST, "2", "temperature", "0.7")),
        record(1, 1, 10, Map.of(WorkloadTags.BURST, "0")),
        record(2, 2, 10, Map.of("temperature", " 1.5 ")));

    FeatureTable table = FeatureTable.builder().tagColumns("temperature").build(records);

    // input_tokens, cached_prompt_tokens and rank are unknown for every request: dropped.
    assertThat(table.columns()).containsExactly(FeatureTable.OUTPUT_TOKENS, FeatureTable.IN_FLIGHT,
        FeatureTable.ARRIVALS_PREVIOUS_SECOND, FeatureTable.BURST, "temperature");
    assertThat(table.column(FeatureTable.BURST)).containsExactly(2, 0, Double.NaN);
    assertThat(table.column("temperature")).containsExactly(0.7, Double.NaN, 1.5);
    assertThat(table.row(0)).hasSize(5);
    assertThat(table.toString()).isEqualTo("FeatureTable[3 rows (0 records skipped), columns [output_tokens, "
        + "in_flight_at_send, arrivals_prev_1000ms, burst, temperature]]");
  }

  @Test
  void extraColumnsArePluggable() {
    List<RequestRecord> records = List.of(record(0, 0, 10, Map.of()), record(1, 5, 20, Map.of()));

    FeatureTable table = FeatureTable.builder()
        .extraColumns(List.of("end_ms", "half_end_ms"), r -> new double[] {r.endOffsetNanos() / 1e6,
            r.index() == 0 ? Double.NaN : r.endOffsetNanos() / 2e6})
        .build(records);

    assertThat(table.column("end_ms")).containsExactly(10, 20);
    assertThat(table.column("half_end_ms")).containsExactly(Double.NaN, 10);
  }

  @Test
  void phaseColumnsFollowExtraColumnsAndAddUpToEachRequestsE2e() {
    // #0: pooled connection, request written at 1 ms, first header byte at 4 ms, tokens at 6 and 10 ms.
    long[] offsets = new long[Phase.values().length];
    Arrays.fill(offsets, -1);
    offsets[Phase.CONNECTION_ACQUIRED.ordinal()] = 0;
    offsets[Phase.REQUEST_SENT.ordinal()] = 1 * MS;
    offsets[Phase.RESPONSE_HEADERS_START.ordinal()] = 4 * MS;
    RequestRecord streamed = record(0, 0, 10, Map.of()).toBuilder().phases(ConnectionPhases.of(offsets))
        .chunks(ChunkTimeline.builder().add(6 * MS, ChunkKind.CONTENT, 1).add(10 * MS, ChunkKind.CONTENT, 1).build())
        .build();
    // #1 succeeded without a token-bearing chunk: no E2E, so its phases are unknown.
    RequestRecord empty = record(1, 1, 10, Map.of()).toBuilder().chunks(ChunkTimeline.builder().build()).build();

    FeatureTable table = FeatureTable.builder()
        .extraColumns(List.of("one"), r -> new double[] {1})
        .phaseColumns(LatencyBasis.SERVICE_TIME)
        .build(List.of(streamed, empty));

    List<String> phases = LatencyBasis.SERVICE_TIME.labels();
    assertThat(table.columns().subList(table.columns().size() - phases.size() - 1, table.columns().size()))
        .containsExactlyElementsOf(concat(List.of("one"), phases));
    assertThat(table.column("request_write")).containsExactly(1, Double.NaN);
    assertThat(table.column("waiting")).containsExactly(3, Double.NaN);
    assertThat(table.column("first_byte_to_first_token")).containsExactly(2, Double.NaN);
    assertThat(table.column("decode")).containsExactly(4, Double.NaN);
    double sum = 0;
    for (String phase : phases) {
      sum += table.column(phase)[0];
    }
    assertThat(sum).isEqualTo(10.0);
    assertThatThrownBy(() -> FeatureTable.builder().extraColumns(List.of("decode"), r -> new double[1])
        .phaseColumns(LatencyBasis.SERVICE_TIME)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("distinct");
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  @Test
  void rejectsNonNumericTagsWrongExtraColumnsAndDuplicateNames() {
    List<RequestRecord> records = List.of(record(7, 0, 10, Map.of("level", "high")));
    assertThatThrownBy(() -> FeatureTable.builder().tagColumns("level").build(records))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tag 'level' of record 7 is 'high'");
    assertThatThrownBy(() -> FeatureTable.builder().extraColumns(List.of("a"), r -> new double[2]).build(records))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("need 1 values per record, got 2");
    assertThatThrownBy(() -> FeatureTable.builder()
        .extraColumns(List.of("a"), r -> new double[] {Double.POSITIVE_INFINITY}).build(records))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("use NaN");
    assertThatThrownBy(() -> FeatureTable.builder().tagColumns("x", "x"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("distinct");
    assertThatThrownBy(() -> FeatureTable.builder().extraColumns(List.of(FeatureTable.OUTPUT_TOKENS),
        r -> new double[1]).build(records)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("distinct");
    assertThatThrownBy(() -> FeatureTable.builder().arrivalWindow(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("positive");
    assertThatThrownBy(() -> FeatureTable.builder().build(records).column("nope"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no column 'nope'");
  }
}
