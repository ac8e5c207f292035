package io.infermark.core.protocol;

import io.infermark.core.protocol.KServeWire.MalformedMessage;
import java.nio.charset.StandardCharsets;

/**
 * Reads one {@code ModelStreamInferResponse} in place: its {@code error_message}, the elements of
 * the named BYTES output (from the tensor's {@code contents.bytes_contents} or from its
 * {@code raw_output_contents} entry, where each element is a 4-byte little-endian length and its
 * bytes), the {@code num_output_tokens} output when the server sent one (the tokens of this response,
 * which Triton's vLLM and TensorRT-LLM backends send when asked with {@code return_num_output_tokens};
 * an integer tensor, typed or raw), and Triton's {@code triton_final_response} parameter. One reader
 * per exchange; nothing is allocated per message unless the text is wanted or the server reported an
 * error.
 */
final class StreamInferResponseReader {

  // ModelStreamInferResponse
  private static final int ERROR_MESSAGE = 1;
  private static final int INFER_RESPONSE = 2;
  // ModelInferResponse
  private static final int PARAMETERS = 4;
  private static final int OUTPUTS = 5;
  private static final int RAW_OUTPUT_CONTENTS = 6;
  // InferOutputTensor
  private static final int TENSOR_NAME = 1;
  private static final int TENSOR_DATATYPE = 2;
  private static final int TENSOR_CONTENTS = 5;
  // InferTensorContents: int_contents, int64_contents, uint_contents, uint64_contents; bytes_contents
  private static final int INT_CONTENTS = 2;
  private static final int UINT64_CONTENTS = 5;
  private static final int BYTES_CONTENTS = 8;
  // map entry and InferParameter
  private static final int KEY = 1;
  private static final int VALUE = 2;
  private static final int BOOL_PARAM = 1;

