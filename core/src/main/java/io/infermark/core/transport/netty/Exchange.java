package io.infermark.core.transport.netty;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.TimeoutPhase;
import io.infermark.core.time.Clock;
import io.infermark.core.transport.BodyConsumer;
import io.infermark.core.transport.Cancellation;
import io.infermark.core.transport.OutboundRequest;
import io.infermark.core.transport.ResponseHandler;
import io.infermark.core.transport.ResponseHead;
import io.netty.channel.EventLoop;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request–response exchange, whatever the HTTP version: the send, its timer (one scheduled check
 * for the call and read timeouts), the calls to the {@link ResponseHandler} and its one terminal
 * event, cancellation and the one retry. Created on the caller's thread, then confined to one I/O
 * thread (its {@link #loop}), which is the only thread that calls the handler; the {@code done} flag
 * on that thread is what makes the terminal event happen exactly once. Its {@link Runnable#run()} is
 * the timeout check.
 *
 * <p>How the request travels is the subclass's: {@link Http1Exchange} owns an HTTP/1.1 connection for
 * the exchange's life, {@link H2Stream} is one stream of a shared HTTP/2 connection. A subclass says
 * what leaving its connection means ({@link #leave(boolean)}) and how a read timeout is named
 * ({@link #readTimedOut(long)}); everything else of the lifecycle is here, once. (A base class rather
 * than an exchange over a codec object: each connection class calls its own version's methods
 * directly, with no second object per request and no delegation on the per-chunk path.)
 */
abstract class Exchange implements Runnable {

  static final int MORE = 0;
  static final int DONE = 1;
  static final int FAILED = 2;

  private static final Logger LOG = LoggerFactory.getLogger(Exchange.class);

  final NettyTransport transport;
  /** {@code host:port} for messages. */
  final String authority;
  /** The I/O thread the exchange is confined to. */
  final EventLoop loop;
  final OutboundRequest request;
  final ResponseHandler handler;
  final Cancellation cancellation;
  final Clock clock;
  final long readNanos;
  final long callNanos;
  final int connectMillis;

  // ---- confined to loop ----
  private boolean done;
  private long callDeadline;
  /** Set once the request (HTTP/2: its HEADERS) is written: silence from then on is a read timeout. */
  boolean readArmed;
  /** When the latest progress was read (or the request written), for the read timeout. */
  long lastRead;
  private ScheduledFuture<?> timer;
  private long timerDue;
  /** Sent on a connection that was already established: only such a send may be retried when lost. */
  boolean reused;
  private boolean retried;
  /** A byte of the response (HTTP/2: a HEADERS frame) arrived: the request can no longer be retried. */
  boolean responseStarted;
  private BodyConsumer consumer;

  Exchange(NettyTransport transport, String authority, EventLoop loop, OutboundRequest request,
      ResponseHandler handler, Cancellation cancellation) {
    this.transport = transport;
    this.authority = authority;
    this.loop = loop;
    this.request = request;
    this.handler = handler;
    this.cancellation = cancellation;
    this.clock = handler.clock();
    this.readNanos = NettyTransport.saturatedNanos(request.timeouts().read());
    this.callNanos = NettyTransport.saturatedNanos(request.timeouts().call());
    this.connectMillis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, request.timeouts().connect().toMillis()));
  }

  /** Reports a request that never reached an I/O thread; runs on the caller's thread. */
  static void failUnstarted(ResponseHandler handler, String authority, String why) {
    try {
      handler.onFailure(Failure.of(ErrorCategory.CANCELLED, "request to " + authority + " not sent: " + why),
          handler.clock().nanoTime());
    } catch (RuntimeException e) {
      LOG.warn("response handler threw {} in onFailure", NettyTransport.describe(e));
    }
  }

  // ---- what the HTTP version decides ----

  /**
   * The exchange has ended, its terminal event not reported yet: leave the connection. {@code failed}:
   * it ended on its own (a timeout, cancellation, a host exception, a broken response), so what the
   * connection still carries of it must be given up (HTTP/1.1 closes the connection, HTTP/2 resets the
   * stream); otherwise the response ended or the consumer had enough.
   */
  abstract void leave(boolean failed);

  /** The failure for {@code readMillis} without progress once the request was (partly) written. */
  abstract Failure readTimedOut(long readMillis);

  OutboundRequest request() {
    return request;
  }

  ResponseHandler handler() {
    return handler;
  }

  Cancellation cancellation() {
    return cancellation;
  }

  boolean isDone() {
    return done;
  }

  boolean hasResponse() {
    return consumer != null;
  }

  /** The {@code Host} header (HTTP/2: {@code :authority}) the request's URL implies. */
  final String hostHeader() {
    String host = request.url().getHost();
    int port = request.url().getPort();
    return port < 0 || port == (request.secure() ? 443 : 80) ? host : host + ":" + port;
  }

  // ---- starting ----

  /**
   * Whether the exchange may start; when the transport closed or the caller cancelled meanwhile, the
   * exchange ends here (reported). False too when it has already ended.
   */
  final boolean startable() {
    if (done) {
      return false; // cancelled (and reported) while it waited for a connection
    }
    if (transport.isClosed()) {
      failNow(Failure.of(ErrorCategory.CANCELLED, "request to " + authority + " not sent: the transport is closed"));
      return false;
    }
    if (cancellation.isCancelled()) {
      failNow(Failure.of(ErrorCategory.CANCELLED, "request to " + authority + " cancelled before it was sent"));
      return false;
    }
    return true;
  }

  /** Reports the send at {@code now} and starts the call timeout; false when the handler threw (ended). */
  final boolean reportSend(long now) {
    try {
      handler.onSend(now);
    } catch (Throwable t) {
      hostThrew("onSend", t);
      return false;
    }
    sentAt(now);
    return true;
  }

  /** The send is (or was, by an earlier attempt) reported at {@code sendNanos}: the call timeout runs from it. */
  final void sentAt(long sendNanos) {
    callDeadline = sendNanos + callNanos;
    armTimer();
  }

  /** When the send was reported ({@link ResponseHandler#onSend}). */
  final long sendNanos() {
    return callDeadline - callNanos;
  }

  /** A connection milestone; false when the exchange has ended or the handler threw (it has then failed). */
  final boolean phase(Phase p, long t) {
    if (done) {
      return false;
    }
    try {
      handler.onPhase(p, t);
      return true;
    } catch (Throwable e) {
      hostThrew("onPhase(" + p + ")", e);
      return false;
    }
  }

  /** (Part of) the request reached the socket at {@code now}: reports {@code p}; reads are awaited from now. */
  final void written(Phase p, long now) {
    lastRead = now;
    readArmed = true;
    if (phase(p, now)) {
      armTimer();
    }
  }

  /**
   * The address to connect to: an IP literal as it is, a name looked up with the JVM's resolver on
   * this I/O thread between {@code DNS_START} and {@code DNS_END}. Null when the exchange has ended: the
   * name did not resolve ({@code CONNECT}) or the handler threw.
   */
  final InetAddress resolve(String host) {
    if (NetUtil.isValidIpV4Address(host) || NetUtil.isValidIpV6Address(host)) {
      return NetUtil.createInetAddressFromIpAddressString(host);
    }
    if (!phase(Phase.DNS_START, clock.nanoTime())) {
      return null;
    }
    InetAddress address;
    try {
      address = InetAddress.getByName(host);
    } catch (UnknownHostException e) {
      fail(Failure.of(ErrorCategory.CONNECT, "cannot resolve " + authority + ": " + NettyTransport.describe(e)));
      return null;
    }
    return phase(Phase.DNS_END, clock.nanoTime()) ? address : null;
  }

  // ---- reading ----

  /** Response bytes arrived at {@code t}: feeds the read timeout and the first-byte phase. */
  final void bytesRead(long t) {
    lastRead = t;
    if (!responseStarted) {
      responseStarted = true;
      phase(Phase.RESPONSE_HEADERS_START, t);
    }
  }

  /** The response's status and headers arrived at {@code t}: asks the handler for the body's consumer. */
  final void responseHead(int status, ResponseHead head, long t) {
    if (!phase(Phase.RESPONSE_HEADERS_END, t)) {
      return;
    }
    BodyConsumer c;
    try {
      c = handler.onResponse(status, head, t);
    } catch (Throwable e) {
      hostThrew("onResponse", e);
      return;
    }
    if (c == null) {
      fail(Failure.of(ErrorCategory.CLIENT, "response handler returned no BodyConsumer from onResponse"));
      return;
    }
    consumer = c;
  }

  /**
   * Hands body bytes read at {@code t} to the consumer. Returns {@link #DONE} when the consumer is done
   * (the exchange has then ended and left its connection), {@link #FAILED} when it threw (the
   * exchange has failed), {@link #MORE} otherwise.
   */
  final int deliver(byte[] bytes, int offset, int length, long t) {
    if (length == 0) {
      return MORE;
    }
    boolean enough;
    try {
      enough = consumer.onBytes(bytes, offset, length, t);
    } catch (Throwable e) {
      hostThrew("onBytes", e);
      return FAILED;
    }
    if (enough) {
      markEnded();
      return DONE;
    }
    return MORE;
  }

  /** The consumer of the response, once the head has arrived; for what only one version reads (trailers). */
  final BodyConsumer consumer() {
    return consumer;
  }

  /** The exchange has its terminal event: stop the timer and leave the connection. */
  final void markEnded() {
    done = true;
    cancelTimer();
    leave(false);
  }

  /** The body ended at {@code t}; after {@link #markEnded()} (and an HTTP/1.1 connection's release). */
  final void reportEnd(long t) {
    try {
      consumer.onEnd(t);
    } catch (Throwable e) {
      // the handler may not have recorded the end: make sure the request still has an outcome
      LOG.debug("body consumer threw in onEnd", e);
      report(Failure.of(ErrorCategory.CLIENT, "body consumer threw " + NettyTransport.describe(e) + " in onEnd"));
    }
  }

  // ---- retry and failures ----

  /**
   * The request may be sent once more on another connection: the server provably did not process it
   * ({@code provablyUnprocessed}), or the pooled connection it went out on was closed before any
   * response byte. Reports the retry (the send keeps its first time); the caller sends again. False
   * when it may not be retried, or when the handler threw in {@code onRetry} (the exchange has then
   * failed).
   */
  boolean retry(String why, boolean provablyUnprocessed) {
    if (done || responseStarted || retried || (!provablyUnprocessed && !reused)) {
      return false;
    }
    retried = true;
    LOG.debug("{}; sending once more on another connection", why);
    try {
      handler.onRetry(why, clock.nanoTime());
    } catch (Throwable e) {
      hostThrew("onRetry", e);
      return false;
    }
    readArmed = false;
    reused = false;
    return true;
  }

  /** Ends the exchange with {@code failure}, giving up what its connection still carries of it. */
  final void fail(Failure failure) {
    failed(failure, true);
  }

  /** Ends the exchange with {@code failure} without touching its connection (the connection reported it). */
  final void failNow(Failure failure) {
    failed(failure, false);
  }

  /**
   * The terminal event, once: the timer stops and the connection is left before the handler hears of
   * it, so nothing the connection still reads reaches the exchange and a pooled connection is already
   * closed when the failure is reported.
   */
  private void failed(Failure failure, boolean leaveConnection) {
    if (done) {
      return;
    }
    done = true;
    cancelTimer();
    if (leaveConnection) {
      leave(true);
    }
    report(failure);
  }

  /** The caller's cancellation fired; may run on any thread. */
  final void cancelFromAnyThread() {
    try {
      loop.execute(() -> guarded(this::cancel));
    } catch (RejectedExecutionException e) {
      // the I/O thread is gone; close() has already ended the exchange
    }
  }

  private void cancel() {
    if (!done) {
      fail(Failure.of(ErrorCategory.CANCELLED, "request to " + authority + " cancelled by the caller"));
    }
  }

  final void report(Failure failure) {
    try {
      handler.onFailure(failure, clock.nanoTime());
    } catch (Throwable e) {
      LOG.warn("response handler threw {} in onFailure for a request to {}", NettyTransport.describe(e), authority);
    }
  }

  /** Runs {@code step} of this exchange; whatever it throws is a bug of the transport, and fails the exchange. */
  final void guarded(Runnable step) {
    try {
      step.run();
    } catch (Throwable e) {
      unexpected(e);
    }
  }

  /** A bug or a broken invariant in the transport itself: the request still gets its outcome. */
  final void unexpected(Throwable e) {
    LOG.warn("unexpected failure in {}", this, e);
    fail(Failure.of(ErrorCategory.CLIENT, "unexpected " + NettyTransport.describe(e) + " in the exchange with "
        + authority));
  }

  final void hostThrew(String callback, Throwable e) {
    LOG.debug("response handler threw in {}", callback, e);
    fail(Failure.of(ErrorCategory.CLIENT, "response handler threw " + NettyTransport.describe(e) + " in " + callback));
  }

  // ---- timeouts: one scheduled check, moved only when it would fire too late ----

  /**
   * Schedules the check for the earlier of the call deadline and, once reads are awaited, the read
   * deadline; a check already due no later stays (reads only write {@link #lastRead}, and an early
   * check re-arms itself).
   */
  final void armTimer() {
    long due = readArmed && lastRead + readNanos - callDeadline < 0 ? lastRead + readNanos : callDeadline;
    if (timer != null) {
      if (timerDue - due <= 0) {
        return;
      }
      timer.cancel(false);
    }
    timerDue = due;
    timer = loop.schedule(this, Math.max(0, due - clock.nanoTime()), TimeUnit.NANOSECONDS);
  }

  private void cancelTimer() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  /** The timeout check. */
  @Override
  public final void run() {
    guarded(this::checkTimeouts);
  }

  /** The call deadline is checked first: when both have passed, the exchange timed out as a whole. */
  private void checkTimeouts() {
    timer = null;
    if (done) {
      return;
    }
    long now = clock.nanoTime();
    if (now - callDeadline >= 0) {
      fail(Failure.timeout(TimeoutPhase.CALL, "the exchange with " + authority + " took over "
          + TimeUnit.NANOSECONDS.toMillis(callNanos) + " ms"));
    } else if (readArmed && now - lastRead >= readNanos) {
      fail(readTimedOut(TimeUnit.NANOSECONDS.toMillis(readNanos)));
    } else {
      armTimer();
    }
  }
}
