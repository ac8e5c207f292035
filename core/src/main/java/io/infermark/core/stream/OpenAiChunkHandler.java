package io.infermark.core.stream;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.Usage;
import java.util.Arrays;

/**
 * The {@link StreamDialect#OPENAI} decoder: OpenAI-compatible {@code chat.completion.chunk} and
 * legacy {@code text_completion} events as sent by OpenAI, vLLM, SGLang, TGI, llama.cpp and Ollama.
 *
 * <p>Each data event is classified as one chunk. A chunk is {@link ChunkKind#CONTENT} when any
 * choice carries non-empty {@code delta.content}, {@code delta.refusal} or {@code text};
 * otherwise {@link ChunkKind#REASONING} for non-empty {@code delta.reasoning_content} or
 * {@code delta.reasoning}; otherwise {@link ChunkKind#TOOL_CALL} for any {@code delta.tool_calls}
 * entry; otherwise {@link ChunkKind#ROLE} when a delta names the role before any token-bearing
 * chunk; otherwise {@link ChunkKind#EMPTY}. Events without choices are {@link ChunkKind#USAGE}
 * when they carry usage, else {@link ChunkKind#EMPTY}.
 *
 * <p>Per-chunk token counts come from cumulative {@code usage.completion_tokens} (vLLM's
 * {@code continuous_usage_stats}) and are trusted only while every chunk carries it, so a single
 * final usage report (llama.cpp attaches one to its finish chunk) is not mistaken for that chunk's
 * tokens.
 *
 * <p>Usage on a chunk of one choice is that choice's usage (vLLM's continuous usage with
 * {@code n > 1}, TGI's legacy completions with several prompts, each prompt's last chunk carrying
 * its own usage): per-chunk tokens are the growth of that choice's own cumulative count, and the
 * usage reported is the sum over every choice seen. Usage on a chunk without choices (or with
 * several) is the server's total for the request and is reported as it is.
 *
 * <p>End of stream without {@code [DONE]} completes the request when a finish reason was seen,
 * because some servers omit the terminator; otherwise it is a malformed stream.
 */
final class OpenAiChunkHandler extends SseStreamDecoder {

  private static final byte[] DONE = SseDecoder.ascii("[DONE]");
  private static final byte[] ERROR_EVENT = SseDecoder.ascii("error");

  private static final byte[] CHOICES = SseDecoder.ascii("choices");
  private static final byte[] USAGE = SseDecoder.ascii("usage");
  private static final byte[] ERROR = SseDecoder.ascii("error");
  private static final byte[] TIMINGS = SseDecoder.ascii("timings");
  private static final byte[] DELTA = SseDecoder.ascii("delta");
  private static final byte[] TEXT = SseDecoder.ascii("text");
  private static final byte[] FINISH_REASON = SseDecoder.ascii("finish_reason");
  private static final byte[] CONTENT = SseDecoder.ascii("content");
  private static final byte[] REFUSAL = SseDecoder.ascii("refusal");
  private static final byte[] REASONING_CONTENT = SseDecoder.ascii("reasoning_content");
  private static final byte[] REASONING = SseDecoder.ascii("reasoning");
  private static final byte[] ROLE = SseDecoder.ascii("role");
  private static final byte[] TOOL_CALLS = SseDecoder.ascii("tool_calls");
  private static final byte[] INDEX = SseDecoder.ascii("index");
  /** Choice indexes past this are not tracked per choice; their usage counts as the request's. */
  private static final int MAX_TRACKED_CHOICES = 1024;
  private static final byte[] ID = SseDecoder.ascii("id");
  private static final byte[] FUNCTION = SseDecoder.ascii("function");
  private static final byte[] NAME = SseDecoder.ascii("name");
  private static final byte[] ARGUMENTS = SseDecoder.ascii("arguments");

  private final OpenAiUsageReader usageReader = new OpenAiUsageReader();
  private final ServerTimings timings = new ServerTimings("timings.");
  private final TextSpans spans = new TextSpans(out.wantsText);

  // Stream state.
  private boolean tokenSeen;
  private boolean finishSeen;
  /** Whether every chunk so far carried a completion count. */
  private boolean everyChunkCounted = true;
  /** Latest cumulative completion count per choice index; -1 until that choice reported one. */
  private int[] choiceCompletion = new int[0];
  /** Latest usage per choice index; null until that choice reported one. */
  private Usage[] choiceUsage = new Usage[0];
  /** Completion tokens of the whole request so far, as the counts seen add up. */
  private long streamCompletion;

