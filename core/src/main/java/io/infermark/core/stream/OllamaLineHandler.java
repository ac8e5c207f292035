package io.infermark.core.stream;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.Usage;
import java.util.Arrays;

/**
 * The {@link StreamDialect#OLLAMA_NDJSON} decoder for Ollama's native {@code /api/generate} and
 * {@code /api/chat} streams: one JSON object per line.
 *
 * <p>A line is {@link ChunkKind#CONTENT} when {@code response} or {@code message.content} is
 * non-empty, else {@link ChunkKind#REASONING} for {@code thinking} or {@code message.thinking},
 * else {@link ChunkKind#TOOL_CALL} for {@code message.tool_calls} entries, else
 * {@link ChunkKind#EMPTY}. Ollama does not say how many tokens a line carries. The {@code done:true}
 * line (which may itself carry text) adds usage from {@code prompt_eval_count} and
 * {@code eval_count}, the server timings {@code total_duration}, {@code load_duration},
 * {@code prompt_eval_duration} and {@code eval_duration} (nanoseconds, under those names), the
 * {@code done_reason}, and completes the stream. An {@code {"error": ...}} line is a stream error;
 * EOF before {@code done:true} is a malformed stream.
 */
final class OllamaLineHandler implements StreamDecoder, NdjsonLines.LineHandler {

  private static final byte[] RESPONSE = SseDecoder.ascii("response");
  private static final byte[] THINKING = SseDecoder.ascii("thinking");
  private static final byte[] MESSAGE = SseDecoder.ascii("message");
  private static final byte[] CONTENT = SseDecoder.ascii("content");
  private static final byte[] TOOL_CALLS = SseDecoder.ascii("tool_calls");
  private static final byte[] FUNCTION = SseDecoder.ascii("function");
  private static final byte[] INDEX = SseDecoder.ascii("index");
  private static final byte[] ID = SseDecoder.ascii("id");
  private static final byte[] NAME = SseDecoder.ascii("name");
  private static final byte[] ARGUMENTS = SseDecoder.ascii("arguments");
  private static final byte[] DONE = SseDecoder.ascii("done");
  private static final byte[] DONE_REASON = SseDecoder.ascii("done_reason");
  private static final byte[] PROMPT_EVAL_COUNT = SseDecoder.ascii("prompt_eval_count");
  private static final byte[] EVAL_COUNT = SseDecoder.ascii("eval_count");
  private static final byte[] ERROR = SseDecoder.ascii("error");
  private static final String[] DURATIONS = {
      "total_duration", "load_duration", "prompt_eval_duration", "eval_duration"};
  private static final byte[][] DURATION_KEYS = {
      SseDecoder.ascii(DURATIONS[0]), SseDecoder.ascii(DURATIONS[1]),
      SseDecoder.ascii(DURATIONS[2]), SseDecoder.ascii(DURATIONS[3])};

  private final StreamReporter out;
  private final JsonScanner json = new JsonScanner();
  private final NdjsonLines lines;
  private final TextSpans spans;
  private final double[] durations = new double[DURATIONS.length];

  // What the current line carried.
  private boolean content;
  private boolean thinking;
  private boolean toolCall;
  private boolean done;
  private boolean error;
  private String doneReason;
  private int promptEvalCount;
  private int evalCount;

  OllamaLineHandler(StreamObserver observer, StreamLimits limits) {
    this.lines = new NdjsonLines(this, limits.maxLineBytes());
    this.out = new StreamReporter(observer);
    this.spans = new TextSpans(out.wantsText);
  }

  @Override
  public boolean finished() {
    return out.finished();
  }

  @Override
  public void feed(byte[] bytes, int offset, int length, long nanoTime) {
    if (!out.finished()) {
      lines.feed(bytes, offset, length, nanoTime);
    }
  }

  @Override
  public void end(long nanoTime) {
    if (!out.finished()) {
      lines.end(nanoTime);
      out.fail(ErrorCategory.MALFORMED_STREAM, "stream ended before the done:true line", nanoTime);
    }
  }

  @Override
  public void onLimitExceeded(String message, long nanoTime) {
    out.fail(ErrorCategory.MALFORMED_STREAM, message, nanoTime);
  }

  @Override
  public void onLine(byte[] line, int start, int end, long nanoTime) {
    if (out.finished()) {
      return;
    }
    try {
      handle(line, start, end, nanoTime);
    } catch (JsonScanner.MalformedJsonException e) {
      out.fail(ErrorCategory.MALFORMED_STREAM, "invalid JSON line: " + e.getMessage(), nanoTime);
    }
  }

