package io.infermark.perturbation;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import java.util.Map;
import java.util.Optional;

/** Hand-made request records for tests. */
public final class TestRecords {

  private TestRecords() {}

  /** A successful record: first token at {@code ttftMs}, then {@code tokens - 1} more, the last at {@code e2eMs}. */
  public static RequestRecord ok(long index, Map<String, String> tags, String text, double ttftMs, double e2eMs,
      int tokens) {
    ChunkTimeline.Builder chunks = ChunkTimeline.builder();
    long first = Math.round(ttftMs * 1e6);
    long last = Math.round(e2eMs * 1e6);
    for (int i = 0; i < tokens; i++) {
      long t = tokens == 1 ? first : first + (last - first) * i / (tokens - 1);
      chunks.add(t, ChunkKind.CONTENT, 1);
    }
    return RequestRecord.builder().index(index).requestId("req-" + index).tags(tags).chunks(chunks.build())
        .endOffsetNanos(last).httpStatus(200).text(Optional.of(text)).build();
  }

  /** A failed record (HTTP 500). */
  public static RequestRecord failed(long index, Map<String, String> tags) {
    return RequestRecord.builder().index(index).requestId("req-" + index).tags(tags).httpStatus(500)
        .failure(Optional.of(Failure.of(ErrorCategory.HTTP_STATUS, "boom"))).build();
  }
}
