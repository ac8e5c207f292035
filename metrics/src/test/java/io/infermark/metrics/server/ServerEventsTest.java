package io.infermark.metrics.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Counter rises between scrapes placed on the requests they overlap, by hand. */
class ServerEventsTest {

  private static final long MS = 1_000_000L;

  /** Scrapes at 0, 100, 200, 300 ms: preemptions 0, 0, 1, 3 (+1 in (100, 200], +2 in (200, 300]); a gauge too. */
  private static final List<ServerSeries> SCRAPED = List.of(
      new ServerSeries("vllm:num_preemptions_total", new long[] {0, 100 * MS, 200 * MS, 300 * MS},
          new double[] {0, 0, 1, 3}),
      new ServerSeries("vllm:kv_cache_usage_perc", new long[] {0, 100 * MS, 200 * MS, 300 * MS},
          new double[] {0.1, 0.9, 0.5, 0.95}));

  private static RequestRecord request(int index, long sendMs, long firstMs, long lastMs) {
    return RequestRecord.builder().index(index).requestId("r" + index).sendNanos(sendMs * MS).intendedNanos(sendMs * MS)
        .httpStatus(200).chunks(ChunkTimeline.builder().add((firstMs - sendMs) * MS, ChunkKind.CONTENT, 1)
            .add((lastMs - sendMs) * MS, ChunkKind.CONTENT, 1).build())
        .endOffsetNanos((lastMs - sendMs + 5) * MS).build();
  }

  @Test
  void everyCounterRiseLandsOnTheRequestsWhoseWindowItOverlapsWithThePhase() {
    ServerEvents events = ServerEvents.of(SCRAPED);
    // Only the counter: +1 between 100 and 200 ms, +2 between 200 and 300 ms; the gauge's moves are not events.
    assertThat(events.events()).containsExactly(
        new ServerEvents.Event("vllm:num_preemptions_total", 100 * MS, 200 * MS, 1),
        new ServerEvents.Event("vllm:num_preemptions_total", 200 * MS, 300 * MS, 2));

    // Sent at 90, first token at 95, last at 290, ends at 295: (100, 200] lies inside its decode; (200, 300]
    // reaches past its last token: it spans phases.
    List<ServerEvents.Annotation> tail = events.annotate(request(0, 90, 95, 290));
    assertThat(tail).extracting(ServerEvents.Annotation::phase)
        .containsExactly(ServerEvents.Phase.DECODE, ServerEvents.Phase.SPANNING);
    assertThat(tail.get(0).toString())
        .isEqualTo("+1 vllm:num_preemptions_total during decode (between scrapes at 100.0 and 200.0 ms)");
    // Sent at 100, first token at 205: (100, 200] fell before its first token (queued or prefilling); (200, 300]
    // straddles its first token.
    assertThat(events.annotate(request(1, 100, 205, 250))).extracting(ServerEvents.Annotation::phase)
        .containsExactly(ServerEvents.Phase.BEFORE_FIRST_TOKEN, ServerEvents.Phase.SPANNING);
    // Done before 100 ms (ends at 65): no event overlaps it.
    assertThat(events.annotate(request(2, 10, 20, 60))).isEmpty();

    List<RequestRecord> tagged = events.tag(List.of(request(0, 90, 95, 290), request(2, 10, 20, 60)));
    assertThat(tagged.get(0).tags().get(ServerEvents.TAG)).startsWith("+1 vllm:num_preemptions_total during decode")
        .contains("; +2 vllm:num_preemptions_total spanning the request's phases");
    assertThat(tagged.get(1).tags()).doesNotContainKey(ServerEvents.TAG);
  }

  @Test
  void aCounterThatFallsWasResetAndItsNewValueIsTheRise() {
    ServerSeries reset = new ServerSeries("x_total", new long[] {0, 10 * MS, 20 * MS}, new double[] {5, 7, 2});
    assertThat(ServerEvents.of(List.of(reset)).events()).extracting(ServerEvents.Event::increase)
        .containsExactly(2.0, 2.0);
  }
}
