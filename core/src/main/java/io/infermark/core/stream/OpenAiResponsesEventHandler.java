package io.infermark.core.stream;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.Usage;

/**
 * The {@link StreamDialect#OPENAI_RESPONSES} decoder for OpenAI's Responses API
 * ({@code POST /v1/responses} with {@code stream: true}), as served by OpenAI and vLLM.
 *
 * <p>Every event names its type in its JSON {@code type} (and usually in an {@code event:} line).
 * {@code response.created} is a {@link ChunkKind#ROLE} chunk; {@code response.output_text.delta}
 * and {@code response.refusal.delta} are {@link ChunkKind#CONTENT} when their {@code delta} is
 * non-empty; {@code response.reasoning_text.delta} and {@code response.reasoning_summary_text.delta}
 * are {@link ChunkKind#REASONING}; {@code response.function_call_arguments.delta} and the
 * {@code response.output_item.added} of a {@code function_call} item are {@link ChunkKind#TOOL_CALL};
 * every other event is an {@link ChunkKind#EMPTY} chunk, and unknown types are kept as such, as
 * the API's versioning asks of clients. Token counts per event are unknown.
 *
 * <p>{@code response.completed} and {@code response.incomplete} end the stream: a
 * {@link ChunkKind#USAGE} chunk with {@code response.usage} ({@code input_tokens},
 * {@code output_tokens}, {@code total_tokens}, {@code input_tokens_details.cached_tokens},
 * {@code output_tokens_details.reasoning_tokens}), the finish reason {@code stop} (or the
 * {@code incomplete_details.reason}, such as {@code max_output_tokens}), and completion.
 * {@code response.failed} and {@code error} events are stream errors; EOF before a terminal event
 * is a malformed stream.
 */
final class OpenAiResponsesEventHandler extends SseStreamDecoder {

  private static final byte[] TYPE = SseDecoder.ascii("type");
  private static final byte[] DELTA = SseDecoder.ascii("delta");
  private static final byte[] ITEM = SseDecoder.ascii("item");
  private static final byte[] OUTPUT_INDEX = SseDecoder.ascii("output_index");
  private static final byte[] RESPONSE = SseDecoder.ascii("response");
  private static final byte[] USAGE = SseDecoder.ascii("usage");
  private static final byte[] STATUS = SseDecoder.ascii("status");
  private static final byte[] INCOMPLETE_DETAILS = SseDecoder.ascii("incomplete_details");
  private static final byte[] REASON = SseDecoder.ascii("reason");
  private static final byte[] NAME = SseDecoder.ascii("name");
  private static final byte[] CALL_ID = SseDecoder.ascii("call_id");
  private static final byte[] INPUT_TOKENS = SseDecoder.ascii("input_tokens");
  private static final byte[] OUTPUT_TOKENS = SseDecoder.ascii("output_tokens");
  private static final byte[] TOTAL_TOKENS = SseDecoder.ascii("total_tokens");
  private static final byte[] INPUT_DETAILS = SseDecoder.ascii("input_tokens_details");
  private static final byte[] OUTPUT_DETAILS = SseDecoder.ascii("output_tokens_details");
  private static final byte[] CACHED_TOKENS = SseDecoder.ascii("cached_tokens");
  private static final byte[] REASONING_TOKENS = SseDecoder.ascii("reasoning_tokens");
  private static final byte[] FUNCTION_CALL = SseDecoder.ascii("function_call");

  private static final int OTHER = 0;
  private static final int CREATED = 1;
  private static final int TEXT_DELTA = 2;
  private static final int REFUSAL_DELTA = 3;
  private static final int REASONING_DELTA = 4;
  private static final int SUMMARY_DELTA = 5;
  private static final int ARGUMENTS_DELTA = 6;
  private static final int ITEM_ADDED = 7;
  private static final int COMPLETED = 8;
  private static final int INCOMPLETE = 9;
  private static final int FAILED = 10;
  private static final int ERROR_EVENT = 11;
  /** Event types indexed by the codes above. */
  private static final byte[][] TYPES = {
      null,
      SseDecoder.ascii("response.created"),
      SseDecoder.ascii("response.output_text.delta"),
      SseDecoder.ascii("response.refusal.delta"),
      SseDecoder.ascii("response.reasoning_text.delta"),
      SseDecoder.ascii("response.reasoning_summary_text.delta"),
      SseDecoder.ascii("response.function_call_arguments.delta"),
      SseDecoder.ascii("response.output_item.added"),
      SseDecoder.ascii("response.completed"),
      SseDecoder.ascii("response.incomplete"),
      SseDecoder.ascii("response.failed"),
      SseDecoder.ascii("error")};

  private final TextSpans spans = new TextSpans(out.wantsText);

  // What the current event carried.
  private int type;
  private int outputIndex;
  private boolean hasDelta;
  private boolean functionItem;
  private int toolSlot;
  private String incompleteReason;
  private int input;
  private int output;
  private int total;
  private int cached;
  private int reasoning;

  OpenAiResponsesEventHandler(StreamObserver observer, StreamLimits limits) {
    super(observer, limits);
  }

