package io.infermark.metrics;

import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.ScheduleStats;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.stats.QuantileMethod;
import io.infermark.metrics.session.SessionSummary;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * The statistics of one run: a {@link Distribution} per {@link LatencyMetric}, request counts,
 * failures by category, throughput over the {@link MeasurementWindow}, token counts and their
 * sources, and the run's schedule statistics, client health and metadata. Immutable.
 *
 * <p>Which records count:
 * <ul>
 *   <li>warmup and cooldown records count for nothing but {@link RequestCounts#warmupExcluded()} and
 *       {@link RequestCounts#cooldownExcluded()};
 *   <li>failed measured records count only in {@link #failuresByCategory()}, in the window's end and
 *       in {@link RequestCounts#failed()}: never in latency, token or throughput numbers;
 *   <li>successful measured records feed every metric that is defined for them. A reply without a
 *       token-bearing chunk is captured as an {@link ErrorCategory#EMPTY_RESPONSE} failure; a successful record
 *       without one (built by hand, or read from an older records file) has no TTFT, E2E or TPOT but still has a
 *       stream-close time and counts in {@link RequestCounts#succeededWithoutTokens()}.
 * </ul>
 *
 * <p>Throughput divides by the {@link MeasurementWindow}: request throughput is successful measured
 * requests per second; output token throughput is the sum of their N per second; total token
 * throughput adds their prompt tokens, as the server reported them or else as the client counted them (see
 * {@link TokenSummary}; a request with neither adds none).
 */
public final class RunSummary {

  private static final LatencyMetric[] METRICS = LatencyMetric.values();

  private final RunInfo run;
  private final ScheduleStats schedule;
  private final QuantileMethod quantileMethod;
  private final Map<LatencyMetric, Distribution> distributions;
  private final RequestCounts requests;
  private final Map<ErrorCategory, Integer> failuresByCategory;
  private final MeasurementWindow window;
  private final TokenSummary tokens;
  private final Map<ServerTimingGap, Distribution> clientMinusServer;
  private final TargetAvailability availability;
  private final ColdStartSummary coldStarts;
  private final io.infermark.metrics.cache.PrefixCacheSummary prefixCache;
  private final SessionSummary sessions;

  private RunSummary(RunInfo run, ScheduleStats schedule, QuantileMethod quantileMethod,
      Map<LatencyMetric, Distribution> distributions, RequestCounts requests,
      Map<ErrorCategory, Integer> failuresByCategory, MeasurementWindow window, TokenSummary tokens,
      Map<ServerTimingGap, Distribution> clientMinusServer, TargetAvailability availability,
      ColdStartSummary coldStarts, io.infermark.metrics.cache.PrefixCacheSummary prefixCache,
      SessionSummary sessions) {
    this.run = run;
    this.sessions = sessions;
    this.schedule = schedule;
    this.quantileMethod = quantileMethod;
    this.distributions = distributions;
    this.requests = requests;
    this.failuresByCategory = failuresByCategory;
    this.window = window;
    this.tokens = tokens;
    this.clientMinusServer = clientMinusServer;
    this.availability = availability;
    this.coldStarts = coldStarts;
    this.prefixCache = prefixCache;
  }

  /** Summarises a run with linear (numpy-compatible) percentiles. */
  public static RunSummary of(RunResult result) {
    return of(result, QuantileMethod.LINEAR);
  }

  /** Summarises a run with the given percentile method; cold requests are those the server reported. */
  public static RunSummary of(RunResult result, QuantileMethod method) {
    return of(result, method, ColdStarts.serverReported());
  }

  /**
   * Summarises a run with the given percentile method, judging cold starts by {@code coldStarts} (e.g.
   * {@code ColdStarts.serverReported().afterIdle(Duration.ofSeconds(5))}); see {@link #coldStarts()}.
   */
  public static RunSummary of(RunResult result, QuantileMethod method, ColdStarts coldStarts) {
    Objects.requireNonNull(result, "result");
    Objects.requireNonNull(coldStarts, "coldStarts");
    Objects.requireNonNull(method, "method");
    List<RequestRecord> records = result.records();
    // Size the arrays up front: the pooled ones can reach 10^8 values, and growing them by copying
    // would briefly need twice that memory.
    int perRequest = 0;
    long gaps = 0;
    for (RequestRecord r : records) {
      if (r.measured() && r.succeeded()) {
        perRequest++;
        gaps += Math.max(r.chunks().tokenChunkCount() - 1, 0);
      }
    }
    if (gaps > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("run has " + gaps + " inter-token gaps, more than one array can hold; "
          + "summarise it in parts");
    }
    DoubleArray[] values = new DoubleArray[METRICS.length];
    for (LatencyMetric m : METRICS) {
      // ITL and per-token ITL are collected by the Gaps collector below.
      values[m.ordinal()] = new DoubleArray(m.isPooled() ? 0 : perRequest);
    }
    Gaps pooled = new Gaps((int) gaps);
    ServerTimingGap[] serverGaps = ServerTimingGap.values();
    DoubleArray[] serverGapValues = new DoubleArray[serverGaps.length];
    for (ServerTimingGap g : serverGaps) {
      serverGapValues[g.ordinal()] = new DoubleArray(0);
    }
    RecordTally tally = new RecordTally();
    for (RequestRecord r : records) {
      if (!tally.add(r)) {
        continue;
      }
      for (LatencyMetric m : METRICS) {
        if (!m.isPooled()) {
          m.collect(r, values[m.ordinal()]);
        }
      }
      pooled.collect(r);
      if (!r.serverTimings().isEmpty()) {
        for (ServerTimingGap g : serverGaps) {
          OptionalDouble gap = g.millis(r);
          if (gap.isPresent()) {
            serverGapValues[g.ordinal()].add(gap.getAsDouble());
          }
        }
      }
    }
    EnumMap<ServerTimingGap, Distribution> clientMinusServer = new EnumMap<>(ServerTimingGap.class);
    for (ServerTimingGap g : serverGaps) {
      if (serverGapValues[g.ordinal()].size() > 0) {
        clientMinusServer.put(g, Distribution.ofOwned(serverGapValues[g.ordinal()].release(), method));
      }
    }

    EnumMap<LatencyMetric, Distribution> distributions = new EnumMap<>(LatencyMetric.class);
    for (LatencyMetric m : METRICS) {
      if (!m.isPooled()) {
        distributions.put(m, Distribution.ofOwned(values[m.ordinal()].release(), method));
      }
    }
    distributions.put(LatencyMetric.ITL, Distribution.ofOwned(pooled.releaseItl(), method));
    distributions.put(LatencyMetric.ITL_PER_TOKEN, pooled.mirrorsItl
        ? distributions.get(LatencyMetric.ITL)
        : Distribution.ofOwned(pooled.perToken.release(), method));
    ColdStarts.Split split = coldStarts.split(records);
    ColdStartSummary cold = split.cold().isEmpty()
        ? new ColdStartSummary(coldStarts.toString(), 0, split.warm().size(), Distribution.empty(method),
            distributions.get(LatencyMetric.TTFT), Distribution.empty(method), distributions.get(LatencyMetric.E2E))
        : ColdStartSummary.of(coldStarts, split);
    return new RunSummary(RunInfo.of(result), result.schedule(), method,
        Collections.unmodifiableMap(distributions), tally.requests(), tally.failuresByCategory(),
        tally.window().orElse(null), tally.tokens(), Collections.unmodifiableMap(clientMinusServer),
        TargetAvailability.of(records), cold,
        io.infermark.metrics.cache.PrefixCacheSummary.of(records, method, Optional.empty()), SessionSummary.of(records));
  }

  /**
   * This summary with its {@link #prefixCache()} recomputed beside the ideal ratio that {@code reuse} (the tracker
   * that watched the run's requests being sent) computed; {@code records} are the run's records.
   */
  public RunSummary withPromptReuse(List<RequestRecord> records, io.infermark.metrics.cache.PromptReuse reuse) {
    Objects.requireNonNull(reuse, "reuse");
    return new RunSummary(run, schedule, quantileMethod, distributions, requests, failuresByCategory, window, tokens,
        clientMinusServer, availability, coldStarts,
        io.infermark.metrics.cache.PrefixCacheSummary.of(records, quantileMethod, Optional.of(reuse)), sessions);
  }

  /**
   * The prefix-cache accounting: cached prompt tokens the server reported, hit ratio per run, session and turn,
   * TTFT of hits and misses, and the ideal ratio when {@link #withPromptReuse} added it. Nothing to show
   * ({@link io.infermark.metrics.cache.PrefixCacheSummary#isEmpty()}) when no server reported cached tokens.
   */
  public io.infermark.metrics.cache.PrefixCacheSummary prefixCache() {
    return prefixCache;
  }

  /**
   * Collects ITL and per-token ITL in one pass over each record's chunks. ITL has exactly one value
   * per gap, counted beforehand, so it fills an array of that size directly (this loop runs once per
   * chunk of the run: 10^8 times for a large one). While every gap so far ended at a chunk of exactly
   * one token, per-token ITL equals ITL value for value and is not stored at all (the summary then
   * shares one distribution for both: half the memory and time for servers that stream one token per
   * chunk and say so). The first gap that differs materialises it from the ITL values before that gap;
   * it then grows as needed, as servers that state chunk sizes may do so for only some chunks.
   */
  private static final class Gaps {
    private double[] itl;
    private int size;
    private DoubleArray perToken;
    private boolean mirrorsItl = true;

    Gaps(int gaps) {
      this.itl = new double[gaps];
    }

    void collect(RequestRecord r) {
      if (r.chunks().tokenChunkCount() < 2) {
        return;
      }
      double[] out = itl;
      int n = size;
      ChunkTimeline.TokenGaps gaps = r.chunks().gaps();
      while (gaps.next()) {
        long gap = gaps.gapNanos();
        // As DoubleArray.addNanosAsMillis: the long nanoseconds as a double, divided (correctly rounded).
        out[n++] = (double) gap / 1e6;
        int tokens = gaps.tokens();
        if (tokens != 1 || !mirrorsItl) {
          perToken(gap, tokens, out, n);
        }
      }
      size = n;
    }

    private void perToken(long gapNanos, int tokens, double[] itlSoFar, int itlSize) {
      if (mirrorsItl) {
        perToken = DoubleArray.of(itlSoFar, itlSize - 1);
        mirrorsItl = false;
      }
      if (tokens > 0) {
        // A chunk of unknown (or zero) size cannot be divided, but it still ends the previous gap.
        perToken.addNanosAsMillis((double) gapNanos / tokens);
      }
    }

    /** The ITL values, trimmed; this collector must not be used afterwards. */
    double[] releaseItl() {
      double[] out = size == itl.length ? itl : java.util.Arrays.copyOf(itl, size);
      itl = new double[0];
      size = 0;
      return out;
    }
  }

  /**
   * Per request, client − server (ms) for each {@link ServerTimingGap} that at least one successful
   * measured request's server reported a duration for; empty when no server reported any (OpenAI's
   * API, Anthropic, Triton). Shows what the network and the client add to the server's own time.
   */
  public Map<ServerTimingGap, Distribution> clientMinusServer() {
    return clientMinusServer;
  }

  /** Per-session metrics, when the run was a session workload's; empty otherwise. */
  public SessionSummary sessions() {
    return sessions;
  }

  /**
   * Warm and cold requests apart (seed 003 §3.3), as the {@link ColdStarts} rule given to {@link #of} judged
   * them (by default: the server reported a load, or the record was tagged cold). The run's own
   * distributions mix both.
   */
  public ColdStartSummary coldStarts() {
    return coldStarts;
  }

  /** The run's metadata. */
  public RunInfo run() {
    return run;
  }

  /** Whether the client kept its schedule, as the run computed it (over all sent measured requests). */
  public ScheduleStats schedule() {
    return schedule;
  }

  /**
   * Whether the run's client could be trusted ({@link RunInfo#clientHealth()}): reports show it, and
   * assertions weigh a CLIENT_BOUND run's error bound (its measurement floor) when judging its latencies.
   */
  public ClientHealth clientHealth() {
    return run.clientHealth();
  }

  /** How the percentiles were computed. */
  public QuantileMethod quantileMethod() {
    return quantileMethod;
  }

  /** The distribution of one metric over the successful measured requests; empty when no request defined it. */
  public Distribution distribution(LatencyMetric metric) {
    return distributions.get(Objects.requireNonNull(metric, "metric"));
  }

  /** Every metric's distribution, in {@link LatencyMetric} order; unmodifiable. */
  public Map<LatencyMetric, Distribution> distributions() {
    return distributions;
  }

  /** How the scheduled requests divide up. */
  public RequestCounts requests() {
    return requests;
  }

  /** How long the target was unreachable during the measured requests, and how often it asked to retry later. */
  public TargetAvailability availability() {
    return availability;
  }

  /** Failed measured requests by category, in {@link ErrorCategory} order; categories without failures are absent. */
  public Map<ErrorCategory, Integer> failuresByCategory() {
    return failuresByCategory;
  }

  /** The throughput window; empty when no measured request was sent. */
  public Optional<MeasurementWindow> window() {
    return Optional.ofNullable(window);
  }

  /** Token totals, means and sources over the successful measured requests. */
  public TokenSummary tokens() {
    return tokens;
  }

  /** Successful measured requests per second of the window; empty when the window is empty or has no length. */
  public OptionalDouble requestThroughputRps() {
    return perSecond(requests.succeeded());
  }

  /** Output tokens (sum of N over successful measured requests) per second of the window. */
  public OptionalDouble outputTokenThroughputTps() {
    return perSecond(tokens.outputTokens());
  }

  /**
   * Input plus output tokens per second of the window; input counts the prompt tokens servers reported, else the
   * client's count ({@link TokenSummary#requestsWithoutInputTokens()} says how many requests had neither).
   */
  public OptionalDouble totalTokenThroughputTps() {
    return perSecond(tokens.inputTokens() + tokens.outputTokens());
  }

  private OptionalDouble perSecond(long count) {
    return window == null ? OptionalDouble.empty() : window.perSecond(count);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("RunSummary[");
    if (clientHealth().isWarning()) {
      s.append("client ").append(clientHealth().verdict()).append(", ");
    }
    s.append(requests.succeeded()).append('/').append(requests.measured()).append(" ok");
    if (requests.failed() > 0) {
      s.append(", ").append(requests.failed()).append(" failed ").append(failuresByCategory);
    }
    requestThroughputRps().ifPresent(v -> s.append(String.format(Locale.ROOT, ", %.2f req/s", v)));
    outputTokenThroughputTps().ifPresent(v -> s.append(String.format(Locale.ROOT, ", %.1f output tok/s", v)));
    for (LatencyMetric m : new LatencyMetric[] {LatencyMetric.TTFT, LatencyMetric.TPOT, LatencyMetric.E2E}) {
      Distribution d = distributions.get(m);
      if (!d.isEmpty()) {
        s.append(String.format(Locale.ROOT, ", %s p50 %.3f ms p99 %.3f%s ms", m, d.p50().getAsDouble(),
            d.p99().getAsDouble(), d.isTailUnreliable(0.99) ? "*" : ""));
      }
    }
    return s.append(']').toString();
  }
}
