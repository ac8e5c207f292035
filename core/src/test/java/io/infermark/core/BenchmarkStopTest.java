package io.infermark.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.Prompt;
import io.infermark.core.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** A started run stopped from another thread: drain, cancel, never-sent, and the result marked interrupted. */
class BenchmarkStopTest {

  private static final Clock CLOCK = Clock.system();
  private static final Prompt PROMPT = Prompt.user("hello");

  /** Answers the first {@code quick} requests at once; holds every later one until it is cancelled. */
  private static Target quickThenHeld(int quick, CountDownLatch held) {
    AtomicInteger n = new AtomicInteger();
    return (request, observer, cancellation) -> {
      observer.onResponseHeaders(200, CLOCK.nanoTime());
      if (n.getAndIncrement() < quick) {
        observer.onChunk(CLOCK.nanoTime(), ChunkKind.CONTENT, 1);
        observer.onComplete(CLOCK.nanoTime());
        return;
      }
      CountDownLatch cancelled = new CountDownLatch(1);
      cancellation.onCancel(cancelled::countDown);
      held.countDown();
      try {
        cancelled.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      observer.onFailure(Failure.of(ErrorCategory.CANCELLED, "cancelled by the caller"), CLOCK.nanoTime());
    };
  }

  private static Map<ErrorCategory, Long> categories(RunResult result) {
    Map<ErrorCategory, Long> counts = new ConcurrentHashMap<>();
    for (RequestRecord r : result.records()) {
      r.failure().ifPresent(f -> counts.merge(f.category(), 1L, Long::sum));
    }
    return counts;
  }

  @Test
  void stoppedClosedLoopCancelsWhatIsInFlightAndCountsWhatWasNeverSent() {
    CountDownLatch held = new CountDownLatch(4);
    BenchmarkRun run = Benchmark.target(quickThenHeld(10, held)).prompts(PROMPT)
        .load(LoadProfile.concurrency(4).requests(100)).start();
    await(held);

    assertThat(run.stop("SIGINT", Duration.ZERO)).isTrue();
    RunResult result = run.await();

    assertThat(result.records()).hasSize(100);
    assertThat(result.records()).extracting(RequestRecord::index).doesNotHaveDuplicates();
    Interruption i = result.interruption().orElseThrow();
    assertThat(i.reason()).isEqualTo("SIGINT");
    assertThat(i.completed()).isEqualTo(10);
    assertThat(i.cancelled()).isEqualTo(4);
    assertThat(i.notSent()).isEqualTo(86);
    assertThat(i.unknown()).isZero();
    assertThat(categories(result)).containsEntry(ErrorCategory.CANCELLED, 4L).containsEntry(ErrorCategory.NOT_SENT, 86L);
    assertThat(result.records().stream().filter(r -> r.failure().map(f -> f.category() == ErrorCategory.NOT_SENT)
        .orElse(false))).allSatisfy(r -> assertThat(r.failure().orElseThrow().message()).contains("stopped (SIGINT)"));
    assertThat(result.interrupted()).isTrue();
    assertThat(result.toString()).contains("INTERRUPTED (SIGINT)");
  }

  @Test
  void requestsThatFinishWithinTheDrainAreCompletedNotCancelled() {
    CountDownLatch inFlight = new CountDownLatch(2);
    CountDownLatch release = new CountDownLatch(1);
    Target slow = (request, observer, cancellation) -> {
      observer.onResponseHeaders(200, CLOCK.nanoTime());
      inFlight.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      observer.onChunk(CLOCK.nanoTime(), ChunkKind.CONTENT, 1);
      observer.onComplete(CLOCK.nanoTime());
    };
    BenchmarkRun run = Benchmark.target(slow).prompts(PROMPT).load(LoadProfile.concurrency(2).requests(50)).start();
    await(inFlight);

    run.stop("SIGTERM", Duration.ofMinutes(5));
    assertThat(run.isStopping()).isTrue();
    release.countDown(); // the two in flight end on their own within the drain
    RunResult result = run.await();

    Interruption i = result.interruption().orElseThrow();
    assertThat(i.completed()).isEqualTo(2);
    assertThat(i.cancelled()).isZero();
    assertThat(i.notSent()).isEqualTo(48);
    assertThat(result.records().stream().filter(RequestRecord::succeeded)).hasSize(2);
  }

  @Test
  void aSecondStopShortensTheDrainAndKeepsTheFirstReason() {
    CountDownLatch held = new CountDownLatch(3);
    BenchmarkRun run = Benchmark.target(quickThenHeld(0, held)).prompts(PROMPT)
        .load(LoadProfile.concurrency(3).requests(3)).start();
    await(held);

    assertThat(run.stop("SIGINT", Duration.ofHours(1))).isTrue();
    assertThat(run.await(Duration.ofMillis(50))).isEmpty(); // draining: the held requests are not cancelled yet
    assertThat(run.stop("SIGINT again", Duration.ofHours(2))).isFalse(); // cannot lengthen it
    assertThat(run.cancel()).isTrue();
    RunResult result = run.await();

    assertThat(result.interruption().orElseThrow().reason()).isEqualTo("SIGINT");
    assertThat(result.interruption().orElseThrow().cancelled()).isEqualTo(3);
    assertThat(result.records()).allSatisfy(
        r -> assertThat(r.failure().orElseThrow().category()).isEqualTo(ErrorCategory.CANCELLED));
  }

  @Test
  void stoppedOpenLoopRecordsTheRestOfItsScheduleAsNotSent() {
    CountDownLatch sentSome = new CountDownLatch(5);
    Target counting = (request, observer, cancellation) -> {
      observer.onResponseHeaders(200, CLOCK.nanoTime());
      observer.onChunk(CLOCK.nanoTime(), ChunkKind.CONTENT, 1);
      observer.onComplete(CLOCK.nanoTime());
      sentSome.countDown();
    };
    // 200 req/s for 1,000 requests: five seconds of schedule, stopped after the first few.
    BenchmarkRun run = Benchmark.target(counting).prompts(PROMPT)
        .load(LoadProfile.constantRate(200).requests(1000)).start();
    await(sentSome);
    run.stop("stopped by the test", Duration.ofSeconds(30));
    RunResult result = run.await();

    Interruption i = result.interruption().orElseThrow();
    assertThat(result.records()).hasSize(1000);
    assertThat(i.completed() + i.cancelled() + i.notSent()).isEqualTo(1000);
    assertThat(i.completed()).isGreaterThanOrEqualTo(5).isLessThan(1000);
    assertThat(i.notSent()).isEqualTo(categories(result).get(ErrorCategory.NOT_SENT));
    // The stop came after the fifth record and before the last intended time.
    assertThat(i.atNanos()).isBetween(result.records().get(4).intendedNanos(), result.records().get(999).intendedNanos());
  }

  @Test
  void aRunThatEndsByItsLimitsIsNotInterrupted() {
    BenchmarkRun run = Benchmark.target(OneTokenTarget.INSTANCE).prompts(PROMPT)
        .load(LoadProfile.concurrency(2).requests(10)).start();
    RunResult result = run.await();

    assertThat(result.interruption()).isEmpty();
    assertThat(run.isDone()).isTrue();
    assertThat(run.stop(Duration.ZERO)).isFalse(); // too late: nothing to stop
    assertThat(result.records()).hasSize(10).allMatch(RequestRecord::succeeded);
  }

  @Test
  void aRunWithoutRetainedRecordsStillCountsItsOutcomes() {
    CountDownLatch held = new CountDownLatch(2);
    List<RequestRecord> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
    BenchmarkRun run = Benchmark.target(quickThenHeld(3, held)).prompts(PROMPT).retainRecords(false)
        .listener(new RunListener() {
          @Override
          public void onRecord(RequestRecord record) {
            seen.add(record);
          }
        }).load(LoadProfile.concurrency(2).requests(20)).start();
    await(held);
    run.stop("SIGTERM", Duration.ZERO);
    RunResult result = run.await();

    Interruption i = result.interruption().orElseThrow();
    assertThat(i.completed()).isEqualTo(3);
    assertThat(i.cancelled()).isEqualTo(2);
    assertThat(i.notSent()).isEqualTo(15);
    assertThat(seen).hasSize(20);
  }

  @Test
  void aStopIsValidated() {
    BenchmarkRun run = Benchmark.target(OneTokenTarget.INSTANCE).prompts(PROMPT)
        .load(LoadProfile.concurrency(1).requests(1)).start();
    assertThatThrownBy(() -> run.stop("x", Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("drain must be >= 0");
    run.await();
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(30, TimeUnit.SECONDS)).as("the run got far enough").isTrue();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }
}
