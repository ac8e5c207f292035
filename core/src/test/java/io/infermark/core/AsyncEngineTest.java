package io.infermark.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.Usage;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Prompt;
import io.infermark.core.time.Clock;
import io.infermark.core.transport.Cancellation;
import io.infermark.core.workload.RequestSpec;
import io.infermark.core.workload.Workload;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The engine with asynchronous targets: no thread per request, every request one record. */
class AsyncEngineTest {

  private static final Clock CLOCK = Clock.system();
  private static final Prompt PROMPT = Prompt.user("hello");

  private final ScheduledExecutorService io = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "fake-io");
    t.setDaemon(true);
    return t;
  });

  @AfterEach
  void stopIo() {
    io.shutdownNow();
  }

  /** An event-loop-like target: answers each request 1 ms later on its one I/O thread. */
  private final class LoopTarget implements Target {
    final Set<String> startingThreads = ConcurrentHashMap.newKeySet();
    final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger maxInFlight = new AtomicInteger();
    volatile long sendDelayNanos;
    volatile List<io.infermark.core.health.Probe> probes = List.of();

    @Override
    public List<io.infermark.core.health.Probe> healthProbes() {
      return probes;
    }

    @Override
    public boolean isAsync() {
      return true;
    }

    @Override
    public void execute(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
      throw new AssertionError("an asynchronous target must be started, not executed");
    }

    @Override
    public void start(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
      startingThreads.add(Thread.currentThread().getName());
      maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
      long handed = CLOCK.nanoTime();
      io.schedule(() -> {
        observer.onSend(handed + sendDelayNanos);
        observer.onResponseHeaders(200, CLOCK.nanoTime());
        observer.onChunk(CLOCK.nanoTime(), ChunkKind.CONTENT, 1);
        observer.onUsage(Usage.of(3, 1));
        inFlight.decrementAndGet();
        observer.onComplete(CLOCK.nanoTime());
      }, 1, TimeUnit.MILLISECONDS);
    }
  }

  @Test
  void closedLoopOnAnAsyncTargetHoldsItsConcurrencyWithoutAThreadPerStream() {
    LoopTarget target = new LoopTarget();
    RunResult result = Benchmark.target(target).prompts(PROMPT)
        .load(LoadProfile.concurrency(8).requests(200).warmupRequests(8)).run();

    assertThat(result.records()).hasSize(208).allMatch(RequestRecord::succeeded);
    assertThat(result.records()).extracting(RequestRecord::index).doesNotHaveDuplicates();
    assertThat(target.maxInFlight.get()).isEqualTo(8);
    assertThat(target.startingThreads).containsExactly("infermark-sender");
  }

  @Test
  void closedLoopThinkTimeSeparatesAStreamsRequests() {
    LoopTarget target = new LoopTarget();
    RunResult result = Benchmark.target(target).prompts(PROMPT)
        .load(LoadProfile.concurrency(1).requests(4).thinkTime(Duration.ofMillis(20))).run();

    List<RequestRecord> r = result.records();
    assertThat(r).hasSize(4).allMatch(RequestRecord::succeeded);
    for (int i = 1; i < r.size(); i++) {
      long previousEnd = r.get(i - 1).sendNanos() + r.get(i - 1).endOffsetNanos();
      assertThat(r.get(i).intendedNanos() - previousEnd).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }

  @Test
  void openLoopStartsAsyncRequestsFromTheIssuingThread() {
    LoopTarget target = new LoopTarget();
    RunResult result = Benchmark.target(target).prompts(PROMPT)
        .load(LoadProfile.constantRate(500).requests(50)).run();

    assertThat(result.records()).hasSize(50).allMatch(RequestRecord::succeeded);
    assertThat(target.startingThreads).hasSize(1).noneMatch(n -> n.startsWith("infermark-request"));
  }

  @Test
  void theSendTimeAReportedSendGivesIsWhereLatencyStartsAndLagIncludesTheDelay() {
    LoopTarget target = new LoopTarget();
    target.sendDelayNanos = TimeUnit.MILLISECONDS.toNanos(5);
    RunResult result = Benchmark.target(target).prompts(PROMPT).load(LoadProfile.constantRate(100).requests(5)).run();

    assertThat(result.records()).allSatisfy(r ->
        assertThat(r.scheduleLagNanos()).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(5)));
  }

  /** An asynchronous target whose {@code start} is {@code start}; it must never be executed. */
  private static Target async(Target start) {
    return new Target() {
      @Override
      public boolean isAsync() {
        return true;
      }

      @Override
      public void execute(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
        throw new AssertionError("an asynchronous target must be started, not executed");
      }

      @Override
      public void start(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
        start.execute(request, observer, cancellation);
      }
    };
  }

  /** Returns null for request 3 and throws for request 5. */
  private static final Workload CARELESS = (index, intended, defaults) -> {
    if (index == 3) {
      return null;
    }
    if (index == 5) {
      throw new IllegalStateException("no prompt for 5");
    }
    return new RequestSpec(PROMPT, defaults);
  };

  @Test
  void aCarelessWorkloadFailsOnlyItsOwnRequestsInEveryLoop() {
    for (LoadProfile load : List.of(LoadProfile.constantRate(1000).requests(10), LoadProfile.concurrency(2).requests(10))) {
      for (Target target : List.of(new LoopTarget(), OneTokenTarget.INSTANCE)) {
        RunResult result = Benchmark.target(target).workload(CARELESS).load(load.timeout(Duration.ofSeconds(30))).run();

        assertThat(result.records()).as("%s on %s", load, target).hasSize(10);
        assertThat(result.records()).extracting(RequestRecord::index).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L,
            8L, 9L);
        RequestRecord nul = result.records().get(3);
        RequestRecord threw = result.records().get(5);
        assertThat(nul.failure().orElseThrow().category()).isEqualTo(ErrorCategory.CLIENT);
        assertThat(nul.failure().orElseThrow().message()).contains("returned null");
        assertThat(threw.failure().orElseThrow().category()).isEqualTo(ErrorCategory.CLIENT);
        assertThat(threw.failure().orElseThrow().message()).contains("no prompt for 5");
        assertThat(result.records()).filteredOn(RequestRecord::succeeded).hasSize(8);
      }
    }
  }

  @Test
  void anAsyncTargetThatThrowsOnStartYieldsOneClientRecordPerRequest() {
    Target throwing = async((request, observer, cancellation) -> {
      throw new IllegalStateException("event loop is shut down");
    });
    RunResult result = Benchmark.target(throwing).prompts(PROMPT).load(LoadProfile.concurrency(2).requests(6)).run();

    assertThat(result.records()).hasSize(6).allSatisfy(r -> {
      assertThat(r.failure().orElseThrow().category()).isEqualTo(ErrorCategory.CLIENT);
      assertThat(r.failure().orElseThrow().message()).contains("event loop is shut down");
    });
  }

  @Test
  void anAsyncTargetThatNeverAnswersIsCancelledAndRecordedAtTheDeadline() {
    Target silent = async((request, observer, cancellation) -> {
      // never reports, not even on cancellation
    });
    JumpingClock clock = new JumpingClock();
    Benchmark bench = Benchmark.target(silent).prompts(PROMPT).clock(clock)
        .load(LoadProfile.concurrency(3).requests(9).timeout(Duration.ofSeconds(1)));
    RunResult result = bench.run();

    assertThat(result.records()).hasSize(9);
    assertThat(result.records().subList(0, 3)).allSatisfy(r ->
        assertThat(r.failure().orElseThrow().category()).isEqualTo(ErrorCategory.CANCELLED));
    assertThat(result.records().subList(3, 9)).allSatisfy(r ->
        assertThat(r.failure().orElseThrow().category()).isEqualTo(ErrorCategory.NOT_SENT));
  }

  @Test
  void theClientsHealthIsJudgedOverTheMeasuredPartOfARunNotItsWarmup() {
    // A probe whose n-th measurement reports n ms of lateness, so the reading says which one was kept.
    java.util.concurrent.atomic.AtomicInteger started = new java.util.concurrent.atomic.AtomicInteger();
    io.infermark.core.health.Probe probe = new io.infermark.core.health.Probe() {
      @Override
      public String name() {
        return "numbered";
      }

      @Override
      public Measurement start() {
        long n = started.incrementAndGet();
        return () -> new io.infermark.core.health.LatencyStats(1, n * 1_000_000, n * 1_000_000, n * 1_000_000,
            n * 1_000_000);
      }
    };
    LoopTarget probed = new LoopTarget();
    probed.probes = List.of(probe);

    RunResult warmed = Benchmark.target(probed).prompts(PROMPT)
        .load(LoadProfile.concurrency(2).requests(10).warmupRequests(4)).run();
    assertThat(started.get()).isEqualTo(2); // the run's start, then the first measured request
    assertThat(warmed.clientHealth().measurements().orElseThrow().probes().get(0).lateness().maxNanos())
        .isEqualTo(2_000_000);

    started.set(0);
    RunResult cold = Benchmark.target(probed).prompts(PROMPT).load(LoadProfile.concurrency(2).requests(10)).run();
    assertThat(started.get()).isEqualTo(1); // no warmup: the whole run is measured
    assertThat(cold.clientHealth().measurements().orElseThrow().probes().get(0).lateness().maxNanos())
        .isEqualTo(1_000_000);
  }
}
