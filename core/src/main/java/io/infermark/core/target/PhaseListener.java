package io.infermark.core.target;

import io.infermark.core.Clock;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.StreamObserver;
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
 * Forwards OkHttp's connection events for one call to its {@link StreamObserver} as
 * {@link Phase} milestones, and remembers how far the call got so timeouts can be attributed to a
 * phase.
 */
final class PhaseListener extends EventListener {

  /** Builds a listener per call from the observer tagged on its request. */
  static final EventListener.Factory FACTORY = call -> {
    PhaseListener l = call.request().tag(PhaseListener.class);
    return l == null ? EventListener.NONE : l;
  };

  private final StreamObserver observer;
  private final Clock clock;
  private volatile boolean connected;
  private volatile boolean requestSent;
  private volatile long requestSentNanos;

  PhaseListener(StreamObserver observer, Clock clock) {
    this.observer = observer;
    this.clock = clock;
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
    observer.onPhase(Phase.DNS_START, clock.nanoTime());
  }

  @Override
  public void dnsEnd(Call call, String domainName, List<InetAddress> addresses) {
    observer.onPhase(Phase.DNS_END, clock.nanoTime());
  }

  @Override
  public void connectStart(Call call, InetSocketAddress address, Proxy proxy) {
    observer.onPhase(Phase.CONNECT_START, clock.nanoTime());
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
    observer.onPhase(Phase.CONNECTION_ACQUIRED, clock.nanoTime());
  }

  @Override
  public void requestBodyEnd(Call call, long byteCount) {
    requestSentNanos = System.nanoTime();
    requestSent = true;
    observer.onPhase(Phase.REQUEST_SENT, clock.nanoTime());
  }

  @Override
  public void responseHeadersStart(Call call) {
    observer.onPhase(Phase.RESPONSE_HEADERS_START, clock.nanoTime());
  }

  @Override
  public void responseHeadersEnd(Call call, Response response) {
    observer.onPhase(Phase.RESPONSE_HEADERS_END, clock.nanoTime());
  }
}