  private static final byte[] FINAL_RESPONSE = "triton_final_response".getBytes(StandardCharsets.US_ASCII);
  /** The output that carries a response's token count (Triton's vLLM and TensorRT-LLM backends). */
  static final String TOKEN_COUNT_OUTPUT = "num_output_tokens";
  private static final byte[] TOKEN_COUNT = TOKEN_COUNT_OUTPUT.getBytes(StandardCharsets.US_ASCII);
  private static final byte[] INT64 = "INT64".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] UINT64 = "UINT64".getBytes(StandardCharsets.US_ASCII);
  private static final int NOT_NAMED = 0;
  private static final int TEXT = 1;
  private static final int COUNT = 2;
  private static final int MAX_RAW_OUTPUTS = 64;

  private final byte[] outputName;
  private final KServeWire.Reader top = new KServeWire.Reader();
  private final KServeWire.Reader inner = new KServeWire.Reader();
  private final KServeWire.Reader tensor = new KServeWire.Reader();
  private final KServeWire.Reader leaf = new KServeWire.Reader();
  private final int[] rawStart = new int[MAX_RAW_OUTPUTS];
  private final int[] rawEnd = new int[MAX_RAW_OUTPUTS];

  // ---- the result of the last read ----
  /** The server's error for this response, or null. */
  String errorMessage;
  /** Whether the text output held a non-empty element. */
  boolean content;
  /** Whether the response carried {@code triton_final_response: true}. */
  boolean finalResponse;
  /** Whether the response had the named output at all. */
  boolean hasOutput;
  /** The tokens this response carried by its {@code num_output_tokens} output, or -1 when it had none. */
  long tokens;
  /** Whether the count tensor is 8 bytes an element when raw (INT64, UINT64), else 4. */
  private boolean wideCount;
  private StringBuilder text;

  StreamInferResponseReader(String outputName) {
    this.outputName = outputName.getBytes(StandardCharsets.UTF_8);
  }

  /** The text output's elements of the last read, concatenated; empty unless asked for with {@code keepText}. */
  CharSequence text() {
    return text == null ? "" : text;
  }

  /** Reads the message in {@code buf[start, end)}; {@code keepText} decodes the output's text. */
  void read(byte[] buf, int start, int end, boolean keepText) throws MalformedMessage {
    errorMessage = null;
    content = false;
    finalResponse = false;
    hasOutput = false;
    tokens = -1;
    if (keepText) {
      if (text == null) {
        text = new StringBuilder(64);
      }
      text.setLength(0);
    }
    top.reset(buf, start, end);
    while (top.more()) {
      int tag = top.tag();
      int field = tag >>> 3;
      int type = tag & 7;
      if (field == ERROR_MESSAGE && type == KServeWire.LEN) {
        top.span();
        if (top.spanEnd > top.spanStart) {
          errorMessage = top.spanString();
        }
      } else if (field == INFER_RESPONSE && type == KServeWire.LEN) {
        top.span();
        readInferResponse(buf, top.spanStart, top.spanEnd, keepText);
      } else {
        top.skip(type);
      }
    }
  }

  private void readInferResponse(byte[] buf, int start, int end, boolean keepText) throws MalformedMessage {
    int outputIndex = 0;
    int rawCount = 0;
    int wanted = -1;
    int counted = -1;
    inner.reset(buf, start, end);
    while (inner.more()) {
      int tag = inner.tag();
      int field = tag >>> 3;
      int type = tag & 7;
      if (field == OUTPUTS && type == KServeWire.LEN) {
        inner.span();
        int which = readTensor(buf, inner.spanStart, inner.spanEnd, keepText);
        if (which == TEXT) {
          wanted = outputIndex;
        } else if (which == COUNT) {
          counted = outputIndex;
        }
        outputIndex++;
      } else if (field == RAW_OUTPUT_CONTENTS && type == KServeWire.LEN) {
        inner.span();
        if (rawCount < MAX_RAW_OUTPUTS) {
          rawStart[rawCount] = inner.spanStart;
          rawEnd[rawCount] = inner.spanEnd;
        }
        rawCount++;
      } else if (field == PARAMETERS && type == KServeWire.LEN) {
        inner.span();
        readParameter(buf, inner.spanStart, inner.spanEnd);
      } else {
        inner.skip(type);
      }
    }
    if (wanted >= 0 && wanted < Math.min(rawCount, MAX_RAW_OUTPUTS)) {
      readRawBytes(buf, rawStart[wanted], rawEnd[wanted], keepText);
    }
    if (counted >= 0 && counted < Math.min(rawCount, MAX_RAW_OUTPUTS)) {
      readRawCount(buf, rawStart[counted], rawEnd[counted]);
    }
  }

  /**
   * Reads an InferOutputTensor; {@code TEXT} when it is the named output, {@code COUNT} when it is the
   * token count (either's typed contents already read), else {@code NOT_NAMED}.
   */
  private int readTensor(byte[] buf, int start, int end, boolean keepText) throws MalformedMessage {
    boolean named = false;
    boolean count = false;
    boolean wide = false;
    int contentsStart = -1;
    int contentsEnd = -1;
    tensor.reset(buf, start, end);
    while (tensor.more()) {
      int tag = tensor.tag();
      int field = tag >>> 3;
      int type = tag & 7;
      if (field == TENSOR_NAME && type == KServeWire.LEN) {
        tensor.span();
        named = tensor.spanEquals(outputName);
        count = !named && tensor.spanEquals(TOKEN_COUNT);
      } else if (field == TENSOR_DATATYPE && type == KServeWire.LEN) {
        tensor.span();
        wide = tensor.spanEquals(INT64) || tensor.spanEquals(UINT64);
      } else if (field == TENSOR_CONTENTS && type == KServeWire.LEN) {
        tensor.span();
        contentsStart = tensor.spanStart;
        contentsEnd = tensor.spanEnd;
      } else {
        tensor.skip(type);
      }
    }
    if (count) {
      wideCount = wide;
      if (contentsStart >= 0) {
        readTypedCount(buf, contentsStart, contentsEnd);
      }
      return COUNT;
    }
    if (!named) {
      return NOT_NAMED;
    }
    hasOutput = true;
    if (contentsStart >= 0) {
      leaf.reset(buf, contentsStart, contentsEnd);
      while (leaf.more()) {
        int tag = leaf.tag();
        if (tag >>> 3 == BYTES_CONTENTS && (tag & 7) == KServeWire.LEN) {
          leaf.span();
          element(buf, leaf.spanStart, leaf.spanEnd, keepText);
        } else {
          leaf.skip(tag & 7);
        }
      }
    }
    return TEXT;
  }

  /** A count tensor's typed contents: its first integer element, packed or not, of any integer type. */
  private void readTypedCount(byte[] buf, int start, int end) throws MalformedMessage {
    leaf.reset(buf, start, end);
    while (leaf.more() && tokens < 0) {
      int tag = leaf.tag();
      int field = tag >>> 3;
      int type = tag & 7;
      if (field >= INT_CONTENTS && field <= UINT64_CONTENTS && type == KServeWire.VARINT) {
        tokens = count(leaf.varint());
      } else if (field >= INT_CONTENTS && field <= UINT64_CONTENTS && type == KServeWire.LEN) {
        leaf.span();
        if (leaf.spanEnd > leaf.spanStart) {
          tokens = count(tensor.reset(buf, leaf.spanStart, leaf.spanEnd).varint());
        }
      } else {
        leaf.skip(type);
      }
    }
  }

  /** A raw count tensor: its first element, 4 or 8 bytes little-endian by the tensor's datatype. */
  private void readRawCount(byte[] buf, int start, int end) throws MalformedMessage {
    int width = wideCount ? 8 : 4;
    if (end - start < width) {
      throw new MalformedMessage("raw " + TOKEN_COUNT_OUTPUT + " output holds " + (end - start) + " bytes, not an "
          + width + "-byte integer");
    }
    tokens = count(littleEndian(buf, start, width));
  }

  /** The unsigned little-endian integer of {@code width} (at most 8) bytes at {@code at}. */
  private static long littleEndian(byte[] buf, int at, int width) {
    long v = 0;
    for (int i = width - 1; i >= 0; i--) {
      v = v << 8 | (buf[at + i] & 0xFFL);
    }
    return v;
  }

  private static long count(long v) throws MalformedMessage {
    if (v < 0 || v > Integer.MAX_VALUE) {
      throw new MalformedMessage(TOKEN_COUNT_OUTPUT + " of " + Long.toUnsignedString(v) + " is not a token count");
    }
    return v;
  }

  /** A raw BYTES tensor: elements of a 4-byte little-endian length and that many bytes. */
  private void readRawBytes(byte[] buf, int start, int end, boolean keepText) throws MalformedMessage {
    int p = start;
    while (p < end) {
      if (end - p < 4) {
        throw new MalformedMessage("raw BYTES output ends inside an element's length");
      }
      long n = littleEndian(buf, p, 4);
      p += 4;
      if (n > end - p) {
        throw new MalformedMessage("raw BYTES element of " + n + " bytes runs past its tensor");
      }
      element(buf, p, p + (int) n, keepText);
      p += (int) n;
    }
  }

  private void element(byte[] buf, int start, int end, boolean keepText) {
    if (end > start) {
      content = true;
      if (keepText) {
        text.append(new String(buf, start, end - start, StandardCharsets.UTF_8));
      }
    }
  }

  /** A parameters map entry; only {@code triton_final_response} is read. */
  private void readParameter(byte[] buf, int start, int end) throws MalformedMessage {
    boolean isFinal = false;
    int valueStart = -1;
    int valueEnd = -1;
    leaf.reset(buf, start, end);
    while (leaf.more()) {
      int tag = leaf.tag();
      int field = tag >>> 3;
      if (field == KEY && (tag & 7) == KServeWire.LEN) {
        leaf.span();
        isFinal = leaf.spanEquals(FINAL_RESPONSE);
      } else if (field == VALUE && (tag & 7) == KServeWire.LEN) {
        leaf.span();
        valueStart = leaf.spanStart;
        valueEnd = leaf.spanEnd;
      } else {
        leaf.skip(tag & 7);
      }
    }
    if (isFinal && valueStart >= 0) {
      leaf.reset(buf, valueStart, valueEnd);
      while (leaf.more()) {
        int tag = leaf.tag();
        if (tag >>> 3 == BOOL_PARAM && (tag & 7) == KServeWire.VARINT) {
          finalResponse = leaf.varint() != 0;
        } else {
          leaf.skip(tag & 7);
        }
      }
    }
  }
}
