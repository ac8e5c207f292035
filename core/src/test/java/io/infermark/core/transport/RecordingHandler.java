package io.infermark.core.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.time.Clock;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * A {@link ResponseHandler} and {@link BodyConsumer} for transport tests: records every event with
 * its stamp and thread, completes a future on the terminal event, and can be told to be done at a
 * marker or to throw in a chosen callback. Thread-safe.
 */
public final class RecordingHandler implements ResponseHandler, BodyConsumer {

  /** The generous bound every wait in transport tests uses: a failure, never a pace. */
  public static final long WAIT_SECONDS = 10;

  /** What happened. */
  public enum Kind { SEND, PHASE, RESPONSE, BYTES, DONE, END, FAILURE }

  /** One recorded call. */
  public record Event(Kind kind, long nanoTime, String detail, Optional<Phase> phase, Optional<Failure> failure,
      String thread) {
    boolean terminal() {
      return kind == Kind.DONE || kind == Kind.END || kind == Kind.FAILURE;
    }
  }

  private final Clock clock;
  private final List<Event> events = new ArrayList<>();
  private final ByteArrayOutputStream body = new ByteArrayOutputStream();
  private final CompletableFuture<Event> terminal = new CompletableFuture<>();
  private final List<Waiter> waiters = new ArrayList<>();
  private volatile Predicate<String> doneWhen = b -> false;
  private volatile String throwIn = "";
  private int status;
  private ResponseHead head = name -> Optional.empty();

  private record Waiter(String marker, CompletableFuture<Long> future) {}

  /** A recorder on the system clock. */
  public RecordingHandler() {
    this(Clock.system());
  }

  /** A recorder on {@code clock}. */
  public RecordingHandler(Clock clock) {
    this.clock = clock;
  }

  /** Makes the consumer report done once the body received so far satisfies {@code when}. */
  public RecordingHandler doneWhen(Predicate<String> when) {
    this.doneWhen = when;
    return this;
  }

  /**
   * Makes the named callback ({@code onSend}, {@code onPhase}, {@code onResponse}, {@code onBytes},
   * {@code onEnd}) throw an {@link IllegalStateException} whose message names it.
   */
  public RecordingHandler throwIn(String callback) {
    this.throwIn = callback;
    return this;
  }

  @Override
  public Clock clock() {
    return clock;
  }

  @Override
  public void onSend(long nanoTime) {
    add(new Event(Kind.SEND, nanoTime, "", Optional.empty(), Optional.empty(), thread()));
    maybeThrow("onSend");
  }

  @Override
  public void onPhase(Phase phase, long nanoTime) {
    add(new Event(Kind.PHASE, nanoTime, phase.name(), Optional.of(phase), Optional.empty(), thread()));
    maybeThrow("onPhase");
  }

  @Override
  public BodyConsumer onResponse(int status, ResponseHead head, long nanoTime) {
    synchronized (this) {
      this.status = status;
      this.head = head;
    }
    add(new Event(Kind.RESPONSE, nanoTime, Integer.toString(status), Optional.empty(), Optional.empty(), thread()));
    maybeThrow("onResponse");
    return this;
  }

  @Override
  public boolean onBytes(byte[] bytes, int offset, int length, long nanoTime) {
    String soFar;
    List<Waiter> reached = new ArrayList<>();
    synchronized (this) {
      body.write(bytes, offset, length);
      soFar = body.toString(StandardCharsets.UTF_8);
      for (Waiter w : waiters) {
        if (soFar.contains(w.marker())) {
          reached.add(w);
        }
      }
      waiters.removeAll(reached);
    }
    add(new Event(Kind.BYTES, nanoTime, Integer.toString(length), Optional.empty(), Optional.empty(), thread()));
    reached.forEach(w -> w.future().complete(nanoTime));
    maybeThrow("onBytes");
    if (doneWhen.test(soFar)) {
      add(new Event(Kind.DONE, nanoTime, "", Optional.empty(), Optional.empty(), thread()));
      return true;
    }
    return false;
  }

  @Override
  public void onEnd(long nanoTime) {
    add(new Event(Kind.END, nanoTime, "", Optional.empty(), Optional.empty(), thread()));
    maybeThrow("onEnd");
  }

  @Override
  public void onFailure(Failure failure, long nanoTime) {
    add(new Event(Kind.FAILURE, nanoTime, failure.toString(), Optional.empty(), Optional.of(failure), thread()));
  }

