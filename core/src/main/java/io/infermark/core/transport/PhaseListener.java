package io.infermark.core.transport;

import io.infermark.core.capture.Phase;
import io.infermark.core.time.Clock;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.util.List;
import okhttp3.Call;
import okhttp3.Connection;
import okhttp3.EventListener;
import okhttp3.Handshake;
import okhttp3.Protocol;
import okhttp3.Response;

/**
 * Forwards OkHttp's connection events for one call to its {@link ResponseHandler} as
 * {@link Phase} milestones, reports the send when the call first touches the network (name
 * resolution or connecting on a new connection, writing the request headers on a pooled one), and
 * remembers how far the call got so timeouts can be attributed to a phase.
 */
final class PhaseListener extends EventListener {

  /** Builds a listener per call from the observer tagged on its request. */
  static final EventListener.Factory FACTORY = call -> {
    PhaseListener l = call.request().tag(PhaseListener.class);
    return l == null ? EventListener.NONE : l;
  };

  private final ResponseHandler observer;
  private final Clock clock;
  private boolean sendReported;
  private volatile boolean connected;
  private volatile boolean newConnection;
  private volatile boolean responseStarted;
  private volatile long sendSystemNanos = Long.MIN_VALUE;
  private volatile boolean requestSent;
  private volatile long requestSentNanos;

  PhaseListener(ResponseHandler handler) {
    this(handler, false);
  }

  /** A listener for a retry: the send was reported by the first attempt and is not reported again. */
  PhaseListener(ResponseHandler handler, boolean sendAlreadyReported) {
    this.observer = handler;
    this.clock = handler.clock();
    this.sendReported = sendAlreadyReported;
  }

  /** True when the call connected anew (rather than taking a pooled connection). */
  boolean newConnection() {
    return newConnection;
  }

  /** True once the first byte of the response headers arrived. */
  boolean responseStarted() {
    return responseStarted;
  }

  /** Reports the send once, at the first network action of the call. */
  private void send(long now) {
    if (sendSystemNanos == Long.MIN_VALUE) {
      sendSystemNanos = System.nanoTime();
    }
    if (!sendReported) {
      sendReported = true;
      observer.onSend(now);
    }
  }

  /** When the call first touched the network, in {@link System#nanoTime()} units; MIN_VALUE before. */
  long sendSystemNanos() {
    return sendSystemNanos;
  }

  /** True once a connection (new or pooled) was assigned to the call. */
  boolean connected() {
    return connected;
  }

  /** True once the whole request was written. */
  boolean requestSent() {
    return requestSent;
  }

  /** When the whole request was written, in {@link System#nanoTime()} units; meaningful once {@link #requestSent()}. */
  long requestSentNanos() {
    return requestSentNanos;
  }

  @Override
  public void dnsStart(Call call, String domainName) {
    long now = clock.nanoTime();
    send(now);
    observer.onPhase(Phase.DNS_START, now);
  }

  @Override
  public void dnsEnd(Call call, String domainName, List<InetAddress> addresses) {
    observer.onPhase(Phase.DNS_END, clock.nanoTime());
  }

  @Override
  public void connectStart(Call call, InetSocketAddress address, Proxy proxy) {
    newConnection = true;
    long now = clock.nanoTime();
    send(now);
    observer.onPhase(Phase.CONNECT_START, now);
  }

  @Override
  public void secureConnectStart(Call call) {
    observer.onPhase(Phase.SECURE_CONNECT_START, clock.nanoTime());
  }

  @Override
  public void secureConnectEnd(Call call, Handshake handshake) {
    observer.onPhase(Phase.SECURE_CONNECT_END, clock.nanoTime());
  }

  @Override
  public void connectEnd(Call call, InetSocketAddress address, Proxy proxy, Protocol protocol) {
    observer.onPhase(Phase.CONNECT_END, clock.nanoTime());
  }

  @Override
  public void connectionAcquired(Call call, Connection connection) {
    connected = true;
    long now = clock.nanoTime();
    send(now); // a pooled connection: its request is written next
    observer.onPhase(Phase.CONNECTION_ACQUIRED, now);
  }

  @Override
  public void requestHeadersStart(Call call) {
    send(clock.nanoTime());
  }

  @Override
  public void requestBodyEnd(Call call, long byteCount) {
    requestSentNanos = System.nanoTime();
    requestSent = true;
    observer.onPhase(Phase.REQUEST_SENT, clock.nanoTime());
  }

  @Override
  public void responseHeadersStart(Call call) {
    responseStarted = true;
    observer.onPhase(Phase.RESPONSE_HEADERS_START, clock.nanoTime());
  }

  @Override
  public void responseHeadersEnd(Call call, Response response) {
    observer.onPhase(Phase.RESPONSE_HEADERS_END, clock.nanoTime());
  }
}
