package io.infermark.core.stream;

import io.infermark.core.capture.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reports the numeric fields of a server's timing object (llama.cpp {@code timings}) as
 * {@link StreamObserver#onServerTiming} calls named {@code prefix + key}.
 *
 * <p>The object is {@link #note noted} while its payload is scanned and
 * {@link #reportNoted reported} after the payload's chunk, since timings must follow
 * {@link StreamObserver#onChunk} and the chunk is known only once the whole payload is read.
 *
 * <p>Names are built once per key and reused, because servers started with
 * {@code timings_per_token} attach the object to every chunk.
 */
final class ServerTimings {

  /** Bounds the cache for servers that invent keys; no real timing object has this many. */
  private static final int MAX_CACHED = 64;

  private final String prefix;
  private byte[][] keys = new byte[8][];
  private String[] names = new String[8];
  private int size;
  /** Where the noted object lies in the payload; -1 when the payload had none. */
  private int notedStart = -1;
  private int notedEnd;

  ServerTimings(String prefix) {
    this.prefix = prefix;
  }

  /** Forgets the object noted in the previous payload. */
  void clear() {
    notedStart = -1;
  }

  /**
   * Skips the value at the scanner's position, noting where it lies when it is an object; any
   * other value ({@code null} included) leaves the note as it was.
   */
  void note(JsonScanner json) {
    if (json.peek() != JsonScanner.OBJECT) {
      json.skipValue();
      return;
    }
    notedStart = json.position();
    json.skipValue();
    notedEnd = json.position();
  }

  /**
   * Reports the noted object, if any, from {@code data}, the buffer of the payload it was noted
   * in; {@code json} is repointed at it.
   */
  void reportNoted(byte[] data, JsonScanner json, StreamObserver observer) {
    if (notedStart >= 0) {
      json.reset(data, notedStart, notedEnd - notedStart);
      report(json, observer);
    }
  }

  /**
   * Reads the object at the scanner's position and reports each numeric field; other values are
   * skipped. A {@code null} instead of an object reports nothing.
   */
  private void report(JsonScanner json, StreamObserver observer) {
    if (!json.enterObject()) {
      return;
    }
    while (json.nextField()) {
      if (json.peek() == JsonScanner.NUMBER) {
        String name = nameOfCurrentField(json);
        observer.onServerTiming(name, json.readDouble());
      } else {
        json.skipValue();
      }
    }
  }

  /** The reported name of the field whose key the scanner just read. */
  String nameOfCurrentField(JsonScanner json) {
    for (int i = 0; i < size; i++) {
      if (json.fieldIs(keys[i])) {
        return names[i];
      }
    }
    String key = json.keyValue();
    if (size == MAX_CACHED) {
      return prefix + key;
    }
    if (size == keys.length) {
      keys = Arrays.copyOf(keys, size * 2);
      names = Arrays.copyOf(names, size * 2);
    }
    keys[size] = key.getBytes(StandardCharsets.UTF_8);
    names[size] = prefix + key;
    return names[size++];
  }
}
