package io.infermark.testkit.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Known answers of the serving engine in virtual time. Expected step costs are the
 * {@link EngineProfile} formulas evaluated by hand (python3) for the 8B/H200 profile.
 */
class VirtualEngineTest {

  private static final EngineProfile H200 = EngineProfile.llama8bH200();

  private static EngineRequest at(String id, long millis, int prompt, int output) {
    return EngineRequest.of(id, Duration.ofMillis(millis), prompt, output);
  }

  @Test
  void aloneARequestsTtftIsOnePrefillStepAndEachNextTokenOneDecodeStep() {
    SequenceTimeline t = VirtualEngine.of(H200).submit(at("a", 0, 512, 4)).run().timeline("a");

    // 2.3 + 2.3 + 0.0223*512 + 6.5e-7*512^2 = 16.1879936 ms
    assertThat(t.timeToFirstTokenNanos()).hasValue(16_187_994);
    assertThat(t.queueNanos()).hasValue(0);
    assertThat(t.prefillEndNanos()).hasValue(t.tokenNanos(0));
    // 2.3 + 4.17 + 0.0124 + 2.9e-5 * context, context 512, 513, 514
    assertThat(t.tokenNanos(1) - t.tokenNanos(0)).isEqualTo(6_497_248);
    assertThat(t.tokenNanos(2) - t.tokenNanos(1)).isEqualTo(6_497_277);
    assertThat(t.tokenNanos(3) - t.tokenNanos(2)).isEqualTo(6_497_306);
    assertThat(t.finishNanos()).hasValue(t.tokenNanos(3));
  }

  @Test
  void profileCostsAreTheCalibrationFitsAndStayCloseToTheMeasuredRows() {
    // calibration/h200-llama8b-shape-step-cost.csv: {batch, context, step_ms_all_32_layers} (decode rows)
    double[][] decode = {{1, 512, 4.337}, {8, 512, 4.491}, {32, 512, 4.929}, {64, 512, 5.545}, {128, 512, 8.026},
        {256, 512, 11.148}, {1, 2048, 4.302}, {8, 2048, 4.900}, {32, 2048, 6.355}, {64, 2048, 8.359},
        {128, 2048, 13.697}, {256, 2048, 22.370}, {1, 8192, 4.583}, {8, 8192, 6.339}, {32, 8192, 11.972},
        {64, 8192, 19.707}, {128, 8192, 36.417}};
    for (double[] row : decode) {
      double gpu = H200.decodeStepMillis((int) row[0], (long) row[1]) - H200.stepOverheadMs();
      assertThat(gpu).as("decode batch %s context %s", row[0], row[1]).isCloseTo(row[2], within(0.07 * row[2]));
    }
    // {tokens, ms}: the quadratic fit is within 1 % for long prompts, 10-17 % off for short ones.
    double[][] prefill = {{128, 6.184, 0.17}, {512, 12.607, 0.11}, {2048, 51.135, 0.01}, {8192, 229.159, 0.01}};
    for (double[] row : prefill) {
      double gpu = H200.prefillStepMillis((int) row[0]) - H200.stepOverheadMs();
      assertThat(gpu).as("prefill %s tokens", row[0]).isCloseTo(row[1], within(row[2] * row[1]));
    }
    assertThat(H200.stepOverheadMs()).isEqualTo(2.3); // 2 ms engine overhead + 0.3 ms LM head
  }

  @Test
  void decodeCostGrowsWithBatch() {
    EngineRun run = VirtualEngine.of(H200).submit(at("a", 0, 100, 3)).submit(at("b", 0, 100, 3)).run();
    SequenceTimeline a = run.timeline("a");

    // One step prefills both: 2.3 + 2.3 + 2 * (0.0223*100 + 6.5e-7*100^2) = 9.073 ms
    assertThat(a.tokenNanos(0)).isEqualTo(9_073_000);
    assertThat(run.timeline("b").tokenNanos(0)).isEqualTo(9_073_000);
    // Then both decode together: 2.3 + 4.17 + 2 * (0.0124 + 2.9e-5*100) = 6.5006 ms
    assertThat(a.tokenNanos(1) - a.tokenNanos(0)).isEqualTo(6_500_600);
    assertThat(run.stats().steps()).isEqualTo(3);
  }

  @Test
  void longPromptIsPrefilledInChunksOfTheTokenBudget() {
    EngineProfile small = H200.toBuilder().maxBatchedTokens(1024).build();
    SequenceTimeline t = VirtualEngine.of(small).submit(at("a", 0, 3000, 1)).run().timeline("a");

    // Three steps of 1024, 1024 and 952 tokens; the quadratic terms telescope to 6.5e-7 * 3000^2:
    // 3 * (2.3 + 2.3) + 0.0223*3000 + 6.5e-7*3000^2 = 86.55 ms (each step rounded to the nanosecond).
    assertThat(t.timeToFirstTokenNanos().getAsLong()).isCloseTo(86_550_000L, within(3L));
  }

