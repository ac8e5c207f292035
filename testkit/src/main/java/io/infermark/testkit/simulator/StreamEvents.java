package io.infermark.testkit.simulator;

import java.nio.charset.StandardCharsets;
import java.util.NoSuchElementException;

/**
 * The server-sent events of one streamed response, in order, framed as {@code data: ...\n\n}:
 * the role chunk (chat only), one chunk per group of tokens (reasoning chunks first, if any,
 * then content; the last carrying the finish reason), the usage chunk when {@code include_usage} asks for it, and {@code [DONE]}.
 *
 * <p>Events are rendered lazily, one at a time, so a long stream costs no more memory than one
 * chunk; {@link #totalBytes()} renders a second pass only to measure.
 */
final class StreamEvents {

  /**
   * One event and when it may be sent.
   *
   * @param tokens how many output tokens the event carries
   * @param readyAfterToken the index of the token that must be generated before the event is
   *     sent, or -1 if it can follow the previous event at once
   * @param trailer whether the event comes after all content (usage chunk, {@code [DONE]})
   */
  record Event(byte[] bytes, int tokens, int readyAfterToken, boolean trailer) {}

  private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] END = "\n\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] DONE = "data: [DONE]\n\n".getBytes(StandardCharsets.US_ASCII);

  private enum Stage { ROLE, CONTENT, USAGE, DONE, END }

  private final GenerationRequest request;
  private final ResponseRenderer renderer;
  private final long seed;
  private final int outputTokens;
  private final String finishReason;
  private final int tokensPerChunk;
  private final int reasoningTokens;
  private Stage stage;
  private int position;

  StreamEvents(GenerationRequest request, ResponseRenderer renderer, long seed, int outputTokens,
      String finishReason, int tokensPerChunk, int reasoningTokens) {
    this.request = request;
    this.reasoningTokens = renderer.sendsRoleChunk() ? Math.min(reasoningTokens, outputTokens) : 0;
    this.renderer = renderer;
    this.seed = seed;
    this.outputTokens = outputTokens;
    this.finishReason = finishReason;
    this.tokensPerChunk = tokensPerChunk;
    this.stage = renderer.sendsRoleChunk() ? Stage.ROLE : Stage.CONTENT;
  }

  boolean hasNext() {
    return stage != Stage.END;
  }

  Event next() {
    switch (stage) {
      case ROLE -> {
        stage = Stage.CONTENT;
        // vLLM sends the role chunk when the first output arrives, right before its content.
        return new Event(frame(renderer.roleChunk(usage(0))), 0, 0, false);
      }
      case CONTENT -> {
        int end = Math.min(outputTokens, position + tokensPerChunk);
        boolean reasoning = position < reasoningTokens;
        if (reasoning) {
          end = Math.min(end, reasoningTokens); // a chunk is all reasoning or all content
        }
        boolean last = end == outputTokens;
        String text = OutputVocabulary.text(seed, position, end);
        TokenUsage usage = usage(end);
        byte[] event = reasoning || last || usage != null ? null : renderer.plainContentEvent(text);
        if (event == null) {
          event = frame(reasoning ? renderer.reasoningChunk(text, last ? finishReason : null, usage)
              : renderer.contentChunk(text, last ? finishReason : null, usage));
        }
        Event e = new Event(event, end - position, end - 1, false);
        position = end;
        if (last) {
          stage = request.includeUsage() ? Stage.USAGE : Stage.DONE;
        }
        return e;
      }
      case USAGE -> {
        stage = Stage.DONE;
        byte[] json = renderer.usageChunk(new TokenUsage(request.promptTokens(), outputTokens));
        return new Event(frame(json), 0, -1, true);
      }
      case DONE -> {
        stage = Stage.END;
        return new Event(DONE, 0, -1, true);
      }
      default -> throw new NoSuchElementException("the stream has ended");
    }
  }

  /** The byte length of the whole stream, for a response that announces its Content-Length. */
  long totalBytes() {
    StreamEvents dryRun = new StreamEvents(request, renderer, seed, outputTokens, finishReason, tokensPerChunk,
        reasoningTokens);
    long total = 0;
    while (dryRun.hasNext()) {
      total += dryRun.next().bytes().length;
    }
    return total;
  }

  private TokenUsage usage(int completionTokens) {
    return request.usagePerChunk() ? new TokenUsage(request.promptTokens(), completionTokens) : null;
  }

  private static byte[] frame(byte[] json) {
    byte[] event = new byte[DATA.length + json.length + END.length];
    System.arraycopy(DATA, 0, event, 0, DATA.length);
    System.arraycopy(json, 0, event, DATA.length, json.length);
    System.arraycopy(END, 0, event, DATA.length + json.length, END.length);
    return event;
  }
}
