package io.infermark.testkit.simulator;

import static io.infermark.testkit.simulator.SimHttp.chat;
import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.health.HiccupMeter;
import io.infermark.core.health.LatencyStats;
import io.infermark.testkit.junit.InjectSimulator;
import io.infermark.testkit.junit.SimulatorExtension;
import io.infermark.testkit.simulator.SimHttp.TimedEvent;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks the simulator's timing against its own schedule and against a client in the same JVM.
 *
 * <p>The build machine is shared (2 cores, often other builds running), so threads are sometimes
 * descheduled for tens of milliseconds. Each test therefore separates two kinds of claims.
 * Exact properties (no token is ever early; TTFT includes the configured TTFT) must hold on
 * every stream. Statistical bounds (the typical token within {@link #MEDIAN_MS}, most within
 * {@link #TOLERANCE_MS}, no drift along the stream) must hold on at least one of
 * {@link #ATTEMPTS} streams: a real defect, such as Nagle's algorithm adding ~40 ms to most
 * tokens or relative sleeps drifting, misses on every stream, while a burst of contention
 * rarely spoils consecutive ones. The statistical bounds are those of a quiet machine widened by
 * twice what a {@link HiccupMeter} measured during the stream (its p99 lateness, the stream's own
 * measurement floor): on a quiet machine that adds a fraction of a millisecond, on a starved one it
 * adds what the machine really did to every thread, server's and client's alike. Measured
 * distributions are logged.
 */
class TokenTimingTest {

  private static final Logger log = LoggerFactory.getLogger(TokenTimingTest.class);

  private static final long TTFT_MS = 20;
  private static final long ITL_MS = 5;
  private static final int TOKENS = 60;
  private static final double MEDIAN_MS = 2;
  private static final double TOLERANCE_MS = 3;
  private static final double MOST = 0.8;
  private static final int ATTEMPTS = 3;

  @RegisterExtension
  final SimulatorExtension simulator = SimulatorExtension.withConfig(
      SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(TTFT_MS))
        .interTokenInterval(Duration.ofMillis(ITL_MS)).defaultOutputTokens(TOKENS).build());

  @InjectSimulator
  private Simulator sim;
  private SimHttp http;

  @BeforeEach
  void start() {
    http = new SimHttp(sim);
  }

  /**
   * One streamed request as both sides saw it, and the measurement floor of its stream: the hiccup
   * meter's p99 lateness over it, ms.
   */
  private record Run(long sentNanos, List<TimedEvent> events, ServerTimeline timeline, double floorMs) {

    /** A quiet machine's bound widened by twice the stream's floor. */
    double bound(double quietMs) {
      return quietMs + 2 * floorMs;
    }
  }

  private Run run(String requestId) {
    HiccupMeter meter = HiccupMeter.start();
    try {
      long sent = System.nanoTime();
      HttpResponse<InputStream> response = http.open("/v1/chat/completions", chat("\"stream\":true"),
          "X-Request-Id", requestId);
      List<TimedEvent> events = SimHttp.readTimed(response.body());
      ServerTimeline timeline = sim.timeline(requestId).orElseThrow();
      LatencyStats hiccups = meter.stop();
      log.info("{}; hiccups {}", timeline, hiccups);
      return new Run(sent, events, timeline, hiccups.p99Nanos() / 1e6);
    } catch (IOException e) {
      throw new AssertionError("stream " + requestId + " failed", e);
    } finally {
      meter.stop();
    }
  }

  private void verify(String name, Consumer<Run> exact, Consumer<Run> statistical) {
    AssertionError miss = null;
    for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
      Run run = run(name + "-" + attempt);
      exact.accept(run);
      try {
        statistical.accept(run);
        return;
      } catch (AssertionError e) {
        miss = e;
        log.warn("{}: attempt {} of {} outside the timing bounds: {}", name, attempt, ATTEMPTS,
            e.getMessage().replace('\n', ' '));
      }
    }
    throw miss;
  }

  private static double[] lateness(ServerTimeline t) {
    long admitted = t.admissionNanos().getAsLong();
    double[] lateMs = new double[t.tokenCount()];
    for (int i = 0; i < lateMs.length; i++) {
      lateMs[i] = (t.tokenNanos(i) - admitted - (TTFT_MS + i * ITL_MS) * 1_000_000) / 1e6;
    }
    return lateMs;
  }

  @Test
  void tokensAreFlushedOnScheduleFromAdmissionWithoutDrift() {
    verify("schedule", run -> {
      assertThat(run.timeline().tokenCount()).isEqualTo(TOKENS);
      assertThat(min(lateness(run.timeline()))).as("no token is early").isGreaterThanOrEqualTo(0);
    }, run -> {
      double[] lateMs = lateness(run.timeline());
      log.info("server lateness vs schedule (ms): {}", stats(lateMs));
      assertThat(median(lateMs)).isLessThan(run.bound(MEDIAN_MS));
      assertThat(fractionBelow(lateMs, run.bound(TOLERANCE_MS))).isGreaterThanOrEqualTo(MOST);
      // Deadlines are absolute, so oversleeping never accumulates: the last quarter of the
      // stream is as punctual as the whole.
      assertThat(median(Arrays.copyOfRange(lateMs, TOKENS * 3 / 4, TOKENS))).isLessThan(run.bound(MEDIAN_MS));
    });
  }

  @Test
  void consecutiveTokensAreSpacedByTheInterval() {
    verify("gaps", run -> assertThat(run.timeline().tokenCount()).isEqualTo(TOKENS), run -> {
      ServerTimeline t = run.timeline();
      double[] gapErrorMs = new double[TOKENS - 1];
      for (int i = 1; i < TOKENS; i++) {
        gapErrorMs[i - 1] = (t.tokenNanos(i) - t.tokenNanos(i - 1)) / 1e6 - ITL_MS;
      }
      log.info("inter-token gap minus interval (ms): {}", stats(gapErrorMs));
      double[] absError = Arrays.stream(gapErrorMs).map(Math::abs).toArray();
      assertThat(median(absError)).isLessThan(run.bound(MEDIAN_MS / 2));
      assertThat(fractionBelow(absError, run.bound(TOLERANCE_MS))).isGreaterThanOrEqualTo(MOST);
      // Whatever the hiccups, the stream as a whole keeps the configured pace: a late first or last
      // token moves the mean gap by its lateness spread over the stream's gaps.
      double meanGapMs = (t.lastTokenNanos().getAsLong() - t.firstTokenNanos().getAsLong()) / 1e6 / (TOKENS - 1);
      double slack = 0.5 + 2 * run.floorMs() / (TOKENS - 1);
      assertThat(meanGapMs).isBetween(ITL_MS - slack, ITL_MS + slack);
    });
  }

  @Test
  void firstTokenIsNoSoonerThanTtftAfterArrival() {
    ServerTimeline t = run("first").timeline();
    long ttftNanos = TTFT_MS * 1_000_000;
    log.info("server TTFT {} ms, of which arrival to admission {} ms",
        t.timeToFirstTokenNanos().getAsLong() / 1e6, (t.admissionNanos().getAsLong() - t.arrivalNanos()) / 1e6);

    assertThat(t.admissionNanos().getAsLong()).isGreaterThanOrEqualTo(t.arrivalNanos());
    assertThat(t.firstTokenNanos().getAsLong()).isGreaterThanOrEqualTo(t.admissionNanos().getAsLong() + ttftNanos);
    assertThat(t.timeToFirstTokenNanos().getAsLong()).isGreaterThanOrEqualTo(ttftNanos);
  }

  @Test
  void clientReadsEachTokenRightAfterTheServerFlushesIt() {
    verify("client", run -> {
      List<TimedEvent> content = content(run);
      assertThat(content).hasSize(TOKENS);
      // One clock on both sides: the client's TTFT contains the server's, which contains the configured one.
      assertThat(run.timeline().arrivalNanos()).isGreaterThan(run.sentNanos());
      assertThat(content.get(0).nanos() - run.sentNanos()).isGreaterThanOrEqualTo(TTFT_MS * 1_000_000);
    }, run -> {
      List<TimedEvent> content = content(run);
      double[] delayMs = new double[TOKENS];
      for (int i = 0; i < TOKENS; i++) {
        delayMs[i] = (content.get(i).nanos() - run.timeline().tokenNanos(i)) / 1e6;
      }
      log.info("client read time minus server flush time (ms): {}", stats(delayMs));
      // The difference can be slightly negative: the client may read the bytes before the server
      // thread, descheduled right after its flush, reads the clock.
      double[] absDelay = Arrays.stream(delayMs).map(Math::abs).toArray();
      assertThat(median(absDelay)).isLessThan(run.bound(MEDIAN_MS));
      assertThat(fractionBelow(absDelay, run.bound(TOLERANCE_MS))).isGreaterThanOrEqualTo(MOST);
    });
  }

  @Test
  void aChunkOfSeveralTokensIsFlushedWhenItsLastTokenIsReady() throws IOException {
    try (Simulator grouped = Simulator.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(2))
        .interTokenInterval(Duration.ofMillis(3)).defaultOutputTokens(8).tokensPerChunk(3).build())) {
      SimHttp.readTimed(new SimHttp(grouped).open("/v1/chat/completions", chat("\"stream\":true"),
          "X-Request-Id", "grouped").body());

      ServerTimeline t = grouped.timeline("grouped").orElseThrow();
      long[] times = t.tokenNanos();
      assertThat(times).hasSize(8);
      // chunks hold tokens 0-2, 3-5 and 6-7; each is flushed once, so its tokens share a time
      assertThat(new long[] {times[0], times[1], times[2]}).containsOnly(times[0]);
      assertThat(new long[] {times[3], times[4], times[5]}).containsOnly(times[3]);
      assertThat(times[7]).isEqualTo(times[6]);
      long admitted = t.admissionNanos().getAsLong();
      assertThat(times[0]).isGreaterThanOrEqualTo(admitted + Duration.ofMillis(2 + 2 * 3).toNanos());
      assertThat(times[3]).isGreaterThanOrEqualTo(admitted + Duration.ofMillis(2 + 5 * 3).toNanos());
      assertThat(times[6]).isGreaterThanOrEqualTo(admitted + Duration.ofMillis(2 + 7 * 3).toNanos());
    }
  }

  private static List<TimedEvent> content(Run run) {
    return run.events().stream().filter(TimedEvent::hasContent).collect(Collectors.toList());
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }

  private static double min(double[] v) {
    return Arrays.stream(v).min().orElseThrow();
  }

  private static double fractionBelow(double[] v, double limit) {
    return Arrays.stream(v).filter(x -> x < limit).count() / (double) v.length;
  }

  private static String stats(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return String.format(Locale.ROOT, "min %.3f p50 %.3f p90 %.3f p99 %.3f max %.3f",
        s[0], s[s.length / 2], s[(int) (s.length * 0.9)], s[(int) (s.length * 0.99)], s[s.length - 1]);
  }
}
