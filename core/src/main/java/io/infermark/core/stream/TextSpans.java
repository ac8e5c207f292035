package io.infermark.core.stream;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Where the text of the current payload lies, noted while scanning and decoded only after the
 * chunk itself has been reported: the chunk's kind is known only once the whole payload has been
 * read, and {@link StreamObserver#onText} must follow {@link StreamObserver#onChunk}.
 *
 * <p>{@link #readText} is how every dialect reads a text field, so that what counts as text (a
 * non-empty string) is decided in one place.
 */
final class TextSpans {

  private static final int ABSENT = -1;
  /** A JSON string without escapes: its bytes are UTF-8 text. */
  private static final int PLAIN = 0;
  /** A JSON string with escapes to resolve. */
  private static final int ESCAPED = 1;
  /** A raw JSON value reported as its source text (e.g. tool arguments sent as an object). */
  private static final int RAW = 2;

  private static final ChunkKind[] KINDS = ChunkKind.values();
  private static final int TEXT_STRIDE = 4;
  private static final int TOOL_STRIDE = 10;

  /** Whether the observer wants text; without it, text is still read but its place not noted. */
  private final boolean capture;
  private int[] texts = new int[TEXT_STRIDE * 4];
  private int textCount;
  private int[] tools = new int[TOOL_STRIDE * 2];
  private int toolCount;

  TextSpans(boolean capture) {
    this.capture = capture;
  }

  void clear() {
    textCount = 0;
    toolCount = 0;
  }

  void clearTexts() {
    textCount = 0;
  }

  void clearTools() {
    toolCount = 0;
  }

  /**
   * Reads the next value as text of {@code kind}: true when it is a non-empty string, which is
   * then noted if text is captured. Any other value ({@code ""} and {@code null} included) is
   * skipped and gives false: it carries no output.
   */
  boolean readText(ChunkKind kind, JsonScanner json) {
    if (!json.readNonEmptyString()) {
      return false;
    }
    if (capture) {
      addText(kind, json);
    }
    return true;
  }

  /** Notes the string the scanner read last as text of {@code kind}. */
  private void addText(ChunkKind kind, JsonScanner json) {
    if ((textCount + 1) * TEXT_STRIDE > texts.length) {
      texts = Arrays.copyOf(texts, texts.length * 2);
    }
    int at = textCount++ * TEXT_STRIDE;
    texts[at] = kind.ordinal();
    texts[at + 1] = json.stringStart();
    texts[at + 2] = json.stringEnd();
    texts[at + 3] = json.stringEscaped() ? ESCAPED : PLAIN;
  }

  /** Starts a tool-call fragment with the given index; returns its slot for the setters. */
  int addTool(int index) {
    if ((toolCount + 1) * TOOL_STRIDE > tools.length) {
      tools = Arrays.copyOf(tools, tools.length * 2);
    }
    int slot = toolCount++;
    int at = slot * TOOL_STRIDE;
    tools[at] = index;
    for (int k = 1; k < TOOL_STRIDE; k += 3) {
      tools[at + k] = ABSENT;
    }
    return slot;
  }

  void setToolIndex(int slot, int index) {
    tools[slot * TOOL_STRIDE] = index;
  }

  /** Sets the tool call's id from the string the scanner read last. */
  void setToolId(int slot, JsonScanner json) {
    setString(slot * TOOL_STRIDE + 1, json);
  }

  /** Sets the tool call's name from the string the scanner read last. */
  void setToolName(int slot, JsonScanner json) {
    setString(slot * TOOL_STRIDE + 4, json);
  }

  /** Sets the arguments fragment from the string the scanner read last. */
  void setToolArguments(int slot, JsonScanner json) {
    setString(slot * TOOL_STRIDE + 7, json);
  }

  /** Sets the arguments to the raw JSON text between {@code start} and {@code end}. */
  void setToolArgumentsRaw(int slot, int start, int end) {
    int at = slot * TOOL_STRIDE + 7;
    tools[at] = start;
    tools[at + 1] = end;
    tools[at + 2] = RAW;
  }

  private void setString(int at, JsonScanner json) {
    tools[at] = json.stringStart();
    tools[at + 1] = json.stringEnd();
    tools[at + 2] = json.stringEscaped() ? ESCAPED : PLAIN;
  }

  /** Reports the noted texts, then the tool-call fragments, in payload order. */
  void emit(byte[] buf, StreamObserver observer) {
    for (int i = 0; i < textCount; i++) {
      int at = i * TEXT_STRIDE;
      observer.onText(KINDS[texts[at]], decode(buf, at + 1, texts));
    }
    for (int i = 0; i < toolCount; i++) {
      int at = i * TOOL_STRIDE;
      observer.onToolCallDelta(tools[at], decode(buf, at + 1, tools), decode(buf, at + 4, tools),
          decode(buf, at + 7, tools));
    }
  }

  private static String decode(byte[] buf, int at, int[] spans) {
    int start = spans[at];
    if (start == ABSENT) {
      return "";
    }
    int end = spans[at + 1];
    if (spans[at + 2] == RAW) {
      return new String(buf, start, end - start, StandardCharsets.UTF_8);
    }
    return JsonScanner.decodeString(buf, start, end, spans[at + 2] == ESCAPED);
  }
}