  // What the current event carried.
  private boolean choicesNonEmpty;
  private boolean content;
  private boolean reasoning;
  private boolean toolCall;
  private boolean role;
  private Usage usage;
  private int usageCompletion;
  private String[] finishReasons = new String[2];
  private int finishCount;
  private int choiceCount;
  private int choiceIndex;

  OpenAiChunkHandler(StreamObserver observer, StreamLimits limits) {
    super(observer, limits);
  }

  @Override
  void onData(SseDecoder.Event event, byte[] data, int start, int end, long nanoTime) {
    if (event.typeIs(ERROR_EVENT)) {
      out.streamError(data, start, end, nanoTime);
      return;
    }
    if (end - start == DONE.length && Arrays.equals(data, start, end, DONE, 0, DONE.length)) {
      out.complete(nanoTime);
      return;
    }
    resetEvent();
    if (!scanPayload(data, start, end, nanoTime)) {
      return;
    }
    ChunkKind kind = classify();
    out.chunk(nanoTime, kind, tokensOfThisChunk());
    tokenSeen |= kind.isTokenBearing();
    StreamObserver o = out.observer;
    if (out.wantsText) {
      spans.emit(data, o);
    }
    out.usage(usageToReport());
    for (int i = 0; i < finishCount; i++) {
      o.onFinishReason(finishReasons[i]);
    }
    timings.reportNoted(data, json, o);
  }

  @Override
  void onEof(long nanoTime) {
    if (finishSeen) {
      out.complete(nanoTime);
    } else {
      out.fail(ErrorCategory.MALFORMED_STREAM, "stream ended before [DONE]", nanoTime);
    }
  }

  private void resetEvent() {
    choicesNonEmpty = content = reasoning = toolCall = role = false;
    usage = Usage.NONE;
    usageCompletion = -1;
    finishCount = 0;
    choiceCount = 0;
    choiceIndex = 0;
    spans.clear();
    timings.clear();
  }

  private ChunkKind classify() {
    if (!choicesNonEmpty) {
      return usage.isEmpty() ? ChunkKind.EMPTY : ChunkKind.USAGE;
    }
    if (content) {
      return ChunkKind.CONTENT;
    }
    if (reasoning) {
      return ChunkKind.REASONING;
    }
    if (toolCall) {
      return ChunkKind.TOOL_CALL;
    }
    return role && !tokenSeen ? ChunkKind.ROLE : ChunkKind.EMPTY;
  }

  /** True when this event's usage is one choice's: it has exactly one choice with a tracked index. */
  private boolean perChoice() {
    return choiceCount == 1 && choiceIndex >= 0 && choiceIndex < MAX_TRACKED_CHOICES;
  }

  private int tokensOfThisChunk() {
    everyChunkCounted &= usageCompletion >= 0;
    int tokens = ChunkTimeline.UNKNOWN_TOKENS;
    if (usageCompletion >= 0) {
      long increase;
      if (perChoice()) {
        ensureChoice(choiceIndex);
        increase = usageCompletion - (long) Math.max(choiceCompletion[choiceIndex], 0);
        choiceCompletion[choiceIndex] = usageCompletion;
      } else {
        increase = usageCompletion - streamCompletion;
      }
      if (increase >= 0) {
        streamCompletion += increase;
        if (everyChunkCounted) {
          tokens = (int) Math.min(increase, Integer.MAX_VALUE);
        }
      }
    }
    return tokens;
  }

  /** The usage to report for this event: a choice's usage adds up with the other choices' latest. */
  private Usage usageToReport() {
    if (usage.isEmpty() || !perChoice()) {
      return usage;
    }
    ensureChoice(choiceIndex);
    choiceUsage[choiceIndex] = usage;
    int seen = 0;
    for (Usage u : choiceUsage) {
      seen += u == null ? 0 : 1;
    }
    if (seen == 1) {
      return usage; // the common case, n = 1: nothing to add up, nothing to allocate
    }
    Usage sum = Usage.NONE;
    for (Usage u : choiceUsage) {
      if (u != null) {
        sum = OpenAiUsageReader.sum(sum, u);
      }
    }
    return sum;
  }

