package io.infermark.core.stream;

import static io.infermark.core.stream.Feeding.fixture;
import static io.infermark.core.stream.Feeding.randomEnds;
import static io.infermark.core.stream.Feeding.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class SseDecoderTest {

  record Dispatched(String type, String data, String lastEventId, long nanoTime) {
    /** Without the time, for comparing splits. */
    String untimed() {
      return type + "|" + data + "|" + lastEventId;
    }
  }

  private static final class Recorder implements SseDecoder.Listener {
    final List<Dispatched> events = new ArrayList<>();
    final List<String> errorFields = new ArrayList<>();
    /** Every blank-line-terminated event in order, dispatched or data-less, as "type data". */
    final List<String> blocks = new ArrayList<>();

    @Override
    public void onDatalessEvent(String type, long nanoTime) {
      blocks.add(type + " (no data)");
    }

    @Override
    public void onEvent(SseDecoder.Event event, long nanoTime) {
      events.add(new Dispatched(event.type(), event.data(), event.lastEventId(), nanoTime));
      blocks.add(event.type() + " " + event.data());
    }

    @Override
    public void onErrorField(String value, long nanoTime) {
      errorFields.add(value + " @" + nanoTime);
    }
  }

  /** Decodes pieces ending at {@code ends}; each feed's time is its end offset. */
  private static Recorder decode(byte[] body, int[] ends) {
    Recorder recorder = new Recorder();
    SseDecoder sse = new SseDecoder(recorder);
    int from = 0;
    for (int end : ends) {
      sse.feed(body, from, end - from, end);
      from = end;
    }
    sse.end();
    return recorder;
  }

  /** Decodes whole, byte by byte and in random pieces; asserts they agree; returns the bytewise run. */
  private static Recorder decodeAllSplits(byte[] body) {
    int[] bytewiseEnds = new int[body.length];
    for (int i = 0; i < body.length; i++) {
      bytewiseEnds[i] = i + 1;
    }
    Recorder bytewise = decode(body, bytewiseEnds);
    List<String> expected = bytewise.events.stream().map(Dispatched::untimed).toList();
    assertThat(decode(body, new int[] {body.length}).events.stream().map(Dispatched::untimed)).isEqualTo(expected);
    for (long seed = 0; seed < 20; seed++) {
      assertThat(decode(body, randomEnds(body.length, seed)).events.stream().map(Dispatched::untimed))
          .as("seed %d", seed).isEqualTo(expected);
    }
    return bytewise;
  }

  private static List<String> data(Recorder r) {
    return r.events.stream().map(Dispatched::data).toList();
  }

  @Test
  void openAiPythonVectorsDecodePerSpecIncludingSplitMultiByteCharacters() {
    Recorder r = decodeAllSplits(fixture("sse-edge-decoder-vectors.txt"));
    // openai-python's own decoder also emits the data-less "ping" event; the WHATWG rules do not.
    assertThat(r.events).extracting(Dispatched::type)
        .containsExactly("completion", "ping", "message", "message", "message", "message");
    assertThat(data(r)).containsExactly(
        "{\"foo\":true}",
        "{\n\"foo\":\n\n\ntrue}",
        "{\"content\":\" culpa\"}",
        "{\"content\":\" \u2028\"}",
        "{\"content\":\"foo\"}",
        "{\"content\":\"известни\"}");
    // The fixture README's seven events are these six plus the data-less ping, in this order.
    assertThat(r.blocks).containsExactly(
        "completion {\"foo\":true}",
        "ping (no data)",
        "ping {\n\"foo\":\n\n\ntrue}",
        "message {\"content\":\" culpa\"}",
        "message {\"content\":\" \u2028\"}",
        "message {\"content\":\"foo\"}",
        "message {\"content\":\"известни\"}");
  }

  @Test
  void eventWithNoDataDispatchesNothingAndResetsTheEventType() {
    Recorder r = decodeAllSplits(utf8("event: ping\n\ndata: x\n\n"));
    assertThat(r.events).extracting(Dispatched::type, Dispatched::data)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("message", "x"));
  }

  @Test
  void loneCarriageReturnsEndLines() {
    Recorder r = decodeAllSplits(utf8("data: a\rdata: b\r\revent: e\rdata: c\r\r"));
    assertThat(data(r)).containsExactly("a\nb", "c");
    assertThat(r.events.get(1).type()).isEqualTo("e");
  }

  @Test
  void crlfSplitAcrossFeedsIsOneLineEnding() {
    byte[] body = utf8("data: a\r\ndata: b\r\n\r\n");
    int cr = 7;
    Recorder r = decode(body, new int[] {cr + 1, body.length});
    assertThat(data(r)).containsExactly("a\nb");
    // CRLF split again, then the blank line dispatches on its CR, before its LF is read
    Recorder r2 = decode(body, new int[] {17, 19, body.length});
    assertThat(data(r2)).containsExactly("a\nb");
    assertThat(r2.events.get(0).nanoTime()).isEqualTo(19);
  }

  @Test
  void mixedLineEndingsInOneStream() {
    Recorder r = decodeAllSplits(utf8("data: a\r\n\ndata: b\n\r\ndata: c\r\r\n"));
    assertThat(data(r)).containsExactly("a", "b", "c");
  }

  @Test
  void commentLinesProduceNothing() {
    Recorder r = decodeAllSplits(utf8(":\n: keep-alive\n\n:data: no\ndata: yes\n: between\n\n"));
    assertThat(data(r)).containsExactly("yes");
  }

  @Test
  void oneLeadingSpaceIsStrippedAndDataWithoutSpaceIsAccepted() {
    Recorder r = decodeAllSplits(utf8("data:x\n\ndata:  two\n\ndata: trailing  \n\n"));
    assertThat(data(r)).containsExactly("x", " two", "trailing  ");
  }

  @Test
  void lineWithoutColonIsAFieldWithAnEmptyValue() {
    Recorder r = decodeAllSplits(utf8("data\n\ndata\ndata\n\n"));
    assertThat(data(r)).containsExactly("", "\n");
  }

  @Test
  void multiLineDataIsJoinedWithLineFeeds() {
    Recorder r = decodeAllSplits(utf8("data: {\ndata:   \"a\": 1\ndata: }\n\n"));
    assertThat(data(r)).containsExactly("{\n  \"a\": 1\n}");
  }

  @Test
  void byteOrderMarkAtTheStartIsSkippedEvenWhenSplit() {
    byte[] body = utf8("\uFEFFdata: x\n\n");
    Recorder r = decodeAllSplits(body);
    assertThat(data(r)).containsExactly("x");
    assertThat(data(decode(body, new int[] {1, 2, 3, body.length}))).containsExactly("x");
  }

  @Test
  void onlyOneByteOrderMarkIsSkipped() {
    // The second BOM becomes part of the field name, so the field is unknown and ignored.
    Recorder r = decodeAllSplits(utf8("\uFEFF\uFEFFdata: x\n\ndata: y\n\n"));
    assertThat(data(r)).containsExactly("y");
  }

  @Test
  void bytesThatOnlyStartLikeAByteOrderMarkAreKept() {
    // Had the partial BOM been dropped, the field would read "data" and dispatch.
    byte[] oneByte = {(byte) 0xEF, 'd', 'a', 't', 'a', ':', 'x', '\n', '\n'};
    byte[] twoBytes = {(byte) 0xEF, (byte) 0xBB, 'd', 'a', 't', 'a', ':', 'x', '\n', '\n'};
    assertThat(decodeAllSplits(oneByte).events).isEmpty();
    assertThat(decodeAllSplits(twoBytes).events).isEmpty();
  }

  @Test
  void unicodeLineSeparatorsDoNotEndLines() {
    Recorder r = decodeAllSplits(utf8("data: a\u2028b\u2029c\u0085d\n\n"));
    assertThat(data(r)).containsExactly("a\u2028b\u2029c\u0085d");
  }

  @Test
  void veryLongLinesSurviveAnySplit() {
    char[] big = new char[1 << 19]; // half of StreamLimits.DEFAULT's line limit
    Arrays.fill(big, 'x');
    String payload = new String(big);
    byte[] body = utf8("data: " + payload + "\ndata: é" + payload + "\n\n");
    int[] ends = new int[body.length / 8192 + 1];
    for (int i = 0; i < ends.length; i++) {
      ends[i] = Math.min(body.length, (i + 1) * 8192);
    }
    Recorder r = decode(body, ends);
    assertThat(data(r)).containsExactly(payload + "\né" + payload);
    assertThat(data(decode(body, new int[] {body.length}))).containsExactly(payload + "\né" + payload);
  }

  @Test
  void lastEventIdPersistsAndIdsWithNulAreIgnored() {
    Recorder r = decodeAllSplits(utf8("id: 7\ndata: a\n\nid: x\u0000y\ndata: b\n\nid\ndata: c\n\n"));
    assertThat(r.events).extracting(Dispatched::lastEventId).containsExactly("7", "7", "");
  }

  @Test
  void retryAndUnknownFieldsAreIgnored() {
    Recorder r = decodeAllSplits(utf8("retry: 1000\nfoo: bar\nDATA: upper\ndata: x\n\n"));
    assertThat(data(r)).containsExactly("x");
  }

  @Test
  void unterminatedEventIsDiscardedAtEnd() {
    assertThat(decodeAllSplits(utf8("data: a\n")).events).isEmpty();
    assertThat(decodeAllSplits(utf8("data: a\n\ndata: b")).events).extracting(Dispatched::data).containsExactly("a");
  }

  @Test
  void eventTimeIsTheTimeOfTheReadThatCompletedIt() {
    byte[] body = utf8("data: a\n\ndata: b\n\n");
    Recorder r = decode(body, new int[] {8, 9, 12, body.length});
    assertThat(r.events).extracting(Dispatched::nanoTime).containsExactly(9L, (long) body.length);
  }

  @Test
  void nonStandardErrorFieldIsPassedOnWithoutDispatching() {
    Recorder r = decodeAllSplits(utf8("error: {\"message\":\"boom\"}\n\ndata: [DONE]\n\n"));
    assertThat(data(r)).containsExactly("[DONE]");
    assertThat(r.errorFields).hasSize(1);
    assertThat(r.errorFields.get(0)).startsWith("{\"message\":\"boom\"} @");
  }

  @Test
  void defaultListenerIgnoresTheErrorFieldLikeTheSpec() {
    List<String> seen = new ArrayList<>();
    SseDecoder sse = new SseDecoder((event, nanoTime) -> seen.add(event.data()));
    byte[] body = utf8("error: {}\n\ndata: ok\n\n");
    sse.feed(body, 0, body.length, 1);
    assertThat(seen).containsExactly("ok");
  }

  @Test
  void feedRejectsARangeOutsideTheBuffer() {
    SseDecoder sse = new SseDecoder((event, nanoTime) -> { });
    assertThatThrownBy(() -> sse.feed(new byte[4], 2, 3, 0)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> new SseDecoder(null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("listener");
  }
}
