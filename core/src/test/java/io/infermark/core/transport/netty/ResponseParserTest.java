package io.infermark.core.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The in-place HTTP/1.1 response parser: framing, interim responses, limits, and any split of the bytes. */
class ResponseParserTest {

  /** Records what the parser reports, as text. */
  private static final class Recorder implements ResponseParser.Listener {
    final List<String> events = new ArrayList<>();
    final ByteArrayOutputStream body = new ByteArrayOutputStream();
    ResponseParser.Head head;
    int framing = ResponseParser.BODY;

    @Override
    public int onHead(ResponseParser.Head h) {
      head = h;
      events.add("head " + h.status);
      return framing;
    }

    @Override
    public boolean onBody(byte[] bytes, int offset, int length) {
      body.write(bytes, offset, length);
      return true;
    }

    @Override
    public boolean onEnd(boolean keepAlive) {
      events.add("end " + (keepAlive ? "keep-alive" : "close") + " " + body.toString(StandardCharsets.ISO_8859_1));
      body.reset();
      return true;
    }
  }

  private static Recorder parse(String response) {
    Recorder r = new Recorder();
    byte[] b = response.getBytes(StandardCharsets.ISO_8859_1);
    new ResponseParser().feed(b, 0, b.length, r);
    return r;
  }

  @Test
  void chunkedBodyIsDeChunkedAndEndsAtTheLastChunk() {
    Recorder r = parse("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "6\r\ndata: \r\n3;ext=1\r\nabc\r\n0\r\nX-Trailer: t\r\n\r\n");
    assertThat(r.events).containsExactly("head 200", "end keep-alive data: abc");
    assertThat(r.head.get("content-type")).isEqualTo("text/event-stream");
    assertThat(r.head.get("X-Missing")).isNull();
  }

  @Test
  void contentLengthBodyEndsAfterItsLength() {
    Recorder r = parse("HTTP/1.1 404 Not Found\r\nContent-Length: 5\r\n\r\nhello");
    assertThat(r.events).containsExactly("head 404", "end keep-alive hello");
  }

  @Test
  void aBodyWithoutLengthRunsUntilTheConnectionCloses() {
    Recorder r = new Recorder();
    ResponseParser p = new ResponseParser();
    byte[] b = "HTTP/1.1 200 OK\r\n\r\npart one, ".getBytes(StandardCharsets.ISO_8859_1);
    p.feed(b, 0, b.length, r);
    byte[] more = "part two".getBytes(StandardCharsets.ISO_8859_1);
    p.feed(more, 0, more.length, r);
    assertThat(r.events).containsExactly("head 200");
    assertThat(p.inputClosed(r)).isTrue();
    assertThat(r.events).containsExactly("head 200", "end close part one, part two");
  }

  @Test
  void aCloseMidBodyIsMalformed() {
    Recorder r = new Recorder();
    ResponseParser p = new ResponseParser();
    byte[] b = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc".getBytes(StandardCharsets.ISO_8859_1);
    p.feed(b, 0, b.length, r);
    assertThatThrownBy(() -> p.inputClosed(r)).isInstanceOf(ResponseParser.Malformed.class)
        .hasMessageContaining("closed before the response ended");
  }

  @Test
  void aCloseBetweenResponsesIsNothing() {
    Recorder r = parse("HTTP/1.1 204 No Content\r\n\r\n");
    assertThat(r.events).containsExactly("head 204", "end keep-alive ");
    ResponseParser fresh = new ResponseParser();
    assertThat(fresh.inputClosed(r)).isFalse();
  }

  @Test
  void interimResponsesAreSkipped() {
    Recorder r = parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
        + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
    assertThat(r.events).containsExactly("head 200", "end keep-alive ok");
    assertThat(r.head.get("link")).isNull();
  }

  @Test
  void connectionCloseAndHttp10DecideReuse() {
    assertThat(parse("HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 0\r\n\r\n").events)
        .containsExactly("head 200", "end close ");
    assertThat(parse("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").events).containsExactly("head 200", "end close ");
    assertThat(parse("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n").events)
        .containsExactly("head 200", "end keep-alive ");
  }

  @Test
  void aHeadResponseHasNoBodyWhateverItsHeadersSay() {
    Recorder r = new Recorder();
    r.framing = ResponseParser.NO_BODY;
    byte[] b = "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
    new ResponseParser().feed(b, 0, b.length, r);
    assertThat(r.events).containsExactly("head 200", "end keep-alive ");
  }

  @Test
  void transferEncodingOtherThanChunkedRunsUntilClose() {
    Recorder r = parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 3\r\n\r\nabcdef");
    assertThat(r.events).containsExactly("head 200");
    assertThat(r.body.toString(StandardCharsets.ISO_8859_1)).isEqualTo("abcdef");
  }

  @Test
  void foldedHeaderLinesContinueTheirValue() {
    Recorder r = parse("HTTP/1.1 200 OK\r\nX-Long: one\r\n  two\r\nContent-Length: 0\r\n\r\n");
    assertThat(r.head.get("x-long")).isEqualTo("one two");
  }

  @Test
  void bareLineFeedsAreAccepted() {
    Recorder r = parse("HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n2\nhi\n0\n\n");
    assertThat(r.events).containsExactly("head 200", "end keep-alive hi");
  }

  @Test
  void headersAreTheirResponsesOwnAfterTheNextResponseIsParsed() {
    Recorder r = new Recorder();
    ResponseParser p = new ResponseParser();
    byte[] b = ("HTTP/1.1 200 OK\r\nX-A: first\r\nContent-Length: 0\r\n\r\n"
        + "HTTP/1.1 200 OK\r\nX-A: second\r\nContent-Length: 0\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1);
    List<ResponseParser.Head> heads = new ArrayList<>();
    p.feed(b, 0, b.length, new ResponseParser.Listener() {
      @Override
      public int onHead(ResponseParser.Head head) {
        heads.add(head);
        return ResponseParser.BODY;
      }

      @Override
      public boolean onBody(byte[] bytes, int offset, int length) {
        return true;
      }

      @Override
      public boolean onEnd(boolean keepAlive) {
        return r.onEnd(keepAlive);
      }
    });
    assertThat(heads).extracting(h -> h.get("x-a")).containsExactly("first", "second");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "HTTP/2 200 OK\r\n\r\n",
      "HTTP/1.1 20 OK\r\n\r\n",
      "HTTP/1.1 200OK\r\n\r\n",
      "ICY 200 OK\r\n\r\n",
      "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
      "HTTP/1.1 200 OK\r\n: no name\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 12x\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffffffffffff\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n"})
  void brokenFramingIsMalformed(String response) {
    assertThatThrownBy(() -> parse(response)).isInstanceOf(ResponseParser.Malformed.class);
  }

  @Test
  void anEndlessHeaderLineStopsAtTheLineLimit() {
    Recorder r = new Recorder();
    ResponseParser p = new ResponseParser();
    byte[] start = "HTTP/1.1 200 OK\r\nX-Endless: ".getBytes(StandardCharsets.ISO_8859_1);
    p.feed(start, 0, start.length, r);
    byte[] more = new byte[1024];
    java.util.Arrays.fill(more, (byte) 'a');
    assertThatThrownBy(() -> {
      for (int i = 0; i < 100; i++) {
        p.feed(more, 0, more.length, r);
      }
    }).isInstanceOf(ResponseParser.Malformed.class).hasMessage("header line exceeds 8192 bytes");
  }

  @Test
  void endlessHeadersStopAtTheHeadLimit() {
    StringBuilder s = new StringBuilder("HTTP/1.1 200 OK\r\n");
    for (int i = 0; i < 200; i++) {
      s.append("X-").append(i).append(": ").append("v".repeat(400)).append("\r\n");
    }
    assertThatThrownBy(() -> parse(s.toString())).isInstanceOf(ResponseParser.Malformed.class)
        .hasMessage("response headers exceed 65536 bytes");
  }

  @Test
  void anErrorMessageEscapesControlCharacters() {
    assertThatThrownBy(() -> parse("HTTP/1.1 2\u000100 OK\r\n\r\n")).hasMessageContaining("\\x01");
  }

  @Test
  void afterAFailureEverythingIsIgnored() {
    Recorder r = new Recorder();
    ResponseParser p = new ResponseParser();
    byte[] bad = "NOT HTTP AT ALL\r\n".getBytes(StandardCharsets.ISO_8859_1);
    assertThatThrownBy(() -> p.feed(bad, 0, bad.length, r)).isInstanceOf(ResponseParser.Malformed.class);
    byte[] good = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
    p.feed(good, 0, good.length, r);
    assertThat(r.events).isEmpty();
  }

  /** Two keep-alive responses, one chunked and one with a length, parse the same whatever the read boundaries. */
  @Test
  void everySplitOfTheBytesParsesTheSame() {
    String two = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-A: 1\r\n\r\n"
        + "5\r\nhello\r\n1\r\n,\r\n6\r\nworld!\r\n0\r\n\r\n"
        + "HTTP/1.1 500 Oops\r\nContent-Length: 4\r\n\r\nfail";
    List<String> expected = parse(two).events;
    assertThat(expected).containsExactly("head 200", "end keep-alive hello,world!", "head 500", "end keep-alive fail");
    byte[] b = two.getBytes(StandardCharsets.ISO_8859_1);
    SplittableRandom random = new SplittableRandom(7);
    for (int trial = 0; trial < 500; trial++) {
      Recorder r = new Recorder();
      ResponseParser p = new ResponseParser();
      int i = 0;
      while (i < b.length) {
        int n = trial == 0 ? 1 : 1 + random.nextInt(Math.min(40, b.length - i));
        n = Math.min(n, b.length - i);
        byte[] piece = new byte[n + 4];
        System.arraycopy(b, i, piece, 2, n); // at an offset, as a scratch array would hold it
        p.feed(piece, 2, n, r);
        i += n;
      }
      assertThat(r.events).as("trial %d", trial).isEqualTo(expected);
      assertThat(p.idle()).isTrue();
    }
  }
}
