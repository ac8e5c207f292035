package io.infermark.core.stream;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.Usage;

/**
 * The {@link StreamDialect#ANTHROPIC} decoder for Messages API events.
 *
 * <p>{@code message_start} is a {@link ChunkKind#ROLE} chunk with the prompt usage;
 * {@code content_block_start} is {@link ChunkKind#TOOL_CALL} for tool-use blocks and
 * {@link ChunkKind#EMPTY} otherwise (unless it already carries text); {@code content_block_delta}
 * is {@link ChunkKind#CONTENT} for a non-empty {@code text_delta}, {@link ChunkKind#REASONING} for
 * a non-empty {@code thinking_delta}, {@link ChunkKind#TOOL_CALL} for every {@code input_json_delta} (the
 * empty first one included: it opens the call) and {@link ChunkKind#EMPTY} for
 * {@code signature_delta} and unknown deltas; {@code content_block_stop} is
 * {@link ChunkKind#EMPTY}; {@code message_delta} is a {@link ChunkKind#USAGE} chunk with the
 * cumulative output tokens and the stop reason; {@code message_stop} is an
 * {@link ChunkKind#EMPTY} chunk followed by completion. {@code ping} is a keep-alive and
 * produces nothing; {@code event: error} is a stream error; unknown event types are ignored, as
 * the API's versioning policy asks of clients.
 *
 * <p>Anthropic's {@code input_tokens} excludes cached input, so the prompt count reported is
 * {@code input_tokens + cache_creation_input_tokens + cache_read_input_tokens}, keeping
 * {@code cachedPromptTokens} (= {@code cache_read_input_tokens}) a part of it as with other
 * servers. The {@code output_tokens} of {@code message_start} is a placeholder and is not reported.
 * {@code usage.output_tokens_details.thinking_tokens} (extended thinking) is reported as reasoning
 * tokens, a part of the output tokens.
 */
final class AnthropicEventHandler extends SseStreamDecoder {

  private static final int UNKNOWN = 0;
  private static final int MESSAGE_START = 1;
  private static final int CONTENT_BLOCK_START = 2;
  private static final int CONTENT_BLOCK_DELTA = 3;
  private static final int CONTENT_BLOCK_STOP = 4;
  private static final int MESSAGE_DELTA = 5;
  private static final int MESSAGE_STOP = 6;
  private static final int PING = 7;
  private static final int ERROR_TYPE = 8;
  /** Event names indexed by the codes above. */
  private static final byte[][] EVENT_NAMES = {
      null,
      SseDecoder.ascii("message_start"),
      SseDecoder.ascii("content_block_start"),
      SseDecoder.ascii("content_block_delta"),
      SseDecoder.ascii("content_block_stop"),
      SseDecoder.ascii("message_delta"),
      SseDecoder.ascii("message_stop"),
      SseDecoder.ascii("ping"),
      SseDecoder.ascii("error")};

  private static final byte[] TYPE = SseDecoder.ascii("type");
  private static final byte[] INDEX = SseDecoder.ascii("index");
  private static final byte[] MESSAGE = SseDecoder.ascii("message");
  private static final byte[] CONTENT_BLOCK = SseDecoder.ascii("content_block");
  private static final byte[] DELTA = SseDecoder.ascii("delta");
  private static final byte[] USAGE = SseDecoder.ascii("usage");
  private static final byte[] ERROR = SseDecoder.ascii("error");
  private static final byte[] TEXT = SseDecoder.ascii("text");
  private static final byte[] THINKING = SseDecoder.ascii("thinking");
  private static final byte[] PARTIAL_JSON = SseDecoder.ascii("partial_json");
  private static final byte[] ID = SseDecoder.ascii("id");
  private static final byte[] NAME = SseDecoder.ascii("name");
  private static final byte[] STOP_REASON = SseDecoder.ascii("stop_reason");
  private static final byte[] INPUT_TOKENS = SseDecoder.ascii("input_tokens");
  private static final byte[] OUTPUT_TOKENS = SseDecoder.ascii("output_tokens");
  private static final byte[] CACHE_READ = SseDecoder.ascii("cache_read_input_tokens");
  private static final byte[] CACHE_CREATION = SseDecoder.ascii("cache_creation_input_tokens");
  private static final byte[] OUTPUT_DETAILS = SseDecoder.ascii("output_tokens_details");
  private static final byte[] THINKING_TOKENS = SseDecoder.ascii("thinking_tokens");

