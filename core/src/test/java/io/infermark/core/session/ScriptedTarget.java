package io.infermark.core.session;

import io.infermark.core.time.Clock;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.Usage;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Message;
import io.infermark.core.transport.Cancellation;
import io.infermark.core.protocol.Target;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * An asynchronous fake server for session tests: answers each request after a delay the test decides,
 * with a reply text unique to the request ("reply-" + request id), or fails it with HTTP 500 when the
 * test says so. It keeps every request's messages by request id.
 */
final class ScriptedTarget implements Target, AutoCloseable {

  private final ScheduledExecutorService io = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "scripted-io");
    t.setDaemon(true);
    return t;
  });
  private final Clock clock = Clock.system();
  private final ToLongFunction<InferenceRequest> delayMillis;
  private final Predicate<InferenceRequest> fails;
  final Map<String, List<Message>> sent = new ConcurrentHashMap<>();

  ScriptedTarget(ToLongFunction<InferenceRequest> delayMillis, Predicate<InferenceRequest> fails) {
    this.delayMillis = delayMillis;
    this.fails = fails;
  }

  static String replyTo(String requestId) {
    return "reply-" + requestId;
  }

  @Override
  public boolean isAsync() {
    return true;
  }

  @Override
  public void execute(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
    throw new UnsupportedOperationException("async only");
  }

  @Override
  public void start(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
    sent.put(request.id(), request.prompt().messages());
    boolean fail = fails.test(request);
    io.schedule(() -> {
      if (fail) {
        observer.onResponseHeaders(500, clock.nanoTime());
        observer.onFailure(Failure.httpStatus(500, "scripted failure"), clock.nanoTime());
        return;
      }
      observer.onResponseHeaders(200, clock.nanoTime());
      observer.onText(ChunkKind.CONTENT, replyTo(request.id()));
      observer.onChunk(clock.nanoTime(), ChunkKind.CONTENT, 1);
      observer.onUsage(Usage.of(7, 1));
      observer.onComplete(clock.nanoTime());
    }, delayMillis.applyAsLong(request), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    io.shutdownNow();
  }

  @Override
  public String toString() {
    return "ScriptedTarget";
  }
}