  private void handle(byte[] line, int start, int end, long nanoTime) {
    resetLine();
    json.reset(line, start, end - start);
    readLine();
    json.endDocument();
    if (error) {
      out.streamError(line, start, end, nanoTime);
      return;
    }
    ChunkKind kind = content ? ChunkKind.CONTENT
        : thinking ? ChunkKind.REASONING
        : toolCall ? ChunkKind.TOOL_CALL
        : ChunkKind.EMPTY;
    out.chunk(nanoTime, kind, ChunkTimeline.UNKNOWN_TOKENS);
    StreamObserver o = out.observer;
    if (out.wantsText) {
      spans.emit(line, o);
    }
    if (!done) {
      return;
    }
    out.usage(Usage.ofKnownCounts(promptEvalCount, evalCount, -1, -1, -1));
    out.finishReason(doneReason);
    for (int i = 0; i < DURATIONS.length; i++) {
      if (!Double.isNaN(durations[i])) {
        o.onServerTiming(DURATIONS[i], durations[i]);
      }
    }
    out.complete(nanoTime);
  }

  private void resetLine() {
    content = thinking = toolCall = done = error = false;
    doneReason = null;
    promptEvalCount = evalCount = -1;
    Arrays.fill(durations, Double.NaN);
    spans.clear();
  }

  private void readLine() {
    json.beginObject();
    while (json.nextField()) {
      if (json.fieldIs(RESPONSE)) {
        content |= spans.readText(ChunkKind.CONTENT, json);
      } else if (json.fieldIs(THINKING)) {
        thinking |= spans.readText(ChunkKind.REASONING, json);
      } else if (json.fieldIs(MESSAGE)) {
        readMessage();
      } else if (json.fieldIs(DONE)) {
        byte t = json.peek();
        if (t == JsonScanner.TRUE || t == JsonScanner.FALSE) {
          done = json.readBoolean();
        } else {
          json.skipValue();
        }
      } else if (json.fieldIs(DONE_REASON)) {
        if (json.readNonEmptyString()) {
          doneReason = FinishReasons.of(json);
        }
      } else if (json.fieldIs(PROMPT_EVAL_COUNT)) {
        promptEvalCount = OpenAiUsageReader.readCount(json);
      } else if (json.fieldIs(EVAL_COUNT)) {
        evalCount = OpenAiUsageReader.readCount(json);
      } else if (json.fieldIs(ERROR)) {
        error |= json.readNonNull();
      } else if (!readDuration()) {
        json.skipValue();
      }
    }
  }

  private boolean readDuration() {
    for (int i = 0; i < DURATION_KEYS.length; i++) {
      if (json.fieldIs(DURATION_KEYS[i])) {
        if (json.peek() == JsonScanner.NUMBER) {
          durations[i] = json.readDouble();
        } else {
          json.skipValue();
        }
        return true;
      }
    }
    return false;
  }

  private void readMessage() {
    if (!json.enterObject()) {
      return;
    }
    while (json.nextField()) {
      if (json.fieldIs(CONTENT)) {
        content |= spans.readText(ChunkKind.CONTENT, json);
      } else if (json.fieldIs(THINKING)) {
        thinking |= spans.readText(ChunkKind.REASONING, json);
      } else if (json.fieldIs(TOOL_CALLS)) {
        readToolCalls();
      } else {
        json.skipValue();
      }
    }
  }

  private void readToolCalls() {
    if (!json.enterArray()) {
      return;
    }
    int position = 0;
    while (json.nextElement()) {
      toolCall = true;
      readToolCall(position++);
    }
  }

  /**
   * Ollama sends whole calls: {@code {"id"?, "function": {"index"?, "name", "arguments": {...}}}},
   * the index inside the function (unlike OpenAI's fragments), and any arguments value that is not
   * a string reported as its JSON text. Without text capture only the call's presence matters (it
   * makes the line a tool call), so it is skipped unread.
   */
  private void readToolCall(int position) {
    if (!out.wantsText || json.peek() != JsonScanner.OBJECT) {
      json.skipValue();
      return;
    }
    int slot = spans.addTool(position);
    json.beginObject();
    while (json.nextField()) {
      if (json.fieldIs(ID)) {
        if (json.readStringIfPresent()) {
          spans.setToolId(slot, json);
        }
      } else if (json.fieldIs(FUNCTION)) {
        readFunction(slot);
      } else {
        json.skipValue();
      }
    }
  }

  private void readFunction(int slot) {
    if (!json.enterObject()) {
      return;
    }
    while (json.nextField()) {
      if (json.fieldIs(INDEX) && json.peek() == JsonScanner.NUMBER) {
        spans.setToolIndex(slot, (int) json.readLong());
      } else if (json.fieldIs(NAME)) {
        if (json.readStringIfPresent()) {
          spans.setToolName(slot, json);
        }
      } else if (json.fieldIs(ARGUMENTS)) {
        if (json.peek() == JsonScanner.STRING) {
          json.readString();
          spans.setToolArguments(slot, json);
        } else {
          int start = json.position();
          json.skipValue();
          spans.setToolArgumentsRaw(slot, start, json.position());
        }
      } else {
        json.skipValue();
      }
    }
  }
}