  private static final byte[] TEXT_DELTA = SseDecoder.ascii("text_delta");
  private static final byte[] THINKING_DELTA = SseDecoder.ascii("thinking_delta");
  private static final byte[] INPUT_JSON_DELTA = SseDecoder.ascii("input_json_delta");
  private static final byte[] TOOL_USE = SseDecoder.ascii("tool_use");
  private static final byte[] SERVER_TOOL_USE = SseDecoder.ascii("server_tool_use");
  private static final byte[] MCP_TOOL_USE = SseDecoder.ascii("mcp_tool_use");

  private final TextSpans spans = new TextSpans(out.wantsText);

  // What the current event carried.
  private int jsonType;
  private int index;
  /** The kind a content block or delta gives its chunk. */
  private ChunkKind partKind;
  private boolean toolUse;
  private int toolSlot;
  private String stopReason;
  private int inputTokens;
  private int outputTokens;
  private int cacheRead;
  private int cacheCreation;
  private int thinkingTokens;

  AnthropicEventHandler(StreamObserver observer, StreamLimits limits) {
    super(observer, limits);
  }

  @Override
  void onData(SseDecoder.Event event, byte[] data, int start, int end, long nanoTime) {
    int eventType = event.hasExplicitType() ? eventCode(event) : UNKNOWN;
    if (eventType == ERROR_TYPE) {
      out.streamError(data, start, end, nanoTime);
      return;
    }
    if (eventType == PING) {
      return;
    }
    resetEvent();
    if (!scanPayload(data, start, end, nanoTime)) {
      return;
    }
    int type = eventType != UNKNOWN ? eventType : jsonType;
    if (type == ERROR_TYPE) {
      out.streamError(data, start, end, nanoTime);
      return;
    }
    StreamObserver o = out.observer;
    switch (type) {
      case MESSAGE_START:
        out.chunk(nanoTime, ChunkKind.ROLE, ChunkTimeline.UNKNOWN_TOKENS);
        reportUsage(false);
        break;
      case CONTENT_BLOCK_START:
      case CONTENT_BLOCK_DELTA:
        out.chunk(nanoTime, partKind, ChunkTimeline.UNKNOWN_TOKENS);
        if (out.wantsText) {
          emitText(data, o);
        }
        break;
      case CONTENT_BLOCK_STOP:
        out.chunk(nanoTime, ChunkKind.EMPTY, ChunkTimeline.UNKNOWN_TOKENS);
        break;
      case MESSAGE_DELTA:
        out.chunk(nanoTime, ChunkKind.USAGE, ChunkTimeline.UNKNOWN_TOKENS);
        reportUsage(true);
        out.finishReason(stopReason);
        break;
      case MESSAGE_STOP:
        out.chunk(nanoTime, ChunkKind.EMPTY, ChunkTimeline.UNKNOWN_TOKENS);
        out.complete(nanoTime);
        break;
      default:
        // ping without an event line, or a type this client does not know yet
        break;
    }
  }

  /**
   * A tool block reports only its call (id, name, argument fragment); other blocks only their
   * text. The call's index is the content block index, known only once the event is read.
   */
  private void emitText(byte[] data, StreamObserver o) {
    if (toolUse) {
      spans.clearTexts();
      spans.setToolIndex(toolSlot(), index);
    } else {
      spans.clearTools();
    }
    spans.emit(data, o);
  }

  @Override
  void onEof(long nanoTime) {
    out.fail(ErrorCategory.MALFORMED_STREAM, "stream ended before message_stop", nanoTime);
  }

  private static int eventCode(SseDecoder.Event event) {
    for (int code = 1; code < EVENT_NAMES.length; code++) {
      if (event.typeIs(EVENT_NAMES[code])) {
        return code;
      }
    }
    return UNKNOWN;
  }

  private void resetEvent() {
    jsonType = UNKNOWN;
    index = 0;
    partKind = ChunkKind.EMPTY;
    toolUse = false;
    toolSlot = -1;
    stopReason = null;
    inputTokens = outputTokens = cacheRead = cacheCreation = thinkingTokens = -1;
    spans.clear();
  }

  private void reportUsage(boolean withOutput) {
    int prompt = inputTokens < 0 ? -1 : inputTokens + Math.max(cacheRead, 0) + Math.max(cacheCreation, 0);
    out.usage(Usage.ofKnownCounts(prompt, withOutput ? outputTokens : -1, -1,
        withOutput ? thinkingTokens : -1, cacheRead));
  }

