package io.infermark.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.infermark.attribution.change.PercentileChange;
import io.infermark.attribution.pareto.ParetoPoint;
import io.infermark.attribution.phase.LatencyBasis;
import io.infermark.attribution.phase.LatencyPhase;
import io.infermark.attribution.phase.PhaseBreakdown;
import io.infermark.attribution.phase.PhaseDecomposition;
import io.infermark.attribution.phase.RequestPhases;
import io.infermark.attribution.surrogate.FactorImportance;
import io.infermark.attribution.surrogate.FeatureTable;
import io.infermark.attribution.surrogate.SurrogateExplanation;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.sweep.SweepPoint;
import io.infermark.core.workload.RequestSpec;
import io.infermark.core.workload.Workload;
import io.infermark.core.workload.WorkloadTags;
import io.infermark.metrics.LatencyMetric;
import io.infermark.testkit.simulator.PromptTokenizer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Runs the example once at a small size (60 requests per run, 0.3 s of arrivals per sweep level) and
 * checks what it found against what the simulator was told to do. The thresholds were chosen from seeds
 * 1–10 of this size (and 1–5 of the default size), where each held with a margin; the notes give the
 * observed range.
 */
class ExplainTailTest {

  private static ExplainTail.Result result;
  private static String printed;

  @BeforeAll
  static void runTheExampleOnce() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      result = ExplainTail.run(new ExplainTail.Sizes(60, 0.3, 1), out);
    }
    printed = bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void workloadHasExactLengthsAndOneLongPromptInTwenty() {
    Workload workload = ExplainTail.workload(1);
    GenerationParams params = GenerationParams.builder().maxTokens(16).ignoreEos(true).build();
    int longPrompts = 0;
    for (long i = 0; i < 200; i++) {
      RequestSpec spec = workload.request(i, 0, params);
      int tokens = PromptTokenizer.count(spec.prompt().messages().get(0).content());
      int requested = Integer.parseInt(spec.prompt().tags().get(WorkloadTags.INPUT_TOKENS_REQUESTED));
      assertThat(tokens).isEqualTo(requested)
          .isEqualTo(Integer.parseInt(spec.prompt().tags().get(WorkloadTags.INPUT_TOKENS_ACHIEVED)));
      if (i % ExplainTail.LONG_EVERY == ExplainTail.LONG_AT) {
        assertThat(tokens).isBetween(4000, 8000);
        longPrompts++;
      } else {
        assertThat(tokens).isBetween(32, 256);
      }
    }
    assertThat(longPrompts).isEqualTo(10);
    // Texts differ, so the prefix cache cannot shorten a prefill.
    assertThat(workload.request(1, 0, params).prompt().text())
        .isNotEqualTo(workload.request(2, 0, params).prompt().text());
  }

  @Test
  void runAPhasesAddUpToTheSummaryE2e() {
    assertThat(result.summaryA().requests().measured()).isEqualTo(60);
    assertThat(result.summaryA().requests().failed()).isZero();
    double[] phaseTotals = result.phasesA().totals().sortedValuesMillis();
    double[] e2e = result.summaryA().distribution(LatencyMetric.E2E).sortedValuesMillis();
    assertThat(phaseTotals).hasSize(60).containsExactly(e2e, within(1e-9));
    PhaseBreakdown mean = result.phasesA().mean();
    assertThat(Arrays.stream(mean.meanMillis()).sum()).isCloseTo(mean.meanTotalMillis(), within(1e-9));
    assertThat(mean.meanTotalMillis())
        .isCloseTo(result.summaryA().distribution(LatencyMetric.E2E).mean().getAsDouble(), within(1e-9));
    // Headers come at once on a fault-free response: the prefill shows after the first byte, not before.
    assertThat(mean.meanMillis(LatencyPhase.FIRST_BYTE_TO_FIRST_TOKEN))
        .isGreaterThan(mean.meanMillis(LatencyPhase.WAITING));
    assertThat(printed).contains("| total (E2E)", "== Run A", "== Run B", "== Rate sweep");
  }

  @Test
  void surrogatesAddUpAndTheSharedPrefillColumnExplainsTheTail() {
    ExplainTail.Surrogates s = result.surrogates().orElseThrow();
    for (SurrogateExplanation why : List.of(s.own(), s.shared())) {
      assertThat(why.maxEfficiencyGap()).isLessThan(1e-6);
      assertThat(why.requestCount()).isEqualTo(60);
      // Every request asks for 16 tokens: a constant feature gets exactly nothing (Shapley's dummy axiom).
      assertThat(why.importance()).filteredOn(f -> f.factor().equals(FeatureTable.OUTPUT_TOKENS))
          .extracting(FactorImportance::meanAbsShap).containsExactly(0.0);
    }
    assertThat(s.own().factors()).contains(FeatureTable.INPUT_TOKENS)
        .doesNotContain(FeatureTable.OVERLAPPING_PREFILL_TOKENS);
    if (result.runA().clientHealth().isClientBound()) {
      // Beside two CPU hogs run A's client was CLIENT_BOUND with floors of 87-152 ms (48-76 % of the E2E p50): its
      // E2E values are then the client's stalls as much as the server's prefills, and the ranking of what drives
      // them is not the server's. The example must say so instead.
      assertThat(printed).contains("WARNING: run A's client was CLIENT_BOUND");
    } else {
      // Seeds 1-10 run three times at this size: overlapping_prefill_tokens first 29 times, second behind
      // in_flight_at_send (which also rises while a long prefill holds everyone up) once; first in all 10 runs
      // of seeds 1-5 at the default size.
      // Not asserted: the held-out R², measured on 12 requests here, is too noisy to compare the models by.
      assertThat(s.shared().ranking().subList(0, 2)).contains(FeatureTable.OVERLAPPING_PREFILL_TOKENS);
      assertThat(s.shared().ranking().indexOf(FeatureTable.OVERLAPPING_PREFILL_TOKENS))
          .isLessThan(s.shared().ranking().indexOf(FeatureTable.INPUT_TOKENS));
    }
    assertThat(s.shared().fit().testRows()).isEqualTo(12);
    assertThat(s.shared().fit().trainRows()).isEqualTo(48);
  }

  @Test
  void p99MovedBecauseOfTheHeldBackHeaders() {
    // Run B held the headers of two of its requests (arrivals 20 and 40, measured unless the client reordered its
    // first sends) the delay after they arrived, so the client saw them at least the delay after its sends, and
    // waiting holds all of it but what that request's own phases before it took (the request-sent stamp can trail the
    // write the server already has): exact per request, where the run's client floor (a whole-run percentile) is
    // exceeded by chance by one late stamp on a busy machine.
    long delayNanos = ExplainTail.SLOW_HEADERS_MILLIS * 1_000_000;
    PhaseDecomposition phasesB = PhaseDecomposition.of(result.runB(), LatencyBasis.SERVICE_TIME);
    long held = 0;
    for (RequestPhases p : phasesB.requests()) {
      long before = 0;
      for (LatencyPhase phase : p.phases().subList(0, p.phases().indexOf(LatencyPhase.WAITING))) {
        before += p.nanos(phase);
      }
      held += p.nanos(LatencyPhase.WAITING) >= delayNanos - before ? 1 : 0;
    }
    assertThat(held).as("requests whose waiting holds the delay less their own earlier phases").isPositive();
    PhaseBreakdown tailB = phasesB.atOrAbovePercentile(0.99);
    long others = tailB.totalSumNanos() - tailB.sumNanos(LatencyPhase.WAITING);
    if (held >= 2) {
      // Then run B's P99 (between its two slowest of 60) is at least the delay, and the requests at or above it (the
      // held ones) spent it in waiting but for their own other phases (which also take what a long prefill or a stall
      // added to a request that was not held, so this holds under any load), summed in whole nanoseconds.
      assertThat(tailB.thresholdMillis().getAsDouble()).isGreaterThanOrEqualTo(ExplainTail.SLOW_HEADERS_MILLIS);
      assertThat(tailB.sumNanos(LatencyPhase.WAITING)).as("waiting of the %d requests at P99, other phases %d ns",
          tailB.requestCount(), others).isGreaterThanOrEqualTo(tailB.requestCount() * delayNanos - others);
    }
    org.slf4j.LoggerFactory.getLogger(ExplainTailTest.class).info("run B: {} held; at P99 {} requests, waiting {} ms "
        + "a request, their other phases {} ms", held, tailB.requestCount(), tailB.meanMillis(LatencyPhase.WAITING),
        others / 1e6 / tailB.requestCount());

    PercentileChange change = result.change();
    assertThat(change.coupledRequests()).isEqualTo(60);
    assertThat(change.statisticA()).isCloseTo(result.summaryA().distribution(LatencyMetric.E2E).p99().getAsDouble(),
        within(1e-9));
    assertThat(Math.abs(change.efficiencyGap())).isLessThan(1e-9);
    if (result.runA().clientHealth().isClientBound() || result.runB().clientHealth().isClientBound()) {
      // A P99 of 60 requests is nearly their maximum: one request the starved client stalled in run A can
      // outweigh the held-back headers (-113.6 ms once under load 11). The example must say so instead.
      assertThat(printed).contains("WARNING: run ").contains("CLIENT_BOUND");
    } else {
      // 30 quiet runs of seeds 1-10: +542 to +665 ms, waiting +644 to +731 ms (decode negative: the held tokens
      // arrive at once behind the late headers). Under load run A's own tail (the long prefills) grows toward
      // the held-back second (+93 ms, P99 ratio 1.22 once at load 11), so what holds whatever the load is the
      // direction and which phase carries it: no phase contributes more than waiting.
      assertThat(change.change()).isGreaterThan(0);
      double waiting = change.contribution("waiting");
      for (String component : change.components()) {
        assertThat(waiting).as("waiting against %s", component).isGreaterThanOrEqualTo(change.contribution(component));
      }
      assertThat(result.drift().p99Ratio().getAsDouble()).isGreaterThan(1.0);
    }
    assertThat(Arrays.stream(change.contributions()).sum()).isCloseTo(change.change(), within(1e-9));

    assertThat(result.drift().baselineCount()).isEqualTo(60);
  }

  @Test
  void sweepHasAKneeAtASweptLevelAndAParetoFront() {
    assertThat(result.sweep()).extracting(SweepPoint::level)
        .containsExactly(Arrays.stream(ExplainTail.SWEEP_RATES).boxed().toArray(Double[]::new));
    for (SweepPoint<Double> p : result.sweep()) {
      assertThat(p.result().records()).filteredOn(RequestRecord::succeeded).hasSize((int) Math.round(0.3 * p.level()));
    }
    assertThat(result.knees().labels()).hasSize(ExplainTail.SWEEP_RATES.length);
    assertThat(result.knees().kneedleLabel()).get().isIn(result.knees().labels());
    // Kneedle's x is a level's achieved throughput (the seed's axis), one of the levels it saw.
    assertThat(result.knees().kneedle().knee().getAsDouble()).isIn(
        Arrays.stream(result.knees().loads()).boxed().toArray());
    assertThat(result.knees().kneedleLabels()).contains(result.knees().kneedleLabel().orElseThrow());
    assertThat(result.pareto().points()).hasSize(ExplainTail.SWEEP_RATES.length);
    assertThat(result.pareto().front()).isNotEmpty();
    assertThat(result.pareto().hypervolume()).isPositive();
    // Every dominated level has a front level at least as fast and at most as slow.
    for (int i = 0; i < result.pareto().points().size(); i++) {
      if (!result.pareto().isOnFront(i)) {
        ParetoPoint<String> p = result.pareto().points().get(i);
        ParetoPoint<String> d = result.pareto().points().get(result.pareto().dominatorOf(i).getAsInt());
        assertThat(d.throughput()).isGreaterThanOrEqualTo(p.throughput());
        assertThat(d.latencyMillis()).isLessThanOrEqualTo(p.latencyMillis());
      }
    }
  }

  @Test
  void everyRunWhoseClientWasNotOkIsFlaggedWithItsReasons() {
    // Whatever this machine's load made of the runs, each untrusted one is named next to its figures.
    for (String[] run : new String[][] {{"run A", "A"}, {"run B", "B"}}) {
      var health = (run[1].equals("A") ? result.runA() : result.runB()).clientHealth();
      assertThat(health.isMeasured()).isTrue();
      if (health.isWarning()) {
        assertThat(printed).contains("WARNING: " + run[0] + "'s client was " + health.verdict(), health.reasonText());
      } else {
        assertThat(printed).doesNotContain("WARNING: " + run[0] + "'s client");
      }
    }
    assertThat(printed.contains("WARNING: the comparison below rests on a run whose client did not keep up"))
        .isEqualTo(result.runA().clientHealth().isWarning() || result.runB().clientHealth().isWarning());
    for (String warning : result.knees().clientWarnings()) {
      assertThat(printed).contains("  WARNING client not trustworthy at " + warning);
    }
    assertThat(result.knees().clientWarnings()).hasSize(
        (int) result.sweep().stream().filter(p -> p.clientHealth().isWarning()).count());
  }
}
