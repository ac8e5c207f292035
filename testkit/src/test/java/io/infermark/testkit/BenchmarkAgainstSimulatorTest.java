package io.infermark.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.TokenCountSource;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.stats.QuantileMethod;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import io.infermark.testkit.simulator.EngineProfile;
import io.infermark.testkit.simulator.ServerTimeline;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * End to end: infermark's client against the simulator, checking what the client measured against
 * what the server really did. Both share one JVM and so one {@code System.nanoTime} clock.
 *
 * <p>Client-minus-server errors are bounded by what each run measured of its own client: the bound
 * that holds on a quiet machine plus twice the run's measurement floor ({@link ClientHealth#floorNanos()},
 * at least its hiccup p99). A quiet machine has a floor of a fraction of a millisecond, so the quiet
 * bound still applies there; a machine whose threads run late widens the bound by the lateness the run
 * itself recorded, not by a guess.
 */
class BenchmarkAgainstSimulatorTest {

  private static final Logger LOG = LoggerFactory.getLogger(BenchmarkAgainstSimulatorTest.class);

  private static final Prompt PROMPT = Prompt.user("Tell me about latency.");
  private static final GenerationParams THIRTY_TWO_TOKENS =
      GenerationParams.builder().maxTokens(32).ignoreEos(true).build();

  /** Slack for double arithmetic on durations read in whole nanoseconds, in ms: a thousandth of a nanosecond. */
  private static final double ROUNDING_MS = 1e-9;

  private static OpenAiTarget target(Simulator sim) {
    return OpenAiTarget.chat(sim.baseUrl() + "/v1", sim.config().model()).build();
  }

  /** The quiet machine's bound widened by twice the run's own measurement floor, ms. */
  private static double boundMs(double quietBoundMs, RunResult run) {
    return quietBoundMs + 2 * run.clientHealth().floorMillis();
  }

  /** An assertion description naming the bound and where it came from. */
  private static String bound(String what, double quietBoundMs, RunResult run) {
    return String.format(Locale.ROOT, "%s, ms: bound %.3f = %.1f + 2 x floor of %s", what, boundMs(quietBoundMs, run),
        quietBoundMs, run.clientHealth());
  }

