package io.infermark.core.protocol;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.stream.ErrorBodies;
import io.infermark.core.stream.StreamDecoder;
import io.infermark.core.stream.StreamDialect;
import io.infermark.core.stream.StreamLimits;
import io.infermark.core.time.Clock;
import io.infermark.core.transport.BodyConsumer;
import io.infermark.core.transport.Cancellation;
import io.infermark.core.transport.OutboundRequest;
import io.infermark.core.transport.ResponseHandler;
import io.infermark.core.transport.ResponseHead;
import io.infermark.core.transport.Timeouts;
import io.infermark.core.transport.Transport;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
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

  /** Reports what a 2xx response's header fields say (a protocol's server timings), before its body. */
  @FunctionalInterface
  interface HeadReader {
    void report(ResponseHead head, StreamObserver observer);

    /** Reads nothing: the protocol reports nothing in its headers. */
    HeadReader NONE = (head, observer) -> {};
  }

  private static final int ERROR_EXCERPT_BYTES = 4096;

  private final StreamObserver observer;
  private final Clock clock;
  private final StreamDialect dialect;
  private final BodyReader bodyReader;
  private final HeadReader headReader;
  private final boolean stream;
  private final int maxBodyBytes;
  private final StreamLimits limits;
  private final CountDownLatch ended = new CountDownLatch(1);

  // ---- redirects: set by followRedirects before the first start, then confined to the exchange's thread ----
  private int maxRedirects;
  private Transport transport;
  private Cancellation cancellation;
  private OutboundRequest current;
  private long firstSend = Long.MIN_VALUE;
  private int hops;
  private long heldHeadersStart = Long.MIN_VALUE;
  private long heldHeadersEnd = Long.MIN_VALUE;
  private volatile OutboundRequest pending;
  /** Method and path of the request sent, for a 404 or 405 ("POST /v1/chat/completions"); empty if unknown. */
  private String requestLine = "";

  HttpExchange(StreamObserver observer, Clock clock, StreamDialect dialect, BodyReader bodyReader, boolean stream,
      Redactor redactor, int maxBodyBytes, StreamLimits limits) {
    this(observer, clock, dialect, bodyReader, HeadReader.NONE, stream, redactor, maxBodyBytes, limits);
  }

  HttpExchange(StreamObserver observer, Clock clock, StreamDialect dialect, BodyReader bodyReader, HeadReader headReader,
      boolean stream, Redactor redactor, int maxBodyBytes, StreamLimits limits) {
    this.observer = redactor.isEmpty() ? observer : new RedactingObserver(observer, redactor);
    this.clock = clock;
    this.dialect = dialect;
    this.bodyReader = bodyReader;
    this.headReader = headReader;
    this.stream = stream;
    this.maxBodyBytes = maxBodyBytes;
    this.limits = limits;
  }

  @Override
  public Clock clock() {
    return clock;
  }

  /**
   * Follows up to {@code max} redirects (301, 302, 307, 308) of {@code first} by sending it again, with
   * the same method and body, on {@code transport}; call before the first start. A blocking transport
   * leaves each next hop in {@link #takeRedirect()} for the caller to send.
   */
  HttpExchange followRedirects(int max, Transport transport, OutboundRequest first, Cancellation cancellation) {
    this.maxRedirects = max;
    this.transport = transport;
    this.current = first;
    this.cancellation = cancellation;
    return this;
  }

  /**
   * Names the request sent (method and path, never the query or userinfo), so that a 404 or 405 says which
   * path the server does not serve: a server mounted elsewhere answers with no body at all to an event-stream
   * request. Call before the first start.
   */
  HttpExchange requestLine(String method, URI url) {
    String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
    this.requestLine = method + " " + path;
    return this;
  }

  /** The next hop a blocking transport must send, once; null when there is none. */
  OutboundRequest takeRedirect() {
    OutboundRequest next = pending;
    pending = null;
    return next;
  }

  @Override
  public void onSend(long nanoTime) {
    if (firstSend == Long.MIN_VALUE) {
      firstSend = nanoTime;
      observer.onSend(nanoTime); // later hops keep the first send: the redirect's cost is in the latency
    }
  }

  @Override
  public void onPhase(Phase phase, long nanoTime) {
    if (maxRedirects > 0 && phase == Phase.RESPONSE_HEADERS_START) {
      heldHeadersStart = nanoTime; // a redirect's response is not the response: held until the status is known
    } else if (maxRedirects > 0 && phase == Phase.RESPONSE_HEADERS_END) {
      heldHeadersEnd = nanoTime;
    } else {
      observer.onPhase(phase, nanoTime);
    }
  }

  @Override
  public void onRetry(String reason, long nanoTime) {
    observer.onRetry(reason);
  }

  private void releaseHeldPhases() {
    if (heldHeadersStart != Long.MIN_VALUE) {
      observer.onPhase(Phase.RESPONSE_HEADERS_START, heldHeadersStart);
    }
    if (heldHeadersEnd != Long.MIN_VALUE) {
      observer.onPhase(Phase.RESPONSE_HEADERS_END, heldHeadersEnd);
    }
    heldHeadersStart = Long.MIN_VALUE;
    heldHeadersEnd = Long.MIN_VALUE;
  }

  @Override
  public BodyConsumer onResponse(int status, ResponseHead head, long nanoTime) {
    if (isRedirect(status) && maxRedirects > 0) {
      BodyConsumer hop = redirect(status, head.header("Location").orElse("").strip(), nanoTime);
      if (hop != null) {
        return hop;
      }
    }
    releaseHeldPhases();
    observer.onResponseHeaders(status, nanoTime);
    if (status >= 300 && status <= 399) {
      return new ErrorExcerpt(status, notFollowed(status, head.header("Location").orElse("")));
    }
    if (status < 200 || status > 299) {
      if (status == 429 || status == 503) {
        head.header("Retry-After").ifPresent(observer::onRetryAfter);
      }
      return new ErrorExcerpt(status, status == 404 || status == 405 ? currentRequestLine() : "");
    }
    String encoding = head.header("Content-Encoding").orElse("identity").strip();
    if (!encoding.isEmpty() && !encoding.equalsIgnoreCase("identity")) {
      // Asked for identity; a body the transport did not decode cannot be read (and a corrupt one
      // is the server's fault, not the host's).
      Failure encoded = Failure.of(ErrorCategory.MALFORMED_STREAM, "response body is " + encoding
          + "-encoded though identity was asked for");
      return BodyConsumer.refusing(at -> {
        try {
          observer.onFailure(encoded, at);
        } finally {
          ended();
        }
      });
    }
    headReader.report(head, observer);
    if (stream && isEventStream(head.contentType())) {
      return new Decoding(dialect.newDecoder(observer, limits));
    }
    return new WholeBody();
  }

  /** The request line of the hop that got the response: a followed redirect's path, or the first request's. */
  private String currentRequestLine() {
    return hops > 0 && current != null ? current.method() + " " + (current.url().getRawPath() == null
        || current.url().getRawPath().isEmpty() ? "/" : current.url().getRawPath()) : requestLine;
  }

  @Override
  public void onFailure(Failure failure, long nanoTime) {
    try {
      releaseHeldPhases();
      observer.onFailure(failure, nanoTime);
    } finally {
      ended.countDown();
    }
  }

  private static boolean isRedirect(int status) {
    return status == 301 || status == 302 || status == 307 || status == 308;
  }

  private String notFollowed(int status, String location) {
    String where = location.isBlank() ? "" : " to " + safeUrl(location);
    return "redirect" + where + " not followed" + (status == 303
        ? " (303 asks for a GET elsewhere; a benchmark request is never re-sent without its body)"
        : maxRedirects == 0 ? " (redirects are off; OpenAiTarget.Builder.followRedirects(true) follows them)"
        : hops >= maxRedirects ? " (more than " + maxRedirects + " redirects in a row)"
        : " (no location, or one that is not http(s) or leaves https for http)");
  }

  /**
   * The consumer of a redirect's body, which sends the request on to its location when the body is
   * done; null when this redirect is not followed (too many, no or a bad location, a downgrade to
   * http), so the response is recorded as the status it is.
   */
  private BodyConsumer redirect(int status, String location, long nanoTime) {
    if (location.isEmpty() || hops >= maxRedirects) {
      return null;
    }
    URI next;
    try {
      next = current.url().resolve(location);
    } catch (IllegalArgumentException e) {
      return null;
    }
    String scheme = next.getScheme() == null ? "" : next.getScheme().toLowerCase(Locale.ROOT);
    if (!(scheme.equals("http") || scheme.equals("https")) || next.getHost() == null
        || (current.secure() && scheme.equals("http"))) {
      return null; // never from https down to http: the key would travel in clear
    }
    List<OutboundRequest.Header> headers = new ArrayList<>(current.headers().size());
    boolean sameOrigin = scheme.equalsIgnoreCase(current.url().getScheme())
        && next.getHost().equalsIgnoreCase(current.url().getHost()) && port(next) == current.port();
    for (OutboundRequest.Header h : current.headers()) {
      String name = h.name().toLowerCase(Locale.ROOT);
      // credentials go to the origin they were meant for, never to another host
      if (!name.equals("host") && (sameOrigin || !Redactor.SENSITIVE_HEADERS.contains(name))) {
        headers.add(h);
      }
    }
    Timeouts t = current.timeouts();
    long spent = firstSend == Long.MIN_VALUE ? 0 : Math.max(0, nanoTime - firstSend);
    Duration callLeft = t.call().minusNanos(spent);
    Timeouts left = new Timeouts(t.connect(), t.read(), callLeft.isNegative() || callLeft.isZero()
        ? Duration.ofMillis(1) : callLeft);
    OutboundRequest hop = new OutboundRequest(current.method(), next, headers, current.body(), current.contentType(),
        left);
    hops++;
    heldHeadersStart = Long.MIN_VALUE;
    heldHeadersEnd = Long.MIN_VALUE;
    observer.onRedirect(status, safeUrl(next.toString()));
    return new Redirecting(hop);
  }

  private static int port(URI u) {
    return u.getPort() >= 0 ? u.getPort() : "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
  }

  /** A URL for records and messages: scheme, host, port and path; no userinfo, query or fragment. */
  static String safeUrl(String url) {
    try {
      URI u = new URI(url.strip());
      if (u.getHost() == null) {
        return "(a location that is not an absolute URL)";
      }
      return (u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT) + "://") + u.getHost()
          + (u.getPort() >= 0 ? ":" + u.getPort() : "") + (u.getRawPath() == null ? "" : u.getRawPath());
    } catch (java.net.URISyntaxException e) {
      return "(an unparsable location)";
    }
  }

  /** Sends the next hop (the transport calls this exchange again) once the redirect's body is done. */
  private void follow(OutboundRequest hop) {
    current = hop;
    if (transport.blocking()) {
      pending = hop;
      return;
    }
    try {
      transport.start(hop, this, cancellation);
    } catch (RuntimeException e) {
      onFailure(Failure.of(ErrorCategory.CLIENT, "following a redirect failed: " + e), clock.nanoTime());
    }
  }

  /** Reads nothing of a redirect's body; sends the request on. */
  private final class Redirecting implements BodyConsumer {
    private final OutboundRequest hop;
    private boolean followed;

    Redirecting(OutboundRequest hop) {
      this.hop = Objects.requireNonNull(hop);
    }

    @Override
    public boolean onBytes(byte[] bytes, int offset, int length, long nanoTime) {
      onEnd(nanoTime);
      return true;
    }

    @Override
    public void onEnd(long nanoTime) {
      if (!followed) {
        followed = true;
        follow(hop);
      }
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


  private final class ErrorExcerpt implements BodyConsumer {
    private final int status;
    private final String note;
    private final ByteArrayOutputStream excerpt = new ByteArrayOutputStream(256);

    ErrorExcerpt(int status, String note) {
      this.status = status;
      this.note = note;
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
        String summary = ErrorBodies.summarize(text);
        if (summary.isBlank()) {
          summary = "(empty body)"; // said, so nobody looks for a message that never came
        }
        observer.onFailure(Failure.httpStatus(status, note.isEmpty() ? summary : note + ": " + summary), nanoTime);
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
