package io.infermark.core.stream;

import static io.infermark.core.stream.Feeding.utf8;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The timing object a payload carries is noted while scanning and reported after its chunk. */
class ServerTimingsTest {

  private static final byte[] TIMINGS = SseDecoder.ascii("timings");

  /** Scans {@code {"timings": ..., ...}}, noting each timings value, then reports what was noted. */
  private static RecordingObserver scanAndReport(ServerTimings timings, String payload) {
    byte[] bytes = utf8(payload);
    JsonScanner json = new JsonScanner();
    json.reset(bytes, 0, bytes.length);
    timings.clear();
    json.beginObject();
    while (json.nextField()) {
      if (json.fieldIs(TIMINGS)) {
        timings.note(json);
      } else {
        json.skipValue();
      }
    }
    json.endDocument();
    RecordingObserver observer = new RecordingObserver(false);
    timings.reportNoted(bytes, json, observer);
    return observer;
  }

  @Test
  void reportsTheNumericFieldsOfTheNotedObjectUnderThePrefix() {
    ServerTimings timings = new ServerTimings("timings.");
    RecordingObserver r = scanAndReport(timings,
        "{\"a\":1,\"timings\":{\"prompt_ms\":1.5,\"name\":\"x\",\"n\":3,\"nested\":{\"m\":1}},\"b\":2}");
    assertThat(r.untimedCalls).containsExactly("timing timings.prompt_ms=1.5", "timing timings.n=3.0");
  }

  @Test
  void aPayloadWithoutAnObjectReportsNothingEvenAfterOneWithIt() {
    ServerTimings timings = new ServerTimings("timings.");
    assertThat(scanAndReport(timings, "{\"timings\":{\"t\":1}}").untimedCalls).containsExactly("timing timings.t=1.0");
    assertThat(scanAndReport(timings, "{\"timings\":null}").untimedCalls).isEmpty();
    assertThat(scanAndReport(timings, "{\"other\":{\"t\":1}}").untimedCalls).isEmpty();
  }

  @Test
  void aLaterNonObjectValueLeavesTheNoteOfAnEarlierObject() {
    ServerTimings timings = new ServerTimings("timings.");
    assertThat(scanAndReport(timings, "{\"timings\":{\"t\":2},\"timings\":null}").untimedCalls)
        .containsExactly("timing timings.t=2.0");
  }
}