  @Test
  void belowCapacityNothingQueuesAndEveryTtftIsOnePrefillStep() {
    List<EngineRequest> requests = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      requests.add(at("r" + i, i * 200L, 512, 8)); // each is done in ~62 ms, long before the next
    }
    EngineRun run = VirtualEngine.of(H200).submitAll(requests).run();

    for (SequenceTimeline t : run.timelines()) {
      assertThat(t.queueNanos()).hasValue(0);
      assertThat(t.timeToFirstTokenNanos()).hasValue(16_187_994);
    }
    assertThat(run.stats().peakWaiting()).isEqualTo(1);
    assertThat(run.stats().preemptions()).isZero();
  }

  @Test
  void overlappingRequestsBelowTheLimitsWaitAtMostOneStep() {
    List<EngineRequest> requests = poisson(400, 50, 256, 64, 3); // ~50 req/s: well under capacity
    EngineRun run = VirtualEngine.of(H200).submitAll(requests).run();

    long longestStep = Math.round(H200.prefillStepMillis(256 * 8) * 1e6 + 10 * H200.decodeStepMillis(16, 400) * 1e6);
    for (SequenceTimeline t : run.timelines()) {
      assertThat(t.queueNanos().getAsLong()).isLessThan(longestStep);
    }
    assertThat(run.stats().peakRunning()).isLessThan(H200.maxRunningSequences());
  }

  @Test
  void aboveCapacityTheQueueGrowsAndTtftRises() {
    EngineProfile knee = EngineProfile.earlySaturation();
    List<EngineRequest> requests = new ArrayList<>();
    for (int i = 0; i < 120; i++) {
      requests.add(at("r" + i, i * 2L, 128, 128)); // 500 req/s of 128 tokens: far past 16 sequences' capacity
    }
    EngineRun run = VirtualEngine.of(knee).submitAll(requests).run();

    assertThat(run.stats().peakRunning()).isEqualTo(16);
    assertThat(run.stats().peakWaiting()).isGreaterThan(80);
    double early = meanTtftMillis(run.timelines().subList(0, 16));
    double late = meanTtftMillis(run.timelines().subList(100, 120));
    assertThat(early).isLessThan(50);
    assertThat(late).isGreaterThan(10 * early);
    // Admission is first come, first served.
    for (int i = 1; i < 120; i++) {
      assertThat(run.timelines().get(i).admissionNanos().getAsLong())
          .isGreaterThanOrEqualTo(run.timelines().get(i - 1).admissionNanos().getAsLong());
    }
  }

  @Test
  void littlesLawHoldsBetweenTheEnginesQueueAndTheRequestsTimes() {
    List<EngineRequest> requests = poisson(2000, 120, 300, 100, 11);
    EngineRun run = VirtualEngine.of(H200).submitAll(requests).run();

    long start = run.timelines().get(0).arrivalNanos();
    double elapsed = run.endNanos() - start;
    double meanInSystem = run.stats().inSystemNanoIntegral() / elapsed; // L, from the engine's own counts
    double lambda = requests.size() / elapsed;
    double meanTime = run.timelines().stream()
        .mapToLong(t -> t.finishNanos().getAsLong() - t.arrivalNanos()).average().orElseThrow(); // W
    assertThat(meanInSystem).isGreaterThan(5); // a real queue, not a trivial one
    assertThat(meanInSystem).isCloseTo(lambda * meanTime, within(1e-6 * meanInSystem));
  }

  @Test
  void exhaustingTheKvCachePreemptsAndRecomputesButEveryRequestFinishes() {
    // 20 blocks = 320 tokens; four sequences of 64 + 100 tokens need 4 * 11 blocks at the end.
    EngineProfile tight = H200.toBuilder().kvCacheBlocks(20).build();
    List<EngineRequest> requests = List.of(at("a", 0, 64, 100), at("b", 0, 64, 100), at("c", 0, 64, 100),
        at("d", 0, 64, 100));
    EngineRun run = VirtualEngine.of(tight).submitAll(requests).run();
    EngineRun roomy = VirtualEngine.of(H200).submitAll(requests).run();

    assertThat(run.stats().preemptions()).isPositive();
    assertThat(roomy.stats().preemptions()).isZero();
    assertThat(run.stats().peakKvBlocksUsed()).isLessThanOrEqualTo(20);
    for (SequenceTimeline t : run.timelines()) {
      assertThat(t.tokenCount()).isEqualTo(100);
      for (int i = 1; i < 100; i++) {
        assertThat(t.tokenNanos(i)).isGreaterThan(t.tokenNanos(i - 1));
      }
    }
    SequenceTimeline preempted = run.timelines().stream().filter(t -> t.preemptions() > 0).findFirst().orElseThrow();
    assertThat(preempted.finishNanos().getAsLong())
        .isGreaterThan(roomy.timeline(preempted.id()).finishNanos().getAsLong());
    assertThat(run.stats().generationTokens()).isEqualTo(400);
    assertThat(run.stats().kvBlocksUsed()).isZero();
  }

  @Test
  void aPrefixHitCutsTtftByExactlyTheSkippedPrefill() {
    EngineRun run = VirtualEngine.of(H200)
        .submit(at("first", 0, 600, 2).withSharedPrefix(1, 512))
        .submit(at("second", 1000, 600, 2).withSharedPrefix(1, 512))
        .submit(at("stranger", 2000, 600, 2).withSharedPrefix(2, 512))
        .run();

    SequenceTimeline first = run.timeline("first");
    SequenceTimeline second = run.timeline("second");
    assertThat(first.cachedPromptTokens()).isZero();
    assertThat(second.cachedPromptTokens()).isEqualTo(512);
    assertThat(run.timeline("stranger").cachedPromptTokens()).isZero();
    // Skipped: 0.0223*512 + 6.5e-7*512^2 = 11.5879936 ms
    long saved = first.timeToFirstTokenNanos().getAsLong() - second.timeToFirstTokenNanos().getAsLong();
    assertThat(saved).isCloseTo(11_587_994L, within(1L));
    assertThat(run.stats().prefixHitTokens()).isEqualTo(512);
    assertThat(run.stats().prefixQueryTokens()).isEqualTo(1800);
  }

  @Test
  void onlyFullBlocksOfTheSharedPrefixHitAndNeverTheWholePrompt() {
    EngineRun run = VirtualEngine.of(H200)
        .submit(at("a", 0, 500, 1).withSharedPrefix(1, 500))
        .submit(at("b", 1000, 500, 1).withSharedPrefix(1, 500))
        .submit(at("c", 2000, 480, 1).withSharedPrefix(1, 480))
        .run();

    assertThat(run.timeline("b").cachedPromptTokens()).isEqualTo(496); // 31 full blocks of 16
    // 480 tokens are 30 full blocks, but the last token must be computed: 29 blocks hit.
    assertThat(run.timeline("c").cachedPromptTokens()).isEqualTo(464);
  }

  @Test
  void evictionTakesTheLeastRecentlyUsedBlocksTailsFirst() {
    EngineProfile small = H200.toBuilder().kvCacheBlocks(64).build();
    EngineRun run = VirtualEngine.of(small)
        .submit(at("a", 0, 512, 1).withSharedPrefix(1, 512))
        .submit(at("other", 1000, 512, 1).withSharedPrefix(2, 512)) // 33 blocks: evicts 1 of a's 32
        .submit(at("again", 2000, 512, 1).withSharedPrefix(1, 512))
        .run();

    // a's tail block went first; its first 31 blocks still hit.
    assertThat(run.timeline("again").cachedPromptTokens()).isEqualTo(31 * 16);
  }

  @Test
  void runsAreDeterministic() {
    List<EngineRequest> requests = poisson(300, 200, 400, 120, 5);
    EngineProfile tight = EngineProfile.earlySaturation().toBuilder().kvCacheBlocks(200).build();

    EngineRun one = VirtualEngine.of(tight).submitAll(requests).run();
    EngineRun two = VirtualEngine.of(tight).submitAll(requests).run();

    assertThat(one.timelines()).isEqualTo(two.timelines());
    assertThat(one.stats()).isEqualTo(two.stats());
    assertThat(one.stats().preemptions()).isPositive();
  }

  @Test
  void requestsThatCanNeverFitAreRejected() {
    EngineProfile tiny = H200.toBuilder().kvCacheBlocks(4).build();
    assertThatThrownBy(() -> VirtualEngine.of(tiny).submit(at("big", 0, 60, 10)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs 5 KV blocks but the cache has 4");
    assertThatThrownBy(() -> VirtualEngine.of(H200).submit(at("a", 0, 1, 1)).submit(at("a", 1, 1, 1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'a' was already submitted");
  }

  private static double meanTtftMillis(List<SequenceTimeline> timelines) {
    return timelines.stream().mapToLong(t -> t.timeToFirstTokenNanos().getAsLong()).average().orElseThrow() / 1e6;
  }

  /** {@code n} requests with exponential gaps at {@code ratePerSecond}, prompts and outputs varying ±50 %. */
  private static List<EngineRequest> poisson(int n, double ratePerSecond, int prompt, int output, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<EngineRequest> requests = new ArrayList<>();
    double t = 0;
    for (int i = 0; i < n; i++) {
      t += -Math.log(1 - random.nextDouble()) / ratePerSecond;
      requests.add(new EngineRequest("r" + i, Math.round(t * 1e9), prompt / 2 + random.nextInt(prompt),
          output / 2 + random.nextInt(output), 0, 0));
    }
    return requests;
  }
}
