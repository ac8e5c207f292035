package io.infermark.core.target;

import io.infermark.core.Clock;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.stream.ErrorBodies;
import io.infermark.core.stream.StreamDecoder;
import io.infermark.core.stream.StreamDialect;
import io.infermark.core.stream.StreamLimits;
import io.infermark.core.transport.BodyConsumer;
import io.infermark.core.transport.ResponseHandler;
import io.infermark.core.transport.ResponseHead;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;

/**
 * The protocol side of one HTTP exchange: turns what a transport reports into
 * {@link StreamObserver} events. A 2xx event stream goes to the dialect's decoder, a non-2xx answer
 * becomes an {@link ErrorCategory#HTTP_STATUS} failure with a bounded excerpt of its body, and any
 * other body (a non-streamed answer, or JSON where a stream was asked for, often an error object)
 * is buffered up to a bound and handed to the protocol's whole-body reader. Every text that reaches
 * the observer in a failure passes through the target's {@link Redactor}.
 */
final class HttpExchange implements ResponseHandler {

  /** Reads a complete non-streamed body. */
  @FunctionalInterface
  interface BodyReader {
    void report(byte[] body, StreamObserver observer, long nanoTime);
  }

  private static final int ERROR_EXCERPT_BYTES = 4096;

  private final StreamObserver observer;
  private final Clock clock;
  private final StreamDialect dialect;
  private final BodyReader bodyReader;
  private final boolean stream;
  private final int maxBodyBytes;
  private final StreamLimits limits;
  private final CountDownLatch ended = new CountDownLatch(1);

  HttpExchange(StreamObserver observer, Clock clock, StreamDialect dialect, BodyReader bodyReader, boolean stream,
      Redactor redactor, int maxBodyBytes, StreamLimits limits) {
    this.observer = redactor.isEmpty() ? observer : new RedactingObserver(observer, redactor);
    this.clock = clock;
    this.dialect = dialect;
    this.bodyReader = bodyReader;
    this.stream = stream;
    this.maxBodyBytes = maxBodyBytes;
    this.limits = limits;
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
  public BodyConsumer onResponse(int status, ResponseHead head, long nanoTime) {
    observer.onResponseHeaders(status, nanoTime);
    if (status < 200 || status > 299) {
      return new ErrorExcerpt(status);
    }
    String encoding = head.header("Content-Encoding").orElse("identity").strip();
    if (!encoding.isEmpty() && !encoding.equalsIgnoreCase("identity")) {
      // Asked for identity; a body the transport did not decode cannot be read (and a corrupt one
      // is the server's fault, not the host's).
      return new Refused(Failure.of(ErrorCategory.MALFORMED_STREAM, "response body is " + encoding
          + "-encoded though identity was asked for"));
    }
    if (stream && isEventStream(head.contentType())) {
      return new Decoding(dialect.newDecoder(observer, limits));
    }
    return new WholeBody();
  }

  @Override
  public void onFailure(Failure failure, long nanoTime) {
    try {
      observer.onFailure(failure, nanoTime);
    } finally {
      ended.countDown();
    }
  }

  /** Waits until the exchange has ended; for blocking calls on a non-blocking transport. */
  void await() throws InterruptedException {
    ended.await();
  }

  private void ended() {
    ended.countDown();
  }

  /** Anything but JSON counts as an event stream: servers label SSE inconsistently, JSON never. */
  private static boolean isEventStream(String contentType) {
    String t = contentType.toLowerCase(Locale.ROOT);
    int semi = t.indexOf(';');
    String type = (semi < 0 ? t : t.substring(0, semi)).strip();
    return !(type.endsWith("/json") || type.endsWith("+json"));
  }

  private final class Decoding implements BodyConsumer {
    private final StreamDecoder decoder;

    Decoding(StreamDecoder decoder) {
      this.decoder = decoder;
    }

    @Override
    public boolean onBytes(byte[] bytes, int offset, int length, long nanoTime) {
      decoder.feed(bytes, offset, length, nanoTime);
      if (decoder.finished()) {
        ended();
        return true;
      }
      return false;
    }

    @Override
    public void onEnd(long nanoTime) {
      try {
        decoder.end(nanoTime);
      } finally {
        ended();
      }
    }
  }

  /** Reads nothing: the exchange failed on its headers. */
  private final class Refused implements BodyConsumer {
    private final Failure failure;

    Refused(Failure failure) {
      this.failure = failure;
    }

    @Override
    public boolean onBytes(byte[] bytes, int offset, int length, long nanoTime) {
      onEnd(nanoTime);
      return true;
    }

    @Override
    public void onEnd(long nanoTime) {
      try {
        observer.onFailure(failure, nanoTime);
      } finally {
        ended();
      }
    }
  }

  private final class ErrorExcerpt implements BodyConsumer {
    private final int status;
    private final ByteArrayOutputStream excerpt = new ByteArrayOutputStream(256);

    ErrorExcerpt(int status) {
      this.status = status;
    }

    @Override
    public boolean onBytes(byte[] bytes, int offset, int length, long nanoTime) {
      int take = Math.min(length, ERROR_EXCERPT_BYTES - excerpt.size());
      excerpt.write(bytes, offset, take);
      if (excerpt.size() >= ERROR_EXCERPT_BYTES) {
        onEnd(nanoTime); // enough to say what went wrong; the rest is not read
        return true;
      }
      return false;
    }

    @Override
    public void onEnd(long nanoTime) {
      try {
        String text = excerpt.toString(StandardCharsets.UTF_8);
        observer.onFailure(Failure.httpStatus(status, ErrorBodies.summarize(text)), nanoTime);
      } finally {
        ended();
      }
    }
  }

  private final class WholeBody implements BodyConsumer {
    private final ByteArrayOutputStream body = new ByteArrayOutputStream(1024);

    @Override
    public boolean onBytes(byte[] bytes, int offset, int length, long nanoTime) {
      if (body.size() + (long) length > maxBodyBytes) {
        try {
          observer.onFailure(Failure.of(ErrorCategory.MALFORMED_STREAM, "response body exceeds " + maxBodyBytes
              + " bytes (the target's maxBodyBytes)"), nanoTime);
        } finally {
          ended();
        }
        return true;
      }
      body.write(bytes, offset, length);
      return false;
    }

    @Override
    public void onEnd(long nanoTime) {
      try {
        bodyReader.report(body.toByteArray(), observer, nanoTime);
      } finally {
        ended();
      }
    }
  }
}