  @Override
  void readPayload() {
    json.beginObject();
    while (json.nextField()) {
      if (json.fieldIs(TYPE)) {
        if (json.readStringIfPresent()) {
          jsonType = typeCode();
        }
      } else if (json.fieldIs(INDEX) && json.peek() == JsonScanner.NUMBER) {
        index = (int) json.readLong();
      } else if (json.fieldIs(MESSAGE)) {
        readMessage();
      } else if (json.fieldIs(CONTENT_BLOCK)) {
        readContentBlock();
      } else if (json.fieldIs(DELTA)) {
        readDelta();
      } else if (json.fieldIs(USAGE)) {
        readUsage();
      } else if (json.fieldIs(ERROR)) {
        error |= json.readNonNull();
      } else {
        json.skipValue();
      }
    }
  }

  private int typeCode() {
    for (int code = 1; code < EVENT_NAMES.length; code++) {
      if (json.stringIs(EVENT_NAMES[code])) {
        return code;
      }
    }
    return UNKNOWN;
  }

  private void readMessage() {
    if (!json.enterObject()) {
      return;
    }
    while (json.nextField()) {
      if (json.fieldIs(USAGE)) {
        readUsage();
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
        inputTokens = OpenAiUsageReader.readCount(json);
      } else if (json.fieldIs(OUTPUT_TOKENS)) {
        outputTokens = OpenAiUsageReader.readCount(json);
      } else if (json.fieldIs(CACHE_READ)) {
        cacheRead = OpenAiUsageReader.readCount(json);
      } else if (json.fieldIs(CACHE_CREATION)) {
        cacheCreation = OpenAiUsageReader.readCount(json);
      } else if (json.fieldIs(OUTPUT_DETAILS)) {
        thinkingTokens = OpenAiUsageReader.readNested(json, THINKING_TOKENS);
      } else {
        json.skipValue();
      }
    }
  }

  /** Reads a content block; its type may come before or after its payload. */
  private void readContentBlock() {
    if (!json.enterObject()) {
      return;
    }
    boolean hasText = false;
    boolean hasThinking = false;
    while (json.nextField()) {
      if (json.fieldIs(TYPE)) {
        if (json.readStringIfPresent()) {
          toolUse = json.stringIs(TOOL_USE) || json.stringIs(SERVER_TOOL_USE) || json.stringIs(MCP_TOOL_USE);
        }
      } else if (json.fieldIs(TEXT)) {
        hasText |= spans.readText(ChunkKind.CONTENT, json);
      } else if (json.fieldIs(THINKING)) {
        hasThinking |= spans.readText(ChunkKind.REASONING, json);
      } else if (json.fieldIs(ID)) {
        if (json.readStringIfPresent() && out.wantsText) {
          spans.setToolId(toolSlot(), json);
        }
      } else if (json.fieldIs(NAME)) {
        if (json.readStringIfPresent() && out.wantsText) {
          spans.setToolName(toolSlot(), json);
        }
      } else {
        json.skipValue();
      }
    }
    partKind = partKind(hasText, hasThinking);
  }

  /** Reads a content block delta, or a message delta's stop reason. */
  private void readDelta() {
    if (!json.enterObject()) {
      return;
    }
    boolean hasText = false;
    boolean hasThinking = false;
    while (json.nextField()) {
      if (json.fieldIs(TYPE)) {
        if (json.readStringIfPresent() && json.stringIs(INPUT_JSON_DELTA)) {
          toolUse = true;
        }
      } else if (json.fieldIs(TEXT)) {
        hasText |= spans.readText(ChunkKind.CONTENT, json);
      } else if (json.fieldIs(THINKING)) {
        hasThinking |= spans.readText(ChunkKind.REASONING, json);
      } else if (json.fieldIs(PARTIAL_JSON)) {
        if (json.readStringIfPresent()) {
          toolUse = true;
          if (out.wantsText) {
            spans.setToolArguments(toolSlot(), json);
          }
        }
      } else if (json.fieldIs(STOP_REASON)) {
        if (json.readNonEmptyString()) {
          stopReason = FinishReasons.of(json);
        }
      } else {
        json.skipValue();
      }
    }
    partKind = partKind(hasText, hasThinking);
  }

  /**
   * The kind of chunk a content block or delta makes: a tool part is a tool call whatever it
   * carries (its empty first fragment included), and text outranks thinking.
   */
  private ChunkKind partKind(boolean hasText, boolean hasThinking) {
    return toolUse ? ChunkKind.TOOL_CALL
        : hasText ? ChunkKind.CONTENT
        : hasThinking ? ChunkKind.REASONING
        : ChunkKind.EMPTY;
  }

  /** The one tool-call slot of this event; its index is fixed once the whole event is read. */
  private int toolSlot() {
    if (toolSlot < 0) {
      toolSlot = spans.addTool(0);
    }
    return toolSlot;
  }
}
