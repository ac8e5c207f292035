package io.infermark.testkit.simulator;

import io.infermark.testkit.simulator.server.ChunkBuffer;
import java.nio.charset.StandardCharsets;
import java.util.NoSuchElementException;

/**
 * The server-sent events of one streamed response, in order, framed as {@code data: ...\n\n}:
 * the role chunk (chat only), one chunk per group of tokens (reasoning chunks first, if any,
 * then content; the last carrying the finish reason), the usage chunk when {@code include_usage} asks for it, and {@code [DONE]}.
 * Other protocols' renderers replace the role chunk by their prelude and the usage chunk and
 * {@code [DONE]} by their trailer.
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

  private enum Stage { ROLE, CONTENT, USAGE, DONE, TRAILER, END }

  private final GenerationRequest request;
  private final ResponseRenderer renderer;
  private final long seed;
  private final int outputTokens;
  private final String finishReason;
  private final int tokensPerChunk;
  private final int reasoningTokens;
  private final String[] script;
  private Stage stage;
  private int position;

  StreamEvents(GenerationRequest request, ResponseRenderer renderer, long seed, int outputTokens,
      String finishReason, int tokensPerChunk, int reasoningTokens) {
    this(request, renderer, seed, outputTokens, finishReason, tokensPerChunk, reasoningTokens, new String[0]);
  }

  /**
   * Events whose content tokens begin with {@code script}'s words (one token each, after a space; see
   * {@link PromptBehaviour}), then the vocabulary's.
   */
  StreamEvents(GenerationRequest request, ResponseRenderer renderer, long seed, int outputTokens,
      String finishReason, int tokensPerChunk, int reasoningTokens, String[] script) {
    this.script = script;
    this.request = request;
    this.reasoningTokens = renderer.carriesReasoning() ? Math.min(reasoningTokens, outputTokens) : 0;
    this.renderer = renderer;
    renderer.begin();
    this.seed = seed;
    this.outputTokens = outputTokens;
    this.finishReason = finishReason;
    this.tokensPerChunk = tokensPerChunk;
    this.stage = renderer.sendsRoleChunk() ? Stage.ROLE : Stage.CONTENT;
  }

  /** The Content-Type of the stream. */
  String contentType() {
    return renderer.streamContentType();
  }

  boolean hasNext() {
    return stage != Stage.END;
  }

  /**
   * The index of the token that must be generated before the next event is sent, or -1 if it can
   * follow the previous event at once. Only while {@link #hasNext()}.
   */
  int nextReadyAfterToken() {
    return switch (stage) {
      case ROLE -> 0; // vLLM sends the role chunk when the first output arrives, right before its content
      case CONTENT -> contentEnd() - 1;
      case USAGE, DONE, TRAILER -> -1;
      case END -> throw new NoSuchElementException("the stream has ended");
    };
  }

  /** Renders the next event into {@code out} and returns how many output tokens it carries. */
  int appendNext(ChunkBuffer out) {
    switch (stage) {
      case ROLE -> {
        stage = Stage.CONTENT;
        out.append(renderer.prelude(renderer.openAiTrailer() ? usage(0) : new TokenUsage(request.promptTokens(), 0)));
        return 0;
      }
      case CONTENT -> {
        int from = position;
        int end = contentEnd();
        boolean reasoning = from < reasoningTokens;
        boolean last = end == outputTokens;
        TokenUsage usage = usage(end);
        if (!reasoning && !last && usage == null && renderer.plainFastPath() && from - reasoningTokens >= script.length) {
          renderer.appendPlainContentEvent(out, seed, from, end);
        } else {
          String text = reasoning ? OutputVocabulary.text(seed, from, end) : text(seed, script, from - reasoningTokens,
              from, end);
          out.append(renderer.contentEvent(seed, from, end, text, reasoning, last, finishReason,
              renderer.openAiTrailer() ? usage : new TokenUsage(request.promptTokens(), end)));
        }
        position = end;
        if (last) {
          stage = !renderer.openAiTrailer() ? Stage.TRAILER : request.includeUsage() ? Stage.USAGE : Stage.DONE;
          if (stage == Stage.TRAILER && !renderer.hasTrailer()) {
            stage = Stage.END; // the last content event ends the stream (TGI, Triton)
          }
        }
        return end - from;
      }
      case TRAILER -> {
        stage = Stage.END;
        out.append(renderer.trailer(seed, new TokenUsage(request.promptTokens(), outputTokens), finishReason,
            reasoningTokens));
        return 0;
      }
      case USAGE -> {
        stage = Stage.DONE;
        appendFramed(out, renderer.usageChunk(new TokenUsage(request.promptTokens(), outputTokens)));
        return 0;
      }
      case DONE -> {
        stage = Stage.END;
        out.append(DONE);
        return 0;
      }
      default -> throw new NoSuchElementException("the stream has ended");
    }
  }

  /**
   * Output tokens {@code from..end-1} as text: content token {@code i} (the {@code i}-th after any
   * reasoning, {@code first} being the content index of {@code from}) is {@code " " + script[i]} while
   * the script lasts, the vocabulary's word at its position after.
   */
  static String text(long seed, String[] script, int first, int from, int end) {
    if (first >= script.length) {
      return OutputVocabulary.text(seed, from, end);
    }
    StringBuilder s = new StringBuilder();
    for (int p = from, i = first; p < end; p++, i++) {
      s.append(i < script.length ? " " + script[i] : OutputVocabulary.token(seed, p));
    }
    return s.toString();
  }

  /** The next event as its own bytes, with when it may be sent. */
  Event next() {
    if (stage == Stage.END) {
      throw new NoSuchElementException("the stream has ended");
    }
    boolean trailer = stage == Stage.USAGE || stage == Stage.DONE || stage == Stage.TRAILER;
    int readyAfter = nextReadyAfterToken();
    ChunkBuffer b = new ChunkBuffer(256);
    int tokens = appendNext(b);
    return new Event(b.contents(), tokens, readyAfter, trailer);
  }

  /** Where the content chunk starting at {@code position} ends: a chunk is all reasoning or all content. */
  private int contentEnd() {
    int end = Math.min(outputTokens, position + tokensPerChunk);
    return position < reasoningTokens ? Math.min(end, reasoningTokens) : end;
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

  private static void appendFramed(ChunkBuffer out, byte[] json) {
    out.append(DATA);
    out.append(json);
    out.append(END);
  }
}
