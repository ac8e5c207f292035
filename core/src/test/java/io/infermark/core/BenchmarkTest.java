package io.infermark.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.Usage;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Prompt;
import io.infermark.core.time.Clock;
import io.infermark.core.transport.Cancellation;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class BenchmarkTest {

  private static final Clock CLOCK = Clock.system();
  private static final Prompt PROMPT = Prompt.user("hello");

  /** A target that answers at once with a role chunk, three one-token content chunks and usage. */
  private static final Target INSTANT = (request, observer, cancellation) -> {
    observer.onResponseHeaders(200, CLOCK.nanoTime());
    observer.onChunk(CLOCK.nanoTime(), ChunkKind.ROLE, 0);
    for (int i = 0; i < 3; i++) {
      observer.onChunk(CLOCK.nanoTime(), ChunkKind.CONTENT, 1);
    }
    observer.onUsage(Usage.of(5, 3));
    observer.onFinishReason("length");
    observer.onComplete(CLOCK.nanoTime());
  };

  /** A target that holds every request until cancelled, then reports the cancellation. */
  private static final Target UNTIL_CANCELLED = (request, observer, cancellation) -> {
    CountDownLatch cancelled = new CountDownLatch(1);
    cancellation.onCancel(cancelled::countDown);
    try {
      cancelled.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    observer.onFailure(Failure.of(ErrorCategory.CANCELLED, "cancelled"), CLOCK.nanoTime());
  };

  @Test
  void closedLoopSendsEveryMeasuredAndWarmupRequestExactlyOnce() {
    RunResult result = Benchmark.target(INSTANT).prompts(PROMPT)
        .load(LoadProfile.concurrency(4).requests(20).warmupRequests(5)).run();

    assertThat(result.records()).hasSize(25);
    assertThat(result.records()).extracting(RequestRecord::index)
        .containsExactlyElementsOf(java.util.stream.LongStream.range(0, 25).boxed().toList());
    assertThat(result.records().stream().filter(RequestRecord::warmup).map(RequestRecord::index))
        .containsExactly(0L, 1L, 2L, 3L, 4L);
    assertThat(result.measured()).hasSize(20).allMatch(RequestRecord::succeeded);
    assertThat(result.records()).extracting(RequestRecord::requestId).doesNotHaveDuplicates();
    assertThat(result.measured().get(0).outputTokens()).isEqualTo(3);
    assertThat(result.measured().get(0).finishReason()).contains("length");
  }

  @Test
  void closedLoopKeepsExactlyItsConcurrencyInFlight() throws Exception {
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger peak = new AtomicInteger();
    CountDownLatch allEightIn = new CountDownLatch(8);
    Target target = (request, observer, cancellation) -> {
      peak.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
      allEightIn.countDown();
      try {
        allEightIn.await(); // the first eight wait for each other: proves eight can be in flight together
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      inFlight.decrementAndGet();
      INSTANT.execute(request, observer, cancellation);
    };

    RunResult result = Benchmark.target(target).prompts(PROMPT).load(LoadProfile.concurrency(8).requests(64)).run();

    assertThat(peak.get()).isEqualTo(8);
    assertThat(result.records()).hasSize(64).allMatch(RequestRecord::succeeded);
  }

  @Test
  void requestsCycleThroughPromptsAndCarryTheirTags() {
    Set<String> seen = ConcurrentHashMap.newKeySet();
    Target target = (request, observer, cancellation) -> {
      seen.add(request.id() + "=" + request.prompt().text());
      INSTANT.execute(request, observer, cancellation);
    };
    List<Prompt> prompts = List.of(Prompt.user("a").withTag("class", "A"), Prompt.user("b").withTag("class", "B"));

    RunResult result = Benchmark.target(target).prompts(prompts).load(LoadProfile.concurrency(2).requests(6)).run();

    assertThat(result.records()).extracting(r -> r.tags().get("class")).containsExactly("A", "B", "A", "B", "A", "B");
    assertThat(seen.stream().filter(s -> s.endsWith("=a")).count()).isEqualTo(3);
  }

  @Test
  void openLoopRecordsEachRequestsIntendedTimeFromTheSchedule() {
    RunResult result = Benchmark.target(INSTANT).prompts(PROMPT)
        .load(LoadProfile.constantRate(2000).requests(40)).run();

    assertThat(result.records()).hasSize(40);
    for (RequestRecord r : result.records()) {
      assertThat(r.intendedNanos()).isEqualTo(r.index() * 500_000L);
      assertThat(r.sendNanos()).isGreaterThanOrEqualTo(r.intendedNanos());
    }
    assertThat(result.schedule().requestedRate()).hasValue(2000.0);
    assertThat(result.schedule().scheduledRate()).isCloseTo(2000.0, org.assertj.core.data.Offset.offset(1e-6));
    assertThat(result.schedule().sent()).isEqualTo(40);
  }

  @Test
  void inFlightCapQueuesRequestsAndRecordsTheirWaitAsLag() throws Exception {
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger peak = new AtomicInteger();
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch twoIn = new CountDownLatch(2);
    java.util.Map<String, Long> enteredAt = new ConcurrentHashMap<>();
    java.util.concurrent.atomic.AtomicLong releasedAt = new java.util.concurrent.atomic.AtomicLong();
    Target target = (request, observer, cancellation) -> {
      enteredAt.put(request.id(), CLOCK.nanoTime());
      peak.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
      twoIn.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      inFlight.decrementAndGet();
      INSTANT.execute(request, observer, cancellation);
    };
    Thread releaser = new Thread(() -> {
      try {
        twoIn.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      releasedAt.set(CLOCK.nanoTime());
      release.countDown();
    });
    releaser.start();

    RunResult result = Benchmark.target(target).prompts(PROMPT)
        .load(LoadProfile.constantRate(10_000).requests(10).maxInFlight(2)).run();
    releaser.join();

    assertThat(peak.get()).isEqualTo(2);
    assertThat(result.records()).hasSize(10).allMatch(RequestRecord::succeeded);
    RequestRecord third = result.records().get(2);
    // The third request waited in the client queue until the first two were released ...
    assertThat(enteredAt.get(third.requestId())).isGreaterThanOrEqualTo(releasedAt.get());
    // ... and that wait is on its record as lag behind its intended time of 0.2 ms.
    assertThat(third.intendedNanos()).isEqualTo(200_000L);
    assertThat(third.scheduleLagNanos()).isPositive();
    assertThat(result.schedule().lagMaxNanos()).isEqualTo(
        result.records().stream().mapToLong(RequestRecord::scheduleLagNanos).max().orElseThrow());
  }

  @Test
  void targetThatThrowsStillYieldsOneClassifiedRecord() {
    Target target = (request, observer, cancellation) -> {
      throw new IllegalStateException("boom");
    };

    RunResult result = Benchmark.target(target).prompts(PROMPT).load(LoadProfile.concurrency(2).requests(4)).run();

    assertThat(result.records()).hasSize(4);
    assertThat(result.records()).allSatisfy(r -> {
      assertThat(r.failure()).get().extracting(Failure::category).isEqualTo(ErrorCategory.CLIENT);
      assertThat(r.failure().get().message()).contains("boom");
    });
  }

  @Test
  void targetThatReturnsWithoutAnOutcomeIsAClientFailure() {
    Target silent = (request, observer, cancellation) -> observer.onChunk(CLOCK.nanoTime(), ChunkKind.CONTENT, 1);

    RunResult result = Benchmark.target(silent).prompts(PROMPT).load(LoadProfile.concurrency(1).requests(2)).run();

    assertThat(result.records()).hasSize(2).allSatisfy(r -> {
      assertThat(r.failure().get().category()).isEqualTo(ErrorCategory.CLIENT);
      assertThat(r.failure().get().message()).contains("without reporting an outcome");
      assertThat(r.chunks().size()).isEqualTo(1);
    });
  }

  /** A target that, once {@code n} requests are in, jumps the clock an hour ahead and then delegates. */
  private static Target jumpWhenAllIn(int n, JumpingClock clock, Target then) {
    CountDownLatch allIn = new CountDownLatch(n);
    return (request, observer, cancellation) -> {
      allIn.countDown();
      if (allIn.getCount() == 0) {
        clock.jump(Duration.ofHours(1));
      }
      then.execute(request, observer, cancellation);
    };
  }

  @Test
  void durationRunCancelsRequestsStillInFlightAtTheDrainTimeout() {
    JumpingClock clock = new JumpingClock();
    RunResult result = Benchmark.target(jumpWhenAllIn(3, clock, UNTIL_CANCELLED)).prompts(PROMPT).clock(clock)
        .load(LoadProfile.concurrency(3).duration(Duration.ofMinutes(1)).drainTimeout(Duration.ofMinutes(1)))
        .run();

    assertThat(result.records()).hasSize(3).allSatisfy(r ->
        assertThat(r.failure().get().category()).isEqualTo(ErrorCategory.CANCELLED));
  }

  @Test
  void targetIgnoringCancellationIsRecordedByTheEngineAndTheRunStillEnds() throws Exception {
    CountDownLatch testOver = new CountDownLatch(1);
    Target deaf = (request, observer, cancellation) -> {
      try {
        testOver.await(); // ignores cancellation entirely
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      observer.onComplete(CLOCK.nanoTime());
    };
    JumpingClock clock = new JumpingClock();
    try {
      RunResult result = Benchmark.target(jumpWhenAllIn(2, clock, deaf)).prompts(PROMPT).clock(clock)
          .load(LoadProfile.concurrency(2).requests(2).timeout(Duration.ofMinutes(1))).run();

      assertThat(result.records()).hasSize(2).allSatisfy(r -> {
        assertThat(r.failure().get().category()).isEqualTo(ErrorCategory.CANCELLED);
        assertThat(r.failure().get().message()).contains("did not stop");
      });
    } finally {
      testOver.countDown();
    }
  }

  @Test
  void closedLoopRequestsItsStreamsNeverReachedAreRecordedAsNotSent() {
    JumpingClock clock = new JumpingClock();
    RunResult result = Benchmark.target(jumpWhenAllIn(1, clock, UNTIL_CANCELLED)).prompts(PROMPT).clock(clock)
        .load(LoadProfile.concurrency(1).requests(3).warmupRequests(1).timeout(Duration.ofMinutes(1))).run();

    assertThat(result.records()).extracting(RequestRecord::index).containsExactly(0L, 1L, 2L, 3L);
    assertThat(result.records().get(0).failure().get().category()).isEqualTo(ErrorCategory.CANCELLED);
    assertThat(result.records().subList(1, 4)).allSatisfy(r ->
        assertThat(r.failure().get().category()).isEqualTo(ErrorCategory.NOT_SENT));
    assertThat(result.records().get(0).warmup()).isTrue();
    assertThat(result.schedule().notSent()).isEqualTo(3);
  }

  @Test
  void closedLoopStoppedByItsDurationDoesNotInventUnsentRequests() {
    JumpingClock clock = new JumpingClock();
    RunResult result = Benchmark.target(jumpWhenAllIn(1, clock, INSTANT)).prompts(PROMPT).clock(clock)
        .load(LoadProfile.concurrency(1).requests(50).duration(Duration.ofMinutes(1))).run();

    // The first request jumps the clock past the duration: issuing stops there, normally.
    assertThat(result.records()).hasSize(1).allMatch(RequestRecord::succeeded);
  }

  @Test
  void openLoopRequestsTheRunNeverReachedAreRecordedAsNotSent() {
    JumpingClock clock = new JumpingClock();
    RunResult result = Benchmark.target(jumpWhenAllIn(1, clock, UNTIL_CANCELLED)).prompts(PROMPT).clock(clock)
        .load(LoadProfile.constantRate(1000).requests(5).maxInFlight(1).timeout(Duration.ofMinutes(1))).run();

    assertThat(result.records()).hasSize(5);
    assertThat(result.records().get(0).failure().get().category()).isEqualTo(ErrorCategory.CANCELLED);
    assertThat(result.records().subList(1, 5)).allSatisfy(r ->
        assertThat(r.failure().get().category()).isEqualTo(ErrorCategory.NOT_SENT));
    assertThat(result.schedule().sent()).isEqualTo(1);
    assertThat(result.schedule().notSent()).isEqualTo(4);
  }

  @Test
  void resultSaysWhatRanWhereAndOnWhichMachine() {
    RunResult result = Benchmark.target(INSTANT).prompts(PROMPT, Prompt.user("b"))
        .load(LoadProfile.concurrency(1).requests(3)).run();

    assertThat(result.promptCount()).isEqualTo(2);
    assertThat(result.environment().availableProcessors()).isPositive();
    assertThat(result.environment().javaVersion()).isEqualTo(System.getProperty("java.version"));
    assertThat(result.durationNanos()).isPositive();
    assertThat(result.toString()).contains("3 requests").contains("closed loop");
  }

  @Test
  void emptyPromptSetIsRejectedWithAClearMessage() {
    assertThatThrownBy(() -> Benchmark.target(INSTANT).prompts(List.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("prompt set is empty");
    assertThatThrownBy(() -> Benchmark.target(INSTANT).run())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("no prompts");
  }

  @Test
  void invalidLoadIsRejectedWithAClearMessage() {
    assertThatThrownBy(() -> LoadProfile.concurrency(0)).hasMessageContaining("concurrency must be > 0");
    assertThatThrownBy(() -> LoadProfile.poisson(-1)).hasMessageContaining("rate must be");
    assertThatThrownBy(() -> LoadProfile.constantRate(0)).hasMessageContaining("rate must be");
    assertThatThrownBy(() -> LoadProfile.poisson(Double.NaN)).hasMessageContaining("rate must be");
    assertThatThrownBy(() -> LoadProfile.concurrency(1).requests(0)).hasMessageContaining("request count");
    assertThatThrownBy(() -> LoadProfile.concurrency(1).maxInFlight(3)).hasMessageContaining("open-loop");
    assertThatThrownBy(() -> Benchmark.target(INSTANT).load(LoadProfile.concurrency(1)))
        .hasMessageContaining("needs a limit");
    assertThatThrownBy(() -> LoadProfile.concurrency(1).duration(Duration.ofSeconds(-1)))
        .hasMessageContaining("duration must be > 0");
  }

  @Test
  void statisticsInputIsUnaffectedByRequestIdsOfOtherRuns() {
    RunResult a = Benchmark.target(INSTANT).prompts(PROMPT).load(LoadProfile.concurrency(1).requests(2)).run();
    RunResult b = Benchmark.target(INSTANT).prompts(PROMPT).load(LoadProfile.concurrency(1).requests(2)).run();
    Set<String> ids = a.records().stream().map(RequestRecord::requestId).collect(Collectors.toSet());
    assertThat(b.records()).extracting(RequestRecord::requestId).doesNotContainAnyElementsOf(ids);
  }

  @Test
  void platformThreadsCanBeChosenOnAnyJavaAndTheResultSaysWhichRan() {
    Set<Boolean> virtual = ConcurrentHashMap.newKeySet();
    Target target = (request, observer, cancellation) -> {
      virtual.add(isVirtual(Thread.currentThread()));
      INSTANT.execute(request, observer, cancellation);
    };

    RunResult platform = Benchmark.target(target).prompts(PROMPT).virtualThreads(false)
        .load(LoadProfile.concurrency(2).requests(4)).run();

    assertThat(virtual).containsExactly(false);
    assertThat(platform.environment().virtualThreads()).isFalse();
    RunResult auto = Benchmark.target(INSTANT).prompts(PROMPT).load(LoadProfile.concurrency(1).requests(1)).run();
    assertThat(auto.environment().virtualThreads()).isEqualTo(Runtime.version().feature() >= 21);
  }

  private static boolean isVirtual(Thread t) {
    try {
      return (boolean) Thread.class.getMethod("isVirtual").invoke(t);
    } catch (ReflectiveOperationException e) {
      return false; // before Java 19 there are no virtual threads
    }
  }
}