  private static double quantile(double[] values, double p) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return QuantileMethod.LINEAR.quantile(sorted, p);
  }

  @Test
  void clientFirstTokenTimesAgreeWithTheServersWithinMillisecondsAtConcurrency16() {
    SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(20))
        .interTokenInterval(Duration.ofMillis(2)).build();
    try (Simulator sim = Simulator.start(config); OpenAiTarget target = target(sim)) {
      RunResult run = Benchmark.target(target).prompts(PROMPT).params(THIRTY_TWO_TOKENS)
          .load(LoadProfile.concurrency(16).requests(160).warmupRequests(16)).run();

      assertThat(run.measured()).hasSize(160).allMatch(RequestRecord::succeeded);
      double[] firstTokenErrorMs = new double[160];
      double[] lastTokenErrorMs = new double[160];
      double[] tpotLeastMs = new double[160];
      double[] tpotMostMs = new double[160];
      int i = 0;
      for (RequestRecord r : run.measured()) {
        ServerTimeline server = sim.timeline(r.requestId()).orElseThrow();
        long clientFirst = run.originNanos() + r.sendNanos() + r.chunks().firstTokenOffsetNanos().getAsLong();
        long clientLast = run.originNanos() + r.sendNanos() + r.chunks().lastTokenOffsetNanos().getAsLong();
        // The client reads a token after the server flushed it, never before: one clock, no skew.
        assertThat(clientFirst).isGreaterThanOrEqualTo(server.firstTokenNanos().getAsLong());
        assertThat(clientLast).isGreaterThanOrEqualTo(server.lastTokenNanos().getAsLong());
        // And the client sent before the server saw the request.
        assertThat(run.originNanos() + r.sendNanos()).isLessThanOrEqualTo(server.arrivalNanos());
        firstTokenErrorMs[i] = (clientFirst - server.firstTokenNanos().getAsLong()) / 1e6;
        lastTokenErrorMs[i] = (clientLast - server.lastTokenNanos().getAsLong()) / 1e6;
        // This request's TPOT is the server's (its writes) give or take its own delays: exactly within these.
        TokenDelays delays = TokenDelays.of(run, r, server.firstTokenNanos().getAsLong(),
            server.lastTokenNanos().getAsLong());
        double serverTpotMs = (server.lastTokenNanos().getAsLong() - server.firstTokenNanos().getAsLong()) / 1e6 / 31;
        tpotLeastMs[i] = serverTpotMs + delays.tpotBelowMillis(31);
        tpotMostMs[i] = serverTpotMs + delays.tpotAboveMillis(31);
        assertThat(r.outputTokens()).isEqualTo(32);
        assertThat(r.outputTokensSource()).isEqualTo(TokenCountSource.SERVER_USAGE);
        assertThat(r.tokenCountsDisagree()).isFalse();
        i++;
      }
      LOG.info("concurrency 16: median first-token error {} ms, p90 {} ms, median last-token error {} ms; {}",
          quantile(firstTokenErrorMs, 0.5), quantile(firstTokenErrorMs, 0.9), quantile(lastTokenErrorMs, 0.5),
          run.clientHealth());
      // Typically ~0.3 ms on a quiet machine; the floor widens the bounds on a busy one.
      assertThat(quantile(firstTokenErrorMs, 0.5)).as(bound("median first-token error", 3.0, run))
          .isLessThan(boundMs(3.0, run));
      assertThat(quantile(firstTokenErrorMs, 0.9)).as(bound("p90 first-token error", 10.0, run))
          .isLessThan(boundMs(10.0, run));
      assertThat(quantile(lastTokenErrorMs, 0.5)).as(bound("median last-token error", 3.0, run))
          .isLessThan(boundMs(3.0, run));

      RunSummary summary = RunSummary.of(run);
      assertThat(summary.distribution(LatencyMetric.TTFT).min().getAsDouble()).isGreaterThanOrEqualTo(20.0);
      // 32 tokens 2 ms apart: each request's TPOT is the server's (its writes: 2 ms a token as scheduled, less or
      // more when a write ran late) give or take that request's own delays, so the p50 lies between the p50s of
      // those bounds (a quantile is monotone in every value): exact, where 1.9 ms to 3 ms plus the run's floor (a
      // whole-run p99) guessed at the server's and the client's lateness.
      assertThat(summary.distribution(LatencyMetric.TPOT).p50().getAsDouble()).as("TPOT p50, ms")
          .isBetween(quantile(tpotLeastMs, 0.5) - ROUNDING_MS, quantile(tpotMostMs, 0.5) + ROUNDING_MS);
      assertThat(summary.tokens().outputTokens()).isEqualTo(160L * 32);
    }
  }

  @Test
  void sixtyFourRequestedStreamsAreSixtyFourInFlightAtTheServer() {
    // A first token one second after arrival keeps every stream open that long, so streams that arrive
    // within one second of each other are all in flight together.
    long ttft = Duration.ofSeconds(1).toNanos();
    SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofNanos(ttft))
        .interTokenInterval(Duration.ofMillis(1)).build();
    try (Simulator sim = Simulator.start(config); OpenAiTarget target = target(sim)) {
      RunResult run = Benchmark.target(target).prompts(PROMPT)
          .params(GenerationParams.builder().maxTokens(4).ignoreEos(true).build())
          .load(LoadProfile.concurrency(64).requests(64)).run();

      assertThat(run.records()).hasSize(64).allMatch(RequestRecord::succeeded);
      long[] arrivals = run.records().stream().mapToLong(r -> sim.timeline(r.requestId()).orElseThrow()
          .arrivalNanos()).toArray();
      long[] sends = run.records().stream().mapToLong(r -> run.originNanos() + r.sendNanos()).toArray();
      // Exact: the server had at least as many in flight as arrived within one TTFT of each other.
      int overlappingArrivals = mostWithin(arrivals, ttft);
      assertThat(sim.peakInFlight()).isGreaterThanOrEqualTo(overlappingArrivals);
      // No hidden cap: a request held back by the client after its send (a per-host or pool limit) would
      // arrive a whole TTFT late. Requests sent close together arrive together, give or take the
      // client's own measured lateness. On a quiet machine every send falls within a few ms: all 64.
      long floor = run.clientHealth().floorNanos();
      assertThat(overlappingArrivals).as("streams arriving together; sends within %d ms: %d; %s",
          (ttft - 2 * floor) / 1_000_000, mostWithin(sends, ttft - 2 * floor), run.clientHealth())
          .isGreaterThanOrEqualTo(mostWithin(sends, ttft - 2 * floor));
      if (mostWithin(sends, ttft - 2 * floor) == 64) {
        assertThat(sim.peakInFlight()).isEqualTo(64);
      }
    }
  }

  /** The most times that lie within {@code span} ns of each other (0 for a span below 0). */
  private static int mostWithin(long[] times, long span) {
    if (span < 0) {
      return 0;
    }
    long[] t = times.clone();
    Arrays.sort(t);
    int best = 0;
    for (int i = 0, j = 0; j < t.length; j++) {
      while (t[j] - t[i] > span) {
        i++;
      }
      best = Math.max(best, j - i + 1);
    }
    return best;
  }

  @Test
  void droppedStreamsAndServerErrorsStillYieldOneClassifiedRecordPerScheduledRequest() {
    SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(2))
        .interTokenInterval(Duration.ofMillis(1)).serverErrors(0.2).disconnects(0.2, 3).seed(11).build();
    try (Simulator sim = Simulator.start(config); OpenAiTarget target = target(sim)) {
      RunResult run = Benchmark.target(target).prompts(PROMPT).params(THIRTY_TWO_TOKENS)
          .load(LoadProfile.poisson(200).requests(120).seed(5)).run();

      assertThat(run.records()).hasSize(120);
      Map<ServerTimeline.Outcome, Integer> serverSaw = new EnumMap<>(ServerTimeline.Outcome.class);
      for (RequestRecord r : run.records()) {
        ServerTimeline server = sim.timeline(r.requestId()).orElseThrow();
        serverSaw.merge(server.outcome(), 1, Integer::sum);
        switch (server.outcome()) {
          case COMPLETED -> assertThat(r.succeeded()).isTrue();
          case SERVER_ERROR -> {
            assertThat(r.failure().orElseThrow().category()).isEqualTo(ErrorCategory.HTTP_STATUS);
            assertThat(r.failure().orElseThrow().httpStatus()).isEqualTo(500);
          }
          case DISCONNECTED -> {
            assertThat(r.failure().orElseThrow().category()).isEqualTo(ErrorCategory.RESET);
            assertThat(r.chunks().tokenChunkCount()).isEqualTo(3); // the tokens sent before the drop are kept
          }
          default -> throw new AssertionError("unexpected server outcome " + server.outcome() + " for " + r);
        }
      }
      // The seeded faults really happened, in roughly the configured proportions.
      assertThat(serverSaw.get(ServerTimeline.Outcome.SERVER_ERROR)).isBetween(10, 40);
      assertThat(serverSaw.get(ServerTimeline.Outcome.DISCONNECTED)).isBetween(10, 40);

      RunSummary summary = RunSummary.of(run);
      assertThat(summary.failuresByCategory().get(ErrorCategory.HTTP_STATUS))
          .isEqualTo(serverSaw.get(ServerTimeline.Outcome.SERVER_ERROR));
      assertThat(summary.failuresByCategory().get(ErrorCategory.RESET))
          .isEqualTo(serverSaw.get(ServerTimeline.Outcome.DISCONNECTED));
      assertThat(summary.distribution(LatencyMetric.TTFT).count())
          .isEqualTo(serverSaw.get(ServerTimeline.Outcome.COMPLETED));
    }
  }

  @Test
  void pastTheKneeClientTtftItlAndE2eMatchTheEnginesGroundTruth() {
    // 32 streams against an engine that runs 16 sequences: half of every wave queues.
    SimulatorConfig config = SimulatorConfig.builder().engine(EngineProfile.earlySaturation()).build();
    try (Simulator sim = Simulator.start(config); OpenAiTarget target = target(sim)) {
      RunResult run = Benchmark.target(target).prompts(PROMPT)
          .params(GenerationParams.builder().maxTokens(16).ignoreEos(true).build())
          .load(LoadProfile.concurrency(32).requests(96).warmupRequests(32)).run();

      assertThat(run.measured()).hasSize(96).allMatch(RequestRecord::succeeded);
      double[] ttftErrorMs = new double[96];
      double[] gapErrorMs = new double[96 * 15];
      double[] e2eErrorMs = new double[96];
      long queued = 0;
      int i = 0;
      int g = 0;
      for (RequestRecord r : run.measured()) {
        ServerTimeline server = sim.timeline(r.requestId()).orElseThrow();
        long sent = run.originNanos() + r.sendNanos();
        // Client TTFT (from send) vs the server's (from arrival, first write): the difference is
        // request upload plus first-token delivery, never negative.
        long clientTtft = r.chunks().firstTokenOffsetNanos().getAsLong();
        ttftErrorMs[i] = (clientTtft - server.timeToFirstTokenNanos().getAsLong()) / 1e6;
        assertThat(ttftErrorMs[i]).isGreaterThanOrEqualTo(0);
        e2eErrorMs[i] = (sent + r.chunks().lastTokenOffsetNanos().getAsLong() - server.lastTokenNanos().getAsLong())
            / 1e6;
        ChunkTimeline.Cursor c = r.chunks().cursor();
        long previous = -1;
        int k = 0;
        while (c.next()) {
          if (c.kind().isTokenBearing()) {
            if (previous >= 0) {
              long serverGap = server.tokenNanos(k) - server.tokenNanos(k - 1);
              gapErrorMs[g++] = Math.abs((c.offsetNanos() - previous) - serverGap) / 1e6;
            }
            previous = c.offsetNanos();
            k++;
          }
        }
        queued += server.engine().orElseThrow().queueNanos().getAsLong() > 0 ? 1 : 0;
        i++;
      }
      assertThat(queued).as("requests that waited for admission").isGreaterThan(10);
      LOG.info("past the knee: median TTFT error {} ms, median last-token delay {} ms, median ITL error {} ms; {}",
          quantile(ttftErrorMs, 0.5), quantile(e2eErrorMs, 0.5), quantile(Arrays.copyOf(gapErrorMs, g), 0.5),
          run.clientHealth());
      // Typically well under 1 ms on a quiet machine; the floor widens the bounds on a busy one.
      assertThat(quantile(ttftErrorMs, 0.5)).as(bound("median TTFT error", 3.0, run)).isLessThan(boundMs(3.0, run));
      assertThat(quantile(e2eErrorMs, 0.5)).as(bound("median last-token delay", 3.0, run))
          .isLessThan(boundMs(3.0, run));
      assertThat(quantile(Arrays.copyOf(gapErrorMs, g), 0.5)).as(bound("median ITL error", 3.0, run))
          .isLessThan(boundMs(3.0, run));
      assertThat(sim.engineStats().peakRunning()).isEqualTo(16);
    }
  }
}
