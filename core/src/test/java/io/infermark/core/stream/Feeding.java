package io.infermark.core.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Feeds a body to a decoder whole, one byte at a time and in seeded random pieces, and checks that
 * the splits agree. Each feed's clock reading is the number of bytes fed so far, so a chunk's time
 * says which byte completed it; {@code end} comes at {@code length + 1}.
 */
final class Feeding {

  private static final long[] SEEDS = {1L, 42L, 20250301L};

  private Feeding() {}

  static byte[] fixture(String name) {
    try (InputStream in = Feeding.class.getResourceAsStream("/fixtures/" + name)) {
      if (in == null) {
        throw new IllegalArgumentException("no fixture " + name);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Feeds the body in one piece. */
  static RecordingObserver whole(StreamDialect dialect, byte[] body, boolean wantsText) {
    return run(dialect, body, wantsText, new int[] {body.length});
  }

  /** Feeds the body one byte per read. */
  static RecordingObserver byteByByte(StreamDialect dialect, byte[] body, boolean wantsText) {
    int[] ends = new int[body.length];
    for (int i = 0; i < body.length; i++) {
      ends[i] = i + 1;
    }
    return run(dialect, body, wantsText, ends);
  }

  /** Feeds the body in pieces of 0 to 40 bytes chosen by {@code seed}. */
  static RecordingObserver randomPieces(StreamDialect dialect, byte[] body, boolean wantsText, long seed) {
    return run(dialect, body, wantsText, randomEnds(body.length, seed));
  }

  static int[] randomEnds(int length, long seed) {
    Random random = new Random(seed);
    List<Integer> ends = new ArrayList<>();
    int at = 0;
    while (at < length) {
      at = Math.min(length, at + random.nextInt(41));
      ends.add(at);
    }
    return ends.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Feeds pieces ending at {@code ends} (exclusive, ascending, last = length), then ends the body. */
  static RecordingObserver run(StreamDialect dialect, byte[] body, boolean wantsText, int[] ends) {
    RecordingObserver observer = new RecordingObserver(wantsText);
    StreamDecoder decoder = dialect.newDecoder(observer);
    // Feed from a larger buffer at an offset so decoders cannot rely on offset 0 or array length.
    byte[] padded = new byte[body.length + 16];
    System.arraycopy(body, 0, padded, 7, body.length);
    int from = 0;
    for (int end : ends) {
      decoder.feed(padded, 7 + from, end - from, end);
      from = end;
    }
    decoder.end(body.length + 1L);
    return observer;
  }

  /**
   * Runs every split with and without text capture, asserts they agree, and returns the
   * byte-by-byte run with text capture (whose chunk times are the positions of completing bytes).
   */
  static RecordingObserver allSplits(StreamDialect dialect, byte[] body) {
    RecordingObserver bytewise = byteByByte(dialect, body, true);
    assertThat(bytewise.afterEnd).as("calls after the request ended").isEmpty();

    RecordingObserver whole = whole(dialect, body, true);
    assertThat(whole.untimedCalls).isEqualTo(bytewise.untimedCalls);
    assertThat(whole.chunkTimes()).allMatch(t -> t == body.length || t == body.length + 1);

    for (long seed : SEEDS) {
      int[] ends = randomEnds(body.length, seed);
      RecordingObserver random = run(dialect, body, true, ends);
      assertThat(random.untimedCalls).as("seed %d", seed).isEqualTo(bytewise.untimedCalls);
      List<Long> expected = new ArrayList<>();
      for (long byteTime : bytewise.chunkTimes()) {
        expected.add(endTime(ends, byteTime, body.length));
      }
      assertThat(random.chunkTimes()).as("chunk times, seed %d", seed).isEqualTo(expected);
      assertThat(random.completedAt()).isEqualTo(endTime(ends, bytewise.completedAt(), body.length));
      assertThat(random.failedAt()).isEqualTo(endTime(ends, bytewise.failedAt(), body.length));
    }

    RecordingObserver noText = byteByByte(dialect, body, false);
    assertThat(noText.texts).isEmpty();
    assertThat(noText.toolFragments).isEmpty();
    assertThat(withoutText(noText.calls)).isEqualTo(withoutText(bytewise.calls));
    return bytewise;
  }

  /** Where an outcome reported at {@code byteTime} byte-by-byte lands for other pieces. */
  private static long endTime(int[] ends, long byteTime, int length) {
    return byteTime <= 0 || byteTime > length ? byteTime : firstEndAtLeast(ends, byteTime);
  }

  private static int firstEndAtLeast(int[] ends, long position) {
    for (int end : ends) {
      if (end >= position) {
        return end;
      }
    }
    throw new AssertionError("no piece ends at or after " + position);
  }

  private static List<String> withoutText(List<String> calls) {
    List<String> kept = new ArrayList<>();
    for (String call : calls) {
      if (!call.startsWith("text ") && !call.startsWith("tool ")) {
        kept.add(call);
      }
    }
    return kept;
  }

  /** Exclusive end positions of the blank lines that dispatch SSE events in an LF-only body. */
  static List<Long> sseEventEnds(byte[] body) {
    List<Long> ends = new ArrayList<>();
    for (int i = 1; i < body.length; i++) {
      if (body[i] == '\n' && body[i - 1] == '\n') {
        ends.add((long) i + 1);
      }
    }
    return ends;
  }

  /** Number of events an SSE body dispatches. */
  static int sseEventCount(byte[] body) {
    int[] count = {0};
    SseDecoder sse = new SseDecoder((event, nanoTime) -> count[0]++);
    sse.feed(body, 0, body.length, 0);
    sse.end();
    return count[0];
  }
}
