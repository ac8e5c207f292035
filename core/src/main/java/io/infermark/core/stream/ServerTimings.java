package io.infermark.core.stream;

import io.infermark.core.capture.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reports the numeric fields of a server's timing object (llama.cpp {@code timings}) as
 * {@link StreamObserver#onServerTiming} calls named {@code prefix + key}.
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

  ServerTimings(String prefix) {
    this.prefix = prefix;
  }

  /**
   * Reads the object at the scanner's position and reports each numeric field; other values are
   * skipped. A {@code null} instead of an object reports nothing.
   */
  void report(JsonScanner json, StreamObserver observer) {
    if (json.peek() != JsonScanner.OBJECT) {
      json.skipValue();
      return;
    }
    json.beginObject();
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
