package io.infermark.core.stream;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.Usage;

/**
 * The {@link StreamDialect#TGI_GENERATE} decoder for TGI's native {@code /generate_stream}: one
 * SSE event per generated token, so every chunk carries exactly one token.
 *
 * <p>A token with non-empty text is {@link ChunkKind#CONTENT}. A special token (EOS and the like)
 * is {@link ChunkKind#EMPTY} with one token: it was generated and counts in
 * {@code generated_tokens}, but TGI leaves it out of {@code generated_text}, so it is not visible
 * output and must not move the last-token time (other servers send no text chunk for EOS either).
 * A non-special token with empty text (a partial UTF-8 sequence) is likewise {@link ChunkKind#EMPTY}.
 *
 * <p>The event with a non-null {@code generated_text} is the last; its {@code details} (present
 * when the request asked for them) give usage ({@code input_length} prompt,
 * {@code generated_tokens} completion) and the finish reason. TGI sends no terminator, so the
 * stream completes at EOF once that event was seen, and is malformed otherwise. Validation and
 * overload errors arrive as {@code {"error": ..., "error_type": ...}} events.
 */
final class TgiGenerateHandler extends SseStreamDecoder {

  private static final byte[] TOKEN = SseDecoder.ascii("token");
  private static final byte[] TEXT = SseDecoder.ascii("text");
  private static final byte[] SPECIAL = SseDecoder.ascii("special");
  private static final byte[] GENERATED_TEXT = SseDecoder.ascii("generated_text");
  private static final byte[] DETAILS = SseDecoder.ascii("details");
  private static final byte[] FINISH_REASON = SseDecoder.ascii("finish_reason");
  private static final byte[] GENERATED_TOKENS = SseDecoder.ascii("generated_tokens");
  private static final byte[] INPUT_LENGTH = SseDecoder.ascii("input_length");
  private static final byte[] ERROR = SseDecoder.ascii("error");

  private final TextSpans spans = new TextSpans(out.wantsText);
  private boolean finalSeen;

  // What the current event carried.
  private boolean hasToken;
  private boolean special;
  private boolean hasText;
  private boolean isFinal;
  private String finishReason;
  private int generatedTokens;
  private int inputLength;

  TgiGenerateHandler(StreamObserver observer, StreamLimits limits) {
    super(observer, limits);
  }

  @Override
  void onData(SseDecoder.Event event, byte[] data, int start, int end, long nanoTime) {
    if (finalSeen) {
      return; // nothing follows the final event; EOF completes
    }
    hasToken = special = hasText = isFinal = false;
    spans.clear();
    finishReason = null;
    generatedTokens = inputLength = -1;
    if (!scanPayload(data, start, end, nanoTime)) {
      return;
    }
    boolean content = hasToken && hasText && !special;
    out.chunk(nanoTime, content ? ChunkKind.CONTENT : ChunkKind.EMPTY,
        hasToken ? 1 : ChunkTimeline.UNKNOWN_TOKENS);
    if (content && out.wantsText) {
      spans.emit(data, out.observer);
    }
    out.usage(Usage.ofKnownCounts(inputLength, generatedTokens, -1, -1, -1));
    out.finishReason(finishReason);
    finalSeen = isFinal;
  }

  @Override
  void onEof(long nanoTime) {
    if (finalSeen) {
      out.complete(nanoTime);
    } else {
      out.fail(ErrorCategory.MALFORMED_STREAM, "stream ended before the event with generated_text",
          nanoTime);
    }
  }

  @Override
  void readPayload() {
    json.beginObject();
    while (json.nextField()) {
      if (json.fieldIs(TOKEN)) {
        readToken();
      } else if (json.fieldIs(GENERATED_TEXT)) {
        isFinal |= json.readNonNull();
      } else if (json.fieldIs(DETAILS)) {
        readDetails();
      } else if (json.fieldIs(ERROR)) {
        error |= json.readNonNull();
      } else {
        json.skipValue();
      }
    }
  }

  private void readToken() {
    if (!json.enterObject()) {
      return;
    }
    hasToken = true;
    while (json.nextField()) {
      if (json.fieldIs(TEXT)) {
        hasText |= spans.readText(ChunkKind.CONTENT, json);
      } else if (json.fieldIs(SPECIAL) && (json.peek() == JsonScanner.TRUE || json.peek() == JsonScanner.FALSE)) {
        special = json.readBoolean();
      } else {
        json.skipValue();
      }
    }
  }

  private void readDetails() {
    if (!json.enterObject()) {
      return;
    }
    while (json.nextField()) {
      if (json.fieldIs(FINISH_REASON)) {
        if (json.readNonEmptyString()) {
          finishReason = FinishReasons.of(json);
        }
      } else if (json.fieldIs(GENERATED_TOKENS)) {
        generatedTokens = OpenAiUsageReader.readCount(json);
      } else if (json.fieldIs(INPUT_LENGTH)) {
        inputLength = OpenAiUsageReader.readCount(json);
      } else {
        json.skipValue();
      }
    }
  }
}
