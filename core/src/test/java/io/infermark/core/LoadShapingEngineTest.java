package io.infermark.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.control.ControlSignal;
import io.infermark.core.control.ControlStep;
import io.infermark.core.control.PidController;
import io.infermark.core.load.ArrivalProcess;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.load.RateLimits;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.shard.StartBarrier;
import io.infermark.core.workload.RequestSpec;
import io.infermark.core.workload.Workload;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LoadShapingEngineTest {

  private static final Prompt PROMPT = Prompt.user("hello");
  private static final Target INSTANT = OneTokenTarget.INSTANCE;

  @Test
  void workloadSetsEachRequestsPromptAndParameters() {
    Map<String, Integer> maxTokensById = new ConcurrentHashMap<>();
    Target target = (request, observer, cancellation) -> {
      maxTokensById.put(request.prompt().text(), request.params().maxTokens().orElse(-1));
      INSTANT.execute(request, observer, cancellation);
    };
    Workload w = (index, intendedNanos, defaults) ->
        new RequestSpec(Prompt.user("p" + index).withTag("i", Long.toString(index)),
            RequestSpec.exactOutput(defaults, 10 + (int) index));

    RunResult result = Benchmark.target(target).workload(w)
        .params(GenerationParams.builder().temperature(0).build())
        .load(LoadProfile.constantRate(5000).requests(6)).run();

    assertThat(maxTokensById).containsEntry("p0", 10).containsEntry("p5", 15).hasSize(6);
    assertThat(result.records()).extracting(r -> r.tags().get("i")).containsExactly("0", "1", "2", "3", "4", "5");
  }

  @Test
  void cooldownRequestsComeLastAndAreExcludedLikeWarmup() {
    RunResult result = Benchmark.target(INSTANT).prompts(PROMPT)
        .load(LoadProfile.concurrency(2).requests(10).warmupRequests(3).cooldownRequests(4)).run();

    assertThat(result.records()).hasSize(17);
    assertThat(result.records().stream().filter(RequestRecord::cooldown).map(RequestRecord::index))
        .containsExactly(13L, 14L, 15L, 16L);
    assertThat(result.measured()).hasSize(10).extracting(RequestRecord::index)
        .containsExactlyElementsOf(java.util.stream.LongStream.range(3, 13).boxed().toList());
    assertThat(result.schedule().sent()).isEqualTo(10);
  }

  @Test
  void timeWindowsFlagRequestsByIntendedTime() {
    // 1000 req/s for 100 ms: intended at 0, 1, ..., 99 ms. Warmup < 10 ms, cooldown >= 80 ms.
    RunResult result = Benchmark.target(INSTANT).prompts(PROMPT)
        .load(LoadProfile.constantRate(1000).duration(Duration.ofMillis(100)).warmup(Duration.ofMillis(10))
            .cooldown(Duration.ofMillis(20)))
        .run();

    assertThat(result.records()).hasSize(100);
    for (RequestRecord r : result.records()) {
      assertThat(r.warmup()).as("warmup #%d", r.index()).isEqualTo(r.index() < 10);
      assertThat(r.cooldown()).as("cooldown #%d", r.index()).isEqualTo(r.index() >= 80);
    }
    assertThat(result.measured()).hasSize(70);
    assertThat(result.schedule().sent() + result.schedule().notSent()).isEqualTo(70);
  }

  @Test
  void cooldownTimeNeedsADuration() {
    assertThatThrownBy(() -> LoadProfile.constantRate(10).requests(5).cooldown(Duration.ofSeconds(1)).validate())
        .hasMessageContaining("call duration(d) too");
    assertThatThrownBy(() -> LoadProfile.constantRate(10).duration(Duration.ofSeconds(2))
        .warmup(Duration.ofSeconds(1)).cooldown(Duration.ofSeconds(1)).validate())
        .hasMessageContaining("leave nothing");
    assertThatThrownBy(() -> LoadProfile.constantRate(10).thinkTime(Duration.ofSeconds(1)))
        .hasMessageContaining("closed-loop");
  }

  @Test
  void aWarmupAsLongAsTheDurationIsRejected() {
    // Before: accepted, and the run gave 19 records with none measured.
    assertThatThrownBy(() -> LoadProfile.constantRate(10).duration(Duration.ofSeconds(2))
        .warmup(Duration.ofSeconds(3)).validate()).isInstanceOf(IllegalStateException.class)
        .hasMessage("warmup PT3S covers the whole duration PT2S: every request would be warmup and nothing "
            + "measured; shorten the warmup or lengthen the duration");
    assertThatThrownBy(() -> LoadProfile.concurrency(2).duration(Duration.ofSeconds(2))
        .warmup(Duration.ofSeconds(2)).validate()).hasMessageContaining("covers the whole duration");
    assertThatThrownBy(() -> Benchmark.target(INSTANT).prompts(PROMPT).load(LoadProfile.constantRate(10)
        .warmup(Duration.ofSeconds(3)).duration(Duration.ofSeconds(2)))).hasMessageContaining("covers the whole");
    LoadProfile.constantRate(10).duration(Duration.ofSeconds(2)).warmup(Duration.ofMillis(1999)).validate();
  }

  @Test
  void closedLoopStreamsWaitTheirThinkTimeBetweenRequests() {
    RunResult result = Benchmark.target(INSTANT).prompts(PROMPT)
        .load(LoadProfile.concurrency(1).requests(4).thinkTime(Duration.ofMillis(15))).run();

    List<RequestRecord> r = result.records();
    for (int i = 1; i < r.size(); i++) {
      long previousEnd = r.get(i - 1).sendNanos() + r.get(i - 1).endOffsetNanos();
      assertThat(r.get(i).sendNanos() - previousEnd).isGreaterThanOrEqualTo(15_000_000L);
    }
  }

  @Test
  void requestRateLimitPacesSendsAndTheWaitIsLag() {
    RunResult result = Benchmark.target(INSTANT).prompts(PROMPT)
        .load(LoadProfile.constantRate(100_000).requests(20)
            .limits(RateLimits.none().requestsPerSecond(2000))).run();

    List<RequestRecord> r = result.records();
    for (int i = 1; i < r.size(); i++) {
      // Reserved slots are exactly 0.5 ms apart from the first, which is no earlier than its intended 0;
      // a request is sent no earlier than its slot.
      assertThat(r.get(i).sendNanos()).isGreaterThanOrEqualTo(i * 500_000L - 1);
    }
    // Intended 10 µs apart but paced at 0.5 ms: the last waited at least 19 × 0.49 ms.
    assertThat(r.get(19).scheduleLagNanos()).isGreaterThan(19 * 490_000L - 200_000L);
  }

  @Test
  void tokenRateLimitChargesInputPlusMaxTokens() {
    // Each request costs estimate("hello") = 1 + max_tokens 99 = 100 tokens; 200,000 tokens/s → 0.5 ms apart.
    RunResult result = Benchmark.target(INSTANT).prompts(PROMPT)
        .params(GenerationParams.builder().maxTokens(99).build())
        .load(LoadProfile.constantRate(100_000).requests(10)
            .limits(RateLimits.none().tokensPerSecond(200_000))).run();
    List<RequestRecord> r = result.records();
    for (int i = 1; i < r.size(); i++) {
      assertThat(r.get(i).sendNanos()).isGreaterThanOrEqualTo(i * 500_000L - 1);
    }
  }

  @Test
  void concurrentStreamsLimitCapsAnOpenLoop() {
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger peak = new AtomicInteger();
    CountDownLatch threeIn = new CountDownLatch(3);
    Target target = (request, observer, cancellation) -> {
      peak.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
      threeIn.countDown();
      try {
        threeIn.await(); // the first three meet, proving three can be in flight together
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      inFlight.decrementAndGet();
      INSTANT.execute(request, observer, cancellation);
    };

    RunResult result = Benchmark.target(target).prompts(PROMPT)
        .load(LoadProfile.constantRate(50_000).requests(30).limits(RateLimits.none().concurrentStreams(3))).run();

    assertThat(peak.get()).isEqualTo(3);
    assertThat(result.records()).hasSize(30).allMatch(RequestRecord::succeeded);
  }

  @Test
  void shardsSendDisjointPartsWhoseUnionIsTheWholeSchedule() {
    LoadProfile whole = LoadProfile.arrivals(ArrivalProcess.poisson(20_000)).requests(50).seed(9);
    RunResult single = Benchmark.target(INSTANT).prompts(PROMPT).load(whole).run();
    java.util.Set<String> union = new java.util.HashSet<>();
    int total = 0;
    for (int i = 0; i < 3; i++) {
      RunResult shard = Benchmark.target(INSTANT).prompts(PROMPT).load(whole.shard(i, 3)).run();
      for (RequestRecord r : shard.records()) {
        assertThat(r.index() % 3).isEqualTo(i);
        union.add(r.index() + "@" + r.intendedNanos());
      }
      total += shard.records().size();
    }
    assertThat(total).isEqualTo(50);
    assertThat(union).containsExactlyInAnyOrderElementsOf(
        single.records().stream().map(r -> r.index() + "@" + r.intendedNanos()).toList());
  }

  @Test
  void startBarrierHoldsTheRunUntilTheWallClockReachesIt() {
    Instant start = Instant.parse("2030-01-01T00:00:00Z");
    AtomicLong reads = new AtomicLong();
    // A wall clock that moves one minute per reading: the barrier one hour ahead opens on the 61st.
    java.time.Clock wall = new java.time.Clock() {
      @Override
      public java.time.ZoneId getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public java.time.Clock withZone(java.time.ZoneId zone) {
        return this;
      }

      @Override
      public Instant instant() {
        return start.plus(Duration.ofMinutes(reads.getAndIncrement()));
      }
    };
    RunResult result = Benchmark.target(INSTANT).prompts(PROMPT)
        .startBarrier(StartBarrier.at(start.plus(Duration.ofHours(1))).wallClock(wall))
        .load(LoadProfile.concurrency(1).requests(1)).run();

    assertThat(reads.get()).isEqualTo(61);
    assertThat(result.startedAt()).isEqualTo(start.plus(Duration.ofHours(1)));
  }

  @Test
  void controlledRunLowersTheRateWhileTheSignalIsAboveTargetAndRecordsItsTrajectory() {
    // The caller's signal reads twice the target: relative error -1 every step.
    ControlSignal overloaded = ControlSignal.of("queue length", t -> OptionalDouble.of(20));
    PidController pid = PidController.builder(overloaded, 10).initialRate(2000).rateRange(100, 4000)
        .gains(500, 0, 0).interval(Duration.ofMillis(20)).build();

    RunResult result = Benchmark.target(INSTANT).prompts(PROMPT)
        .load(LoadProfile.controlled(pid).duration(Duration.ofMillis(150))).run();

    List<ControlStep> steps = result.control();
    assertThat(steps.size()).isBetween(6, 9); // the start plus one per 20 ms before 150 ms
    assertThat(steps.get(0).rate()).isEqualTo(2000);
    assertThat(steps.get(0).measured()).isEmpty();
    assertThat(steps.subList(1, steps.size())).allSatisfy(s -> {
      assertThat(s.measured()).hasValue(20);
      assertThat(s.rate()).isEqualTo(1500); // 2000 + 500 × (10 − 20) / 10
    });
    // 20 ms at 2000/s then 1500/s: the records' spacing follows the rate the controller set.
    List<RequestRecord> r = result.records();
    assertThat(r.get(1).intendedNanos() - r.get(0).intendedNanos()).isEqualTo(500_000L);
    assertThat(r.get(r.size() - 1).intendedNanos() - r.get(r.size() - 2).intendedNanos()).isEqualTo(666_667L);
    assertThat(result.schedule().requestedRate()).isEmpty();
  }

  @Test
  void controlledProfilesCannotBeSharded() {
    PidController pid = PidController.builder(ControlSignal.ttftP99(10), 1).build();
    assertThatThrownBy(() -> LoadProfile.controlled(pid).duration(Duration.ofSeconds(1)).shard(0, 2))
        .hasMessageContaining("cannot be sharded");
    assertThatThrownBy(() -> LoadProfile.concurrency(2).requests(2).shard(0, 2))
        .hasMessageContaining("open-loop");
    assertThatThrownBy(() -> LoadProfile.constantRate(1).requests(2).shard(2, 2))
        .hasMessageContaining("shard index must be in [0, 2)");
  }
}
