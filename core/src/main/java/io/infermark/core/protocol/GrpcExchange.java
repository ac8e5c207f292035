package io.infermark.core.protocol;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.stream.ErrorBodies;
import io.infermark.core.time.Clock;
import io.infermark.core.transport.BodyConsumer;
import io.infermark.core.transport.ResponseHandler;
import io.infermark.core.transport.ResponseHead;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;

/**
 * The protocol side of one {@code ModelStreamInfer} call: turns what the HTTP/2 transport reports
 * into {@link StreamObserver} events. Each gRPC message (5-byte prefix, then a
 * {@code ModelStreamInferResponse}) is one chunk, stamped with the read that completed it, carrying the
 * tokens its {@code num_output_tokens} output states (unknown without one); the call
 * ends at the trailers, where {@code grpc-status} says how (see {@link GrpcStatus}). A response
 * that is not gRPC (an HTTP error from a proxy, another content type) is classified as HTTP would be.
 */
final class GrpcExchange implements ResponseHandler {

  private static final int ERROR_EXCERPT_BYTES = 4096;

  private final StreamObserver observer;
  private final Clock clock;
  private final String outputName;
  private final int maxMessageBytes;
  private final CountDownLatch ended = new CountDownLatch(1);

  GrpcExchange(StreamObserver observer, Clock clock, Redactor redactor, String outputName, int maxMessageBytes) {
    this.observer = redactor.isEmpty() ? observer : new RedactingObserver(observer, redactor);
    this.clock = clock;
    this.outputName = outputName;
    this.maxMessageBytes = maxMessageBytes;
  }

  @Override
  public Clock clock() {
    return clock;
  }

  @Override
  public void onSend(long nanoTime) {
    observer.onSend(nanoTime);
  }

  @Override
  public void onPhase(Phase phase, long nanoTime) {
    observer.onPhase(phase, nanoTime);
  }

  @Override
  public void onRetry(String reason, long nanoTime) {
    observer.onRetry(reason);
  }

  @Override
  public BodyConsumer onResponse(int status, ResponseHead head, long nanoTime) {
    observer.onResponseHeaders(status, nanoTime);
    if (status != 200) {
      return new HttpError(status); // gRPC answers 200; anything else came from HTTP (a proxy, a wrong port)
    }
    String type = head.contentType().toLowerCase(Locale.ROOT).strip();
    if (!type.startsWith("application/grpc")) {
      Failure notGrpc = Failure.of(ErrorCategory.MALFORMED_STREAM, "not a gRPC response: content-type \""
          + type + "\" (expected application/grpc; is this the server's gRPC port?)");
      return BodyConsumer.refusing(at -> fail(notGrpc, at));
    }
    Messages messages = new Messages();
    head.header("grpc-status").ifPresent(s -> messages.status(s, head.header("grpc-message").orElse("")));
    String encoding = head.header("grpc-encoding").orElse("identity").strip();
    if (!encoding.isEmpty() && !encoding.equalsIgnoreCase("identity")) {
      messages.compressed = encoding;
    }
    return messages;
  }

  @Override
  public void onFailure(Failure failure, long nanoTime) {
    try {
      observer.onFailure(failure, nanoTime);
    } finally {
      ended.countDown();
    }
  }

  /** Waits until the call has ended; for blocking calls on the event-loop transport. */
  void await() throws InterruptedException {
    ended.await();
  }

  private void fail(Failure failure, long nanoTime) {
    onFailure(failure, nanoTime);
  }

  /** The gRPC messages of a 200 response, then its trailers. */
  private final class Messages implements BodyConsumer {
    private final StreamInferResponseReader reader = new StreamInferResponseReader(outputName);
    private final boolean wantsText = observer.wantsText();
    private final byte[] prefix = new byte[5];
    private int prefixHave;
    private byte[] message;
    private int messageHave;
    private int messageLength = -1;
    private int status = -1;
    private String statusMessage = "";
    /** The grpc-encoding the server announced though none was offered; null for identity. */
    String compressed;
    private boolean done;

    void status(String value, String message) {
      status = GrpcStatus.parse(value);
      statusMessage = GrpcStatus.decodeMessage(message);
      if (status < 0) {
        statusMessage = "grpc-status \"" + value.strip() + "\" is not a status code";
      }
    }

    @Override
    public boolean onBytes(byte[] bytes, int offset, int length, long nanoTime) {
      int p = offset;
      int end = offset + length;
      while (p < end && !done) {
        if (messageLength < 0) {
          if (prefixHave == 0 && end - p >= 5) {
            // the common case: the whole prefix, and often the whole message, in this read
            int n = frameLength(bytes, p);
            if (!startMessage(bytes[p], n, nanoTime)) {
              return true;
            }
            p += 5;
            if (end - p >= n) {
              deliver(bytes, p, p + n, nanoTime);
              p += n;
              messageLength = -1;
              continue;
            }
          } else {
            int take = Math.min(5 - prefixHave, end - p);
            System.arraycopy(bytes, p, prefix, prefixHave, take);
            prefixHave += take;
            p += take;
            if (prefixHave < 5) {
              break;
            }
            prefixHave = 0;
            if (!startMessage(prefix[0], frameLength(prefix, 0), nanoTime)) {
              return true;
            }
          }
          if (message == null || message.length < messageLength) {
            message = new byte[Math.max(messageLength, 256)];
          }
          messageHave = 0;
        }
        int take = Math.min(messageLength - messageHave, end - p);
        System.arraycopy(bytes, p, message, messageHave, take);
        messageHave += take;
        p += take;
        if (messageHave == messageLength) {
          int n = messageLength;
          messageLength = -1;
          deliver(message, 0, n, nanoTime);
        }
      }
      return done;
    }