  @Override
  void onData(SseDecoder.Event event, byte[] data, int start, int end, long nanoTime) {
    if (event.hasExplicitType() && event.typeIs(TYPES[ERROR_EVENT])) {
      out.streamError(data, start, end, nanoTime);
      return;
    }
    type = OTHER;
    outputIndex = 0;
    hasDelta = functionItem = false;
    toolSlot = -1;
    incompleteReason = null;
    input = output = total = cached = reasoning = -1;
    spans.clear();
    if (!scanPayload(data, start, end, nanoTime)) {
      return;
    }
    StreamObserver o = out.observer;
    switch (type) {
      case ERROR_EVENT, FAILED -> out.streamError(data, start, end, nanoTime);
      case CREATED -> out.chunk(nanoTime, ChunkKind.ROLE, ChunkTimeline.UNKNOWN_TOKENS);
      case TEXT_DELTA, REFUSAL_DELTA, REASONING_DELTA, SUMMARY_DELTA -> {
        ChunkKind kind = !hasDelta ? ChunkKind.EMPTY
            : type == TEXT_DELTA || type == REFUSAL_DELTA ? ChunkKind.CONTENT : ChunkKind.REASONING;
        out.chunk(nanoTime, kind, ChunkTimeline.UNKNOWN_TOKENS);
        if (out.wantsText) {
          spans.emit(data, o);
        }
      }
      case ARGUMENTS_DELTA, ITEM_ADDED -> {
        boolean tool = type == ARGUMENTS_DELTA || functionItem;
        out.chunk(nanoTime, tool ? ChunkKind.TOOL_CALL : ChunkKind.EMPTY, ChunkTimeline.UNKNOWN_TOKENS);
        if (tool && out.wantsText) {
          spans.setToolIndex(toolSlot(), outputIndex);
          spans.emit(data, o);
        }
      }
      case COMPLETED, INCOMPLETE -> {
        out.chunk(nanoTime, ChunkKind.USAGE, ChunkTimeline.UNKNOWN_TOKENS);
        out.usage(Usage.ofKnownCounts(input, output, total, reasoning, cached));
        out.finishReason(type == COMPLETED ? "stop" : incompleteReason != null ? incompleteReason : "incomplete");
        out.complete(nanoTime);
      }
      default -> out.chunk(nanoTime, ChunkKind.EMPTY, ChunkTimeline.UNKNOWN_TOKENS);
    }
  }

  @Override
  void onEof(long nanoTime) {
    out.fail(ErrorCategory.MALFORMED_STREAM, "stream ended before response.completed", nanoTime);
  }

  @Override
  void readPayload() {
    json.beginObject();
    while (json.nextField()) {
      if (json.fieldIs(TYPE)) {
        if (json.readStringIfPresent()) {
          type = typeCode();
        }
      } else if (json.fieldIs(DELTA)) {
        // The text kind is known only once the type is; a type after the delta is rare, but legal.
        if (json.peek() == JsonScanner.STRING) {
          hasDelta |= spans.readText(deltaKind(), json);
          if (type == ARGUMENTS_DELTA && out.wantsText && json.stringEnd() > json.stringStart()) {
            spans.clearTexts();
            spans.setToolArguments(toolSlot(), json);
          }
        } else {
          json.skipValue();
        }
      } else if (json.fieldIs(OUTPUT_INDEX) && json.peek() == JsonScanner.NUMBER) {
        outputIndex = (int) Math.min(Math.max(json.readLong(), 0), Integer.MAX_VALUE);
      } else if (json.fieldIs(ITEM)) {
        readItem();
      } else if (json.fieldIs(RESPONSE)) {
        readResponse();
      } else {
        json.skipValue();
      }
    }
  }

  private ChunkKind deltaKind() {
    return type == REASONING_DELTA || type == SUMMARY_DELTA ? ChunkKind.REASONING : ChunkKind.CONTENT;
  }

  private int typeCode() {
    for (int code = 1; code < TYPES.length; code++) {
      if (json.stringIs(TYPES[code])) {
        return code;
      }
    }
    return OTHER;
  }

  private void readItem() {
    if (!json.enterObject()) {
      return;
    }
    while (json.nextField()) {
      if (json.fieldIs(TYPE)) {
        if (json.readStringIfPresent() && json.stringIs(FUNCTION_CALL)) {
          functionItem = true;
        }
      } else if (out.wantsText && json.fieldIs(NAME)) {
        if (json.readStringIfPresent()) {
          spans.setToolName(toolSlot(), json);
        }
      } else if (out.wantsText && json.fieldIs(CALL_ID)) {
        if (json.readStringIfPresent()) {
          spans.setToolId(toolSlot(), json);
        }
      } else {
        json.skipValue();
      }
    }
  }

  private void readResponse() {
    if (!json.enterObject()) {
      return;
    }
    while (json.nextField()) {
      if (json.fieldIs(USAGE)) {
        readUsage();
      } else if (json.fieldIs(INCOMPLETE_DETAILS)) {
        if (json.enterObject()) {
          while (json.nextField()) {
            if (json.fieldIs(REASON) && json.readNonEmptyString()) {
              incompleteReason = FinishReasons.of(json);
            } else {
              json.skipValue();
            }
          }
        }
      } else if (json.fieldIs(STATUS)) {
        json.skipValue();
      } else {
        json.skipValue();
      }
    }
  }

  private void readUsage() {
    if (!json.enterObject()) {
      return;
    }
    while (json.nextField()) {
      if (json.fieldIs(INPUT_TOKENS)) {
        input = OpenAiUsageReader.readCount(json);
      } else if (json.fieldIs(OUTPUT_TOKENS)) {
        output = OpenAiUsageReader.readCount(json);
      } else if (json.fieldIs(TOTAL_TOKENS)) {
        total = OpenAiUsageReader.readCount(json);
      } else if (json.fieldIs(INPUT_DETAILS)) {
        cached = OpenAiUsageReader.readNested(json, CACHED_TOKENS);
      } else if (json.fieldIs(OUTPUT_DETAILS)) {
        reasoning = OpenAiUsageReader.readNested(json, REASONING_TOKENS);
      } else {
        json.skipValue();
      }
    }
  }

  private int toolSlot() {
    if (toolSlot < 0) {
      toolSlot = spans.addTool(0);
    }
    return toolSlot;
  }
}
