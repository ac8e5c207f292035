package io.infermark.core.stream;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.Usage;

/**
 * The {@link StreamDialect#LLAMACPP_COMPLETION} decoder for llama.cpp's native {@code /completion}
 * stream.
 *
 * <p>An event with non-empty {@code content} is {@link ChunkKind#CONTENT}, otherwise
 * {@link ChunkKind#EMPTY} (llama.cpp holds back text that may be the start of a stop word, and
 * sends an empty partial for it). The token count is the length of the {@code tokens} array that
 * builds since January 2025 attach, and unknown without it. A {@code timings} object is reported
 * as {@code timings.<field>} server timings wherever it appears.
 *
 * <p>The {@code stop: true} event ends the stream: usage from {@code tokens_evaluated} (prompt)
 * and {@code tokens_predicted} (completion), the finish reason as llama.cpp's raw
 * {@code stop_type} ({@code eos}, {@code limit}, {@code word}, {@code none}; older builds' boolean
 * {@code stopped_eos}/{@code stopped_limit}/{@code stopped_word} map to the same words), then
 * completion. The raw value is kept because mapping it to OpenAI's vocabulary would lose the
 * difference between EOS and a stop word. There is no {@code [DONE]}; EOF before the stop event
 * is a malformed stream.
 */
final class LlamaCppCompletionHandler extends SseStreamDecoder {

  private static final byte[] CONTENT = SseDecoder.ascii("content");
  private static final byte[] TOKENS = SseDecoder.ascii("tokens");
  private static final byte[] STOP = SseDecoder.ascii("stop");
  private static final byte[] STOP_TYPE = SseDecoder.ascii("stop_type");
  private static final byte[] STOPPED_EOS = SseDecoder.ascii("stopped_eos");
  private static final byte[] STOPPED_LIMIT = SseDecoder.ascii("stopped_limit");
  private static final byte[] STOPPED_WORD = SseDecoder.ascii("stopped_word");
  private static final byte[] TOKENS_PREDICTED = SseDecoder.ascii("tokens_predicted");
  private static final byte[] TOKENS_EVALUATED = SseDecoder.ascii("tokens_evaluated");
  private static final byte[] TIMINGS = SseDecoder.ascii("timings");
  private static final byte[] ERROR = SseDecoder.ascii("error");

  private final ServerTimings timings = new ServerTimings("timings.");
  private final TextSpans spans = new TextSpans(out.wantsText);

  // What the current event carried.
  private boolean content;
  private int tokenCount;
  private boolean stop;
  private String stopType;
  private String legacyStopType;
  private int predicted;
  private int evaluated;

  LlamaCppCompletionHandler(StreamObserver observer, StreamLimits limits) {
    super(observer, limits);
  }

  @Override
  void onData(SseDecoder.Event event, byte[] data, int start, int end, long nanoTime) {
    content = stop = false;
    tokenCount = ChunkTimeline.UNKNOWN_TOKENS;
    stopType = legacyStopType = null;
    predicted = evaluated = -1;
    spans.clear();
    timings.clear();
    if (!scanPayload(data, start, end, nanoTime)) {
      return;
    }
    out.chunk(nanoTime, content ? ChunkKind.CONTENT : ChunkKind.EMPTY, tokenCount);
    StreamObserver o = out.observer;
    if (out.wantsText) {
      spans.emit(data, o);
    }
    if (stop) {
      out.usage(Usage.ofKnownCounts(evaluated, predicted, -1, -1, -1));
      out.finishReason(stopType != null ? stopType : legacyStopType);
    }
    timings.reportNoted(data, json, o);
    if (stop) {
      out.complete(nanoTime);
    }
  }

  @Override
  void onEof(long nanoTime) {
    out.fail(ErrorCategory.MALFORMED_STREAM, "stream ended before the stop:true event", nanoTime);
  }

  @Override
  void readPayload() {
    json.beginObject();
    while (json.nextField()) {
      if (json.fieldIs(CONTENT)) {
        content |= spans.readText(ChunkKind.CONTENT, json);
      } else if (json.fieldIs(TOKENS)) {
        tokenCount = countElements();
      } else if (json.fieldIs(STOP)) {
        stop = readFlag();
      } else if (json.fieldIs(STOP_TYPE)) {
        if (json.readNonEmptyString()) {
          stopType = FinishReasons.of(json);
        }
      } else if (json.fieldIs(STOPPED_EOS)) {
        legacy("eos");
      } else if (json.fieldIs(STOPPED_LIMIT)) {
        legacy("limit");
      } else if (json.fieldIs(STOPPED_WORD)) {
        legacy("word");
      } else if (json.fieldIs(TOKENS_PREDICTED)) {
        predicted = OpenAiUsageReader.readCount(json);
      } else if (json.fieldIs(TOKENS_EVALUATED)) {
        evaluated = OpenAiUsageReader.readCount(json);
      } else if (json.fieldIs(TIMINGS)) {
        timings.note(json);
      } else if (json.fieldIs(ERROR)) {
        error |= json.readNonNull();
      } else {
        json.skipValue();
      }
    }
  }

  private void legacy(String reason) {
    if (readFlag()) {
      legacyStopType = reason;
    }
  }

  /** A boolean, or llama.cpp's integer 0/1 flags; anything else is false. */
  private boolean readFlag() {
    byte t = json.peek();
    if (t == JsonScanner.TRUE || t == JsonScanner.FALSE) {
      return json.readBoolean();
    }
    if (t == JsonScanner.NUMBER) {
      return json.readLong() != 0;
    }
    json.skipValue();
    return false;
  }

  private int countElements() {
    if (!json.enterArray()) {
      return ChunkTimeline.UNKNOWN_TOKENS;
    }
    int n = 0;
    while (json.nextElement()) {
      json.skipValue();
      n++;
    }
    return n;
  }
}