    private int frameLength(byte[] b, int at) {
      return (b[at + 1] & 0xFF) << 24 | (b[at + 2] & 0xFF) << 16 | (b[at + 3] & 0xFF) << 8 | (b[at + 4] & 0xFF);
    }

    /** Checks a message's prefix; false (the call has failed) when it cannot be read. */
    private boolean startMessage(byte flags, int length, long nanoTime) {
      if (flags != 0) {
        finish(Failure.of(ErrorCategory.MALFORMED_STREAM, flags == 1
            ? "the server sent a compressed gRPC message (" + (compressed == null ? "no grpc-encoding" : compressed)
                + ") though the client offered no compression"
            : "gRPC message prefix has invalid flags " + (flags & 0xFF)), nanoTime);
        return false;
      }
      if (length < 0 || length > maxMessageBytes) {
        finish(Failure.of(ErrorCategory.MALFORMED_STREAM, "gRPC message of " + Integer.toUnsignedString(length)
            + " bytes exceeds the target's maxMessageBytes (" + maxMessageBytes + ")"), nanoTime);
        return false;
      }
      messageLength = length;
      return true;
    }

    private void deliver(byte[] buf, int start, int end, long nanoTime) {
      try {
        reader.read(buf, start, end, wantsText);
      } catch (KServeWire.MalformedMessage e) {
        finish(Failure.of(ErrorCategory.MALFORMED_STREAM, "ModelStreamInferResponse is not valid protobuf: "
            + e.getMessage()), nanoTime);
        return;
      }
      if (reader.errorMessage != null) {
        finish(Failure.of(ErrorCategory.STREAM_ERROR, ErrorBodies.summarize(reader.errorMessage)), nanoTime);
        return;
      }
      ChunkKind kind = reader.content ? ChunkKind.CONTENT : ChunkKind.EMPTY;
      // a response may carry several tokens (a server that batches its writes): its num_output_tokens says how
      // many, all stamped at this read; without it, its count is unknown and the record counts it as one
      observer.onChunk(nanoTime, kind, reader.tokens >= 0 ? (int) reader.tokens : ChunkTimeline.UNKNOWN_TOKENS);
      if (wantsText && reader.content) {
        observer.onText(ChunkKind.CONTENT, reader.text());
      }
    }

    private void finish(Failure failure, long nanoTime) {
      if (!done) {
        done = true;
        fail(failure, nanoTime);
      }
    }

    @Override
    public void onTrailers(ResponseHead trailers, long nanoTime) {
      trailers.header("grpc-status").ifPresent(s -> status(s, trailers.header("grpc-message").orElse("")));
    }

    @Override
    public void onEnd(long nanoTime) {
      if (done) {
        return;
      }
      if (status == GrpcStatus.OK && (prefixHave > 0 || messageLength >= 0)) {
        finish(Failure.of(ErrorCategory.MALFORMED_STREAM, "the gRPC response ended inside a message"), nanoTime);
      } else if (status == GrpcStatus.OK) {
        done = true;
        try {
          observer.onComplete(nanoTime);
        } finally {
          ended.countDown();
        }
      } else if (status < 0) {
        finish(Failure.of(ErrorCategory.MALFORMED_STREAM, statusMessage.isEmpty()
            ? "the gRPC response ended without a grpc-status (no trailers)" : statusMessage), nanoTime);
      } else {
        finish(GrpcStatus.failure(status, statusMessage), nanoTime);
      }
    }
  }

  /** A non-200 answer: an HTTP error with a bounded excerpt of its body. */
  private final class HttpError implements BodyConsumer {
    private final int status;
    private final ByteArrayOutputStream excerpt = new ByteArrayOutputStream(256);

    HttpError(int status) {
      this.status = status;
    }

    @Override
    public boolean onBytes(byte[] bytes, int offset, int length, long nanoTime) {
      excerpt.write(bytes, offset, Math.min(length, ERROR_EXCERPT_BYTES - excerpt.size()));
      if (excerpt.size() >= ERROR_EXCERPT_BYTES) {
        onEnd(nanoTime);
        return true;
      }
      return false;
    }

    @Override
    public void onEnd(long nanoTime) {
      fail(Failure.httpStatus(status, ErrorBodies.summarize(excerpt.toString(StandardCharsets.UTF_8))), nanoTime);
    }
  }
}
