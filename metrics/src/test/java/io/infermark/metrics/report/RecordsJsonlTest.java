package io.infermark.metrics.report;

import static io.infermark.core.capture.ChunkTimeline.UNKNOWN_TOKENS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ConnectionPhases;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.TimeoutPhase;
import io.infermark.core.capture.Usage;
import io.infermark.metrics.TestRuns;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecordsJsonlTest {

  private static String write(List<RequestRecord> records) {
    StringWriter out = new StringWriter();
    RecordsJsonl.write(records, out);
    return out.toString();
  }

  private static List<RequestRecord> roundTrip(List<RequestRecord> records) {
    return RecordsJsonl.read(new StringReader(write(records)));
  }

  /** A record with every field set, including every chunk kind, both token states and every phase. */
  private static RequestRecord everything() {
    long[] phases = new long[Phase.values().length];
    for (int i = 0; i < phases.length; i++) {
      phases[i] = 1_000L * (i + 1);
    }
    phases[Phase.DNS_START.ordinal()] = -1;
    phases[Phase.DNS_END.ordinal()] = -1;
    ChunkTimeline.Builder chunks = ChunkTimeline.builder();
    long t = 0;
    int i = 0;
    for (ChunkKind kind : ChunkKind.values()) {
      t += 1_234_567;
      chunks.add(t, kind, i++ % 2 == 0 ? UNKNOWN_TOKENS : i);
    }
    return RequestRecord.builder()
        .index(42)
        .requestId("req-42")
        .tags(Map.of("scenario", "chat", "tenant", "ünïcödé \"quoted\""))
        .intendedNanos(9_000_000_000L)
        .sendNanos(9_000_250_000L)
        .phases(ConnectionPhases.of(phases))
        .httpStatus(200)
        .chunks(chunks.build())
        .usage(Usage.builder().promptTokens(512).completionTokens(3).totalTokens(515).reasoningTokens(1)
            .cachedPromptTokens(256).build())
        .finishReason("length")
        .endOffsetNanos(t + 10)
        .serverTimings(Map.of("queue_ms", 1.5, "prefill_ms", 12.25))
        .text(Optional.of("Hello,\nworld! \u2603 {\"json\": true}\t"))
        .build();
  }

  @Test
  void roundTripRestoresEveryField() {
    List<RequestRecord> records = List.of(everything());

    assertThat(roundTrip(records)).isEqualTo(records);
  }

  @Test
  void roundTripKeepsFailuresOfEveryCategory() {
    List<RequestRecord> records = new ArrayList<>();
    int i = 0;
    for (ErrorCategory c : ErrorCategory.values()) {
      Failure f = c == ErrorCategory.TIMEOUT ? Failure.timeout(TimeoutPhase.READ, "no byte for 30 s")
          : c == ErrorCategory.HTTP_STATUS ? Failure.httpStatus(503, "{\"error\": \"overloaded\"}")
          : Failure.of(c, c + " happened").withHttpStatus(c == ErrorCategory.STREAM_ERROR ? 200 : 0);
      records.add(RequestRecord.builder().index(i++).failure(Optional.of(f)).httpStatus(f.httpStatus())
          .endOffsetNanos(i * 1000L).build());
    }

    assertThat(roundTrip(records)).isEqualTo(records);
  }

  @Test
  void roundTripKeepsAbsentUsageFieldsAbsent() {
    List<RequestRecord> records = List.of(
        RequestRecord.builder().index(0).usage(Usage.builder().completionTokens(7).build()).build(),
        RequestRecord.builder().index(1).usage(Usage.builder().promptTokens(0).build()).build(),
        RequestRecord.builder().index(2).build());

    List<RequestRecord> read = roundTrip(records);

    assertThat(read).isEqualTo(records);
    assertThat(read.get(0).usage().promptTokens()).isEmpty();
    assertThat(read.get(1).usage().promptTokens()).hasValue(0);
    assertThat(read.get(2).usage()).isEqualTo(Usage.NONE);
  }

  @Test
  void absentUsageFieldsAreOmittedFromTheLine() throws Exception {
    String line = write(List.of(RequestRecord.builder().usage(Usage.builder().completionTokens(7).build()).build()));

    JsonNode json = new ObjectMapper().readTree(line);
    assertThat(json.get("usage").toString()).isEqualTo("{\"completion_tokens\":7}");
    assertThat(json.has("failure")).isFalse();
    assertThat(json.has("text")).isFalse();
    assertThat(json.has("chunks")).isFalse();
    assertThat(json.has("finish_reason")).isFalse();
  }

  @Test
  void roundTripDistinguishesEmptyTextFromNoText() {
    List<RequestRecord> records = List.of(
        RequestRecord.builder().index(0).text(Optional.of("")).build(),
        RequestRecord.builder().index(1).text(Optional.empty()).build());

    List<RequestRecord> read = roundTrip(records);

    assertThat(read.get(0).text()).contains("");
    assertThat(read.get(1).text()).isEmpty();
  }

  @Test
  void roundTripKeepsManyChunksWithLargeOffsets() {
    ChunkTimeline.Builder chunks = ChunkTimeline.builder();
    long t = 3_000_000_000_000L; // about 50 minutes in nanoseconds: offsets beyond 32 bits
    for (int i = 0; i < 5000; i++) {
      t += 1 + (i * 7919L) % 50_000_000L;
      chunks.add(t, i % 50 == 0 ? ChunkKind.REASONING : ChunkKind.CONTENT, i % 3 == 0 ? UNKNOWN_TOKENS : i % 5);
    }
    chunks.add(Long.MAX_VALUE / 2, ChunkKind.USAGE, 0);
    List<RequestRecord> records = List.of(RequestRecord.builder().index(7).intendedNanos(Long.MAX_VALUE / 4)
        .sendNanos(Long.MAX_VALUE / 4 + 1).chunks(chunks.build()).endOffsetNanos(Long.MAX_VALUE / 2 + 1).build());

    List<RequestRecord> read = roundTrip(records);

    assertThat(read).isEqualTo(records);
    assertThat(read.get(0).chunks().size()).isEqualTo(5001);
  }

  @Test
  void writesOneRecordPerLine() {
    List<RequestRecord> records = new ArrayList<>(TestRuns.mixedRun().records());
    records.add(everything());

    String jsonl = write(records);

    assertThat(jsonl).endsWith("\n");
    assertThat(jsonl.split("\n")).hasSize(records.size()).allSatisfy(l -> assertThat(l).startsWith("{\"index\":"));
    assertThat(RecordsJsonl.read(new StringReader(jsonl))).isEqualTo(records);
  }

  @Test
  void writeLineAppendsRecordsOneAtATime() {
    List<RequestRecord> records = TestRuns.mixedRun().records();
    StringWriter out = new StringWriter();

    for (RequestRecord r : records) {
      RecordsJsonl.writeLine(r, out);
    }

    assertThat(out.toString()).isEqualTo(write(records));
  }

  @Test
  void roundTripsThroughAFile(@TempDir Path dir) {
    List<RequestRecord> records = new ArrayList<>(TestRuns.mixedRun().records());
    records.add(everything());
    Path file = dir.resolve("records.jsonl");

    RecordsJsonl.write(records, file);

    assertThat(RecordsJsonl.read(file)).isEqualTo(records);
    try (Stream<RequestRecord> s = RecordsJsonl.stream(file)) {
      assertThat(s.map(RequestRecord::index)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 42L);
    }
  }

  @Test
  void streamParsesLazily() {
    String jsonl = write(List.of(RequestRecord.builder().index(1).build())) + "{\"index\": \"not a number\"}\n";

    try (Stream<RequestRecord> s = RecordsJsonl.stream(new StringReader(jsonl))) {
      // Only the first record is parsed, so the broken second line is never reached.
      assertThat(s.findFirst()).map(RequestRecord::index).contains(1L);
    }
  }

  @Test
  void skipsFieldsFromLaterVersions() {
    String line = "{\"index\": 3, \"future\": {\"nested\": [1, 2, {\"x\": null}]}, \"also_new\": [true],"
        + " \"warmup\": true}\n";

    List<RequestRecord> read = RecordsJsonl.read(new StringReader(line));

    assertThat(read).containsExactly(RequestRecord.builder().index(3).warmup(true).build());
  }

  @Test
  void malformedInputNamesTheLine() {
    String jsonl = write(TestRuns.mixedRun().records().subList(0, 2)) + "{\"index\": 2, \"chunks\": {\"offsets_ns\": [1],"
        + " \"kinds\": [\"sparkle\"], \"tokens\": [1]}}\n";

    assertThatThrownBy(() -> RecordsJsonl.read(new StringReader(jsonl)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("line 3")
        .hasMessageContaining("unknown chunk kind 'sparkle'");
  }

  @Test
  void chunkArraysOfDifferentLengthsAreRejected() {
    String line = "{\"chunks\": {\"offsets_ns\": [1, 2], \"kinds\": [\"content\"], \"tokens\": [1, 1]}}";

    assertThatThrownBy(() -> RecordsJsonl.read(new StringReader(line)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("equal length, got 2, 1 and 2");
  }

  @Test
  void brokenJsonIsReportedAsMalformed() {
    assertThatThrownBy(() -> RecordsJsonl.read(new StringReader("{\"index\": 1}\n{\"index\": ")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("malformed records JSONL at line 2");
  }

  @Test
  void serverTimingsKeepNonFiniteValues() {
    List<RequestRecord> records = List.of(RequestRecord.builder()
        .serverTimings(Map.of("nan", Double.NaN, "inf", Double.POSITIVE_INFINITY, "tiny", Double.MIN_VALUE)).build());

    assertThat(roundTrip(records)).isEqualTo(records);
  }

  @Test
  void emptyInputHasNoRecords() {
    assertThat(RecordsJsonl.read(new StringReader(""))).isEmpty();
    assertThat(write(List.of())).isEmpty();
    assertThat(Arrays.asList(RecordsJsonl.read(new StringReader("\n\n")).toArray())).isEmpty();
  }

  @Test
  void retryAfterRoundTripsAndIsOmittedWhenAbsent() {
    RequestRecord throttled = RequestRecord.builder().index(1).httpStatus(429).retryAfter("30")
        .failure(Optional.of(Failure.httpStatus(429, "slow down"))).build();
    RequestRecord plain = RequestRecord.builder().index(2).httpStatus(200).build();
    StringWriter out = new StringWriter();

    RecordsJsonl.write(List.of(throttled, plain), out);

    String[] lines = out.toString().split("\n");
    assertThat(lines[0]).contains("\"retry_after\":\"30\"");
    assertThat(lines[1]).doesNotContain("retry_after");
    assertThat(RecordsJsonl.read(new StringReader(out.toString()))).containsExactly(throttled, plain);
  }
}