  private void maybeThrow(String callback) {
    if (throwIn.equals(callback)) {
      throw new IllegalStateException("planted failure in " + callback);
    }
  }

  private static String thread() {
    return Thread.currentThread().getName();
  }

  private void add(Event e) {
    synchronized (this) {
      events.add(e);
    }
    if (e.terminal()) {
      terminal.complete(e);
    }
  }

  // ---- reading what happened ----

  /** Waits (at most {@value #WAIT_SECONDS} s) for the terminal event. */
  public Event awaitTerminal() {
    try {
      return terminal.get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("no terminal event within " + WAIT_SECONDS + " s; events: " + events());
    } catch (InterruptedException | ExecutionException e) {
      throw new AssertionError(e);
    }
  }

  /** Waits for the terminal event and returns its failure, failing the test when it is not one. */
  public Failure awaitFailure() {
    Event e = awaitTerminal();
    assertThat(e.kind()).as("terminal of %s", events()).isEqualTo(Kind.FAILURE);
    return e.failure().orElseThrow();
  }

  /** Completes with the stamp of the read after which the body first contains {@code marker}. */
  public CompletableFuture<Long> bodyContains(String marker) {
    CompletableFuture<Long> f = new CompletableFuture<>();
    synchronized (this) {
      if (body.toString(StandardCharsets.UTF_8).contains(marker)) {
        f.complete(Long.MIN_VALUE);
      } else {
        waiters.add(new Waiter(marker, f));
      }
    }
    return f;
  }

  /** A copy of the events so far. */
  public synchronized List<Event> events() {
    return List.copyOf(events);
  }

  /** The events of one kind. */
  public List<Event> events(Kind kind) {
    return events().stream().filter(e -> e.kind() == kind).toList();
  }

  /** The phases reported, in order. */
  public List<Phase> phases() {
    return events(Kind.PHASE).stream().map(e -> e.phase().orElseThrow()).toList();
  }

  /** The stamp of the first report of {@code phase}. */
  public long stamp(Phase phase) {
    return events(Kind.PHASE).stream().filter(e -> e.phase().orElseThrow() == phase).findFirst()
        .orElseThrow(() -> new AssertionError(phase + " not reported: " + events())).nanoTime();
  }

  /** The stamp of {@code onSend}. */
  public long sendStamp() {
    return events(Kind.SEND).stream().findFirst().orElseThrow(() -> new AssertionError("no onSend: " + events()))
        .nanoTime();
  }

  /** The body received so far, as UTF-8. */
  public synchronized String body() {
    return body.toString(StandardCharsets.UTF_8);
  }

  /** The response status, 0 before the headers. */
  public synchronized int status() {
    return status;
  }

  /** The response headers (empty before them). */
  public synchronized ResponseHead head() {
    return head;
  }

  /**
   * Checks the contract on everything recorded: exactly one terminal event and nothing after it;
   * {@code onSend} first when it was reported at all and at most once; no stamp before the send;
   * body pieces with non-decreasing stamps; the terminal not before the last piece.
   */
  public void assertContract() {
    List<Event> all = events();
    List<Event> terminals = all.stream().filter(Event::terminal).toList();
    assertThat(terminals).as("terminal events of %s", all).hasSize(1);
    assertThat(all.get(all.size() - 1).terminal()).as("nothing after the terminal event: %s", all).isTrue();
    long sends = all.stream().filter(e -> e.kind() == Kind.SEND).count();
    assertThat(sends).as("onSend reports in %s", all).isLessThanOrEqualTo(1);
    if (sends == 1) {
      assertThat(all.get(0).kind()).as("onSend first in %s", all).isEqualTo(Kind.SEND);
      long send = all.get(0).nanoTime();
      for (Event e : all) {
        assertThat(e.nanoTime()).as("%s not stamped before the send in %s", e, all).isGreaterThanOrEqualTo(send);
      }
    } else {
      assertThat(all).as("without onSend only the failure: %s", all).hasSize(1);
    }
    long last = Long.MIN_VALUE;
    for (Event e : all) {
      if (e.kind() == Kind.BYTES || e.terminal()) {
        assertThat(e.nanoTime()).as("stamps of body pieces and the end never go back: %s", all)
            .isGreaterThanOrEqualTo(last);
        last = e.nanoTime();
      }
    }
  }

  @Override
  public String toString() {
    return "RecordingHandler" + events();
  }
}