  private void ensureChoice(int index) {
    if (index >= choiceCompletion.length) {
      int size = Math.max(index + 1, choiceCompletion.length * 2);
      int old = choiceCompletion.length;
      choiceCompletion = Arrays.copyOf(choiceCompletion, size);
      Arrays.fill(choiceCompletion, old, size, -1);
      choiceUsage = Arrays.copyOf(choiceUsage, size);
    }
  }

  @Override
  void readPayload() {
    json.beginObject();
    while (json.nextField()) {
      if (json.fieldIs(CHOICES)) {
        readChoices();
      } else if (json.fieldIs(USAGE)) {
        usage = usageReader.read(json);
        usageCompletion = usageReader.completion();
      } else if (json.fieldIs(ERROR)) {
        readError();
      } else if (json.fieldIs(TIMINGS)) {
        timings.note(json);
      } else {
        json.skipValue();
      }
    }
  }

  /** Any error value counts except the falsy ones openai-python also lets through. */
  private void readError() {
    byte type = json.peek();
    if (type == JsonScanner.NULL || type == JsonScanner.FALSE) {
      json.skipValue();
    } else if (type == JsonScanner.STRING) {
      error |= json.readNonEmptyString();
    } else {
      json.skipValue();
      error = true;
    }
  }

  private void readChoices() {
    if (!json.enterArray()) {
      return;
    }
    while (json.nextElement()) {
      choicesNonEmpty = true;
      choiceIndex = choiceCount++;
      readChoice();
    }
  }

  private void readChoice() {
    if (!json.enterObject()) {
      return;
    }
    while (json.nextField()) {
      if (json.fieldIs(DELTA)) {
        readDelta();
      } else if (json.fieldIs(INDEX) && json.peek() == JsonScanner.NUMBER) {
        long index = json.readLong();
        choiceIndex = index < 0 || index > Integer.MAX_VALUE ? -1 : (int) index;
      } else if (json.fieldIs(TEXT)) {
        content |= spans.readText(ChunkKind.CONTENT, json);
      } else if (json.fieldIs(FINISH_REASON)) {
        if (json.readNonEmptyString()) {
          addFinishReason(FinishReasons.of(json));
        }
      } else {
        json.skipValue();
      }
    }
  }

  private void readDelta() {
    if (!json.enterObject()) {
      return;
    }
    while (json.nextField()) {
      if (json.fieldIs(CONTENT) || json.fieldIs(REFUSAL)) {
        content |= spans.readText(ChunkKind.CONTENT, json);
      } else if (json.fieldIs(REASONING_CONTENT) || json.fieldIs(REASONING)) {
        reasoning |= spans.readText(ChunkKind.REASONING, json);
      } else if (json.fieldIs(ROLE)) {
        role |= json.readStringIfPresent();
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
   * A streamed call fragment: {@code {"index", "id"?, "function": {"name"?, "arguments"?}}}, the
   * index beside the function (unlike Ollama's whole calls).
   */
  private void readToolCall(int position) {
    if (!json.enterObject()) {
      return;
    }
    boolean keep = out.wantsText;
    int slot = keep ? spans.addTool(position) : -1;
    while (json.nextField()) {
      if (json.fieldIs(INDEX) && json.peek() == JsonScanner.NUMBER) {
        int index = (int) json.readLong();
        if (keep) {
          spans.setToolIndex(slot, index);
        }
      } else if (keep && json.fieldIs(ID)) {
        if (json.readStringIfPresent()) {
          spans.setToolId(slot, json);
        }
      } else if (keep && json.fieldIs(FUNCTION)) {
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
      if (json.fieldIs(NAME)) {
        if (json.readStringIfPresent()) {
          spans.setToolName(slot, json);
        }
      } else if (json.fieldIs(ARGUMENTS)) {
        byte type = json.peek();
        if (type == JsonScanner.STRING) {
          json.readString();
          spans.setToolArguments(slot, json);
        } else if (type == JsonScanner.OBJECT || type == JsonScanner.ARRAY) {
          // Some servers send parsed arguments; report their JSON text.
          int start = json.position();
          json.skipValue();
          spans.setToolArgumentsRaw(slot, start, json.position());
        } else {
          json.skipValue();
        }
      } else {
        json.skipValue();
      }
    }
  }

  private void addFinishReason(String reason) {
    finishSeen = true;
    if (finishCount == finishReasons.length) {
      finishReasons = Arrays.copyOf(finishReasons, finishCount * 2);
    }
    finishReasons[finishCount++] = reason;
  }
}
