package io.infermark.examples;

import io.infermark.attribution.change.ChangeDecomposition;
import io.infermark.attribution.change.ComponentTable;
import io.infermark.attribution.change.PercentileChange;
import io.infermark.attribution.drift.Drift;
import io.infermark.attribution.drift.DriftReport;
import io.infermark.attribution.drift.TailComparison;
import io.infermark.attribution.knee.Kneedle;
import io.infermark.attribution.knee.SlopeThreshold;
import io.infermark.attribution.knee.SweepKnees;
import io.infermark.attribution.pareto.ParetoFront;
import io.infermark.attribution.pareto.ParetoPoint;
import io.infermark.attribution.phase.LatencyBasis;
import io.infermark.attribution.phase.PhaseDecomposition;
import io.infermark.attribution.surrogate.FactorImportance;
import io.infermark.attribution.surrogate.FeatureTable;
import io.infermark.attribution.surrogate.SurrogateExplanation;
import io.infermark.attribution.surrogate.SurrogateTarget;
import io.infermark.attribution.surrogate.XgboostSurrogate;
import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.load.Randoms;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.sweep.Sweep;
import io.infermark.core.sweep.SweepPoint;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.core.workload.ExactLength;
import io.infermark.core.workload.RequestSpec;
import io.infermark.core.workload.Workload;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.stats.OrderStatisticRanks;
import io.infermark.testkit.simulator.EngineProfile;
import io.infermark.testkit.simulator.Fault;
import io.infermark.testkit.simulator.PromptTokenizer;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * Explains a latency tail, end to end, against the embedded simulator (an 8B model on one H200):
 *
 * <ol>
 *   <li><b>Run A</b> sends open-loop Poisson chat requests: mostly short prompts, and one request in
 *       {@value #LONG_EVERY} with a long document of 4,000–8,000 tokens (exact lengths, tagged
 *       {@code input_tokens_requested}/{@code input_tokens_achieved}), each answering exactly
 *       {@value #OUTPUT_TOKENS} tokens ({@code ignore_eos}). It prints where the time went (the phase
 *       table of the mean, the requests at or above P95 and at or above P99) and which request features
 *       drive latency (an xgboost surrogate of E2E explained with TreeSHAP: mean |SHAP| per factor in ms,
 *       the model's held-out fit, and how exactly the attributions add up).
 *   <li><b>Run B</b> repeats run A against a simulator that holds the response headers back
 *       {@value #SLOW_HEADERS_MILLIS} ms on one request in {@value #FAULT_EVERY}, and answers "why did P99
 *       move": the change of P99 E2E split across the phases by Shapley values, pairing each request of B
 *       with the same schedule position in A, and the drift between the two runs' E2E distributions.
 *   <li><b>A rate sweep</b> of the same workload from well below to past the engine's saturation, with
 *       the knee of its P99 TTFT curve and the Pareto front of throughput against P99 E2E.
 * </ol>
 *
 * <p>Every figure above rests on the client having kept up. Each run's client health is checked, and
 * a run whose client was DEGRADED or CLIENT_BOUND gets a {@code WARNING} line with the reasons next to
 * what was computed from it (the run summaries, "why did P99 move", the knee).
 *
 * <p>Run it with {@code java -cp examples/target/infermark-quickstart.jar io.infermark.examples.ExplainTail
 * [requests per run [seconds per sweep level [seed]]]} (defaults {@value #DEFAULT_REQUESTS}, 0.8 and 1).
 * The simulator runs in real time: runs A and B last about ({@value #WARMUP} + requests) / {@value #RATE}
 * seconds each, and the sweep about 5 × the seconds per level, plus the time to drain what queued.
 */
public final class ExplainTail {

  /** Request rate of runs A and B, requests/s: below the 8B profile's saturation for this workload. */
  static final double RATE = 30;
  /** One request in this many carries a long prompt: those whose schedule index mod this is {@link #LONG_AT}. */
  static final int LONG_EVERY = 20;
  /** See {@link #LONG_EVERY}. */
  static final int LONG_AT = 13;
  /** In run B, one request in this many gets slow headers: arrival numbers mod this equal to {@link #FAULT_AT}. */
  static final int FAULT_EVERY = 20;
  /** See {@link #FAULT_EVERY}. */
  static final int FAULT_AT = 0;
  /** How long run B's faulty requests wait for their response headers. */
  static final long SLOW_HEADERS_MILLIS = 1000;
  /** The slf4j-simple property for the simulator's log level. */
  static final String SIMULATOR_LOG_LEVEL = "org.slf4j.simpleLogger.log.io.infermark.testkit";
  /** Output tokens of every request. */
  static final int OUTPUT_TOKENS = 16;
  /**
   * Warmup requests at the start of runs A and B (excluded from statistics): enough for the first long
   * prompt to be among them, so the measured requests do not pay for a cold JVM's first long parse.
   */
  static final int WARMUP = 20;
  /** Measured requests per run by default. */
  static final int DEFAULT_REQUESTS = 150;
  /** Seconds of arrivals per sweep level by default. */
  static final double DEFAULT_SWEEP_SECONDS = 0.8;
  /**
   * Sweep levels, requests/s. On this workload the simulated 8B engine served about 60 requests/s on a
   * 2-core machine (its real-time steps share the CPU with the client and the HTTP path), so the top
   * levels queue.
   */
  static final double[] SWEEP_RATES = {25, 50, 75, 100, 125};
  /** The slope rule's limit: each extra request/s may cost at most this much P99 TTFT, ms. */
  static final double KNEE_SLOPE_MS_PER_RPS = 5;

  /** Prompt lengths in the simulator's own tokens, so requested = achieved = the server's count. */
  static final TokenCounter SIMULATOR_TOKENS = new TokenCounter() {
    @Override
    public int count(String text) {
      return PromptTokenizer.count(text);
    }

    @Override
    public String name() {
      return "simulator";
    }

    @Override
    public boolean isAdditive() {
      return true;
    }
  };

  private ExplainTail() {}

  /**
   * Runs the demo and prints it.
   *
   * @param args optional: measured requests per run (default {@value #DEFAULT_REQUESTS}), seconds of arrivals
   *     per sweep level (default 0.8), seed (default 1)
   */
  public static void main(String[] args) {
    int requests = args.length > 0 ? Integer.parseInt(args[0]) : DEFAULT_REQUESTS;
    double sweepSeconds = args.length > 1 ? Double.parseDouble(args[1]) : DEFAULT_SWEEP_SECONDS;
    long seed = args.length > 2 ? Long.parseLong(args[2]) : 1;
    // The simulator logs each start and stop at INFO; keep the demo's output to what it explains.
    if (System.getProperty(SIMULATOR_LOG_LEVEL) == null) {
      System.setProperty(SIMULATOR_LOG_LEVEL, "warn");
    }
    run(new Sizes(requests, sweepSeconds, seed), System.out);
  }

  /**
   * How big the demo is.
   *
   * @param requests measured requests in runs A and B (after {@value #WARMUP} warmup ones)
   * @param sweepSeconds seconds of arrivals per sweep level: each level sends rate × seconds requests
   * @param seed arrivals, prompt lengths and texts, and the simulator
   */
  record Sizes(int requests, double sweepSeconds, long seed) {
    Sizes {
      if (requests < XgboostSurrogate.MIN_ROWS) {
        throw new IllegalArgumentException("requests must be >= " + XgboostSurrogate.MIN_ROWS + ", was " + requests);
      }
      if (!(sweepSeconds * SWEEP_RATES[0] >= 2) || Double.isInfinite(sweepSeconds)) {
        throw new IllegalArgumentException("sweepSeconds must be finite and give the lowest sweep level at least"
            + " 2 requests, was " + sweepSeconds);
      }
    }

    /** Requests a sweep level at {@code rate} sends. */
    int sweepRequests(double rate) {
      return (int) Math.round(rate * sweepSeconds);
    }
  }

  /** What the demo found, for tests to check. */
  record Result(RunResult runA, RunSummary summaryA, PhaseDecomposition phasesA,
      Optional<Surrogates> surrogates, RunResult runB, PercentileChange change, DriftReport drift,
      List<SweepPoint<Double>> sweep, SweepKnees knees, ParetoFront<String> pareto) {}

  /**
   * The two surrogate explanations of run A's E2E.
   *
   * @param own from the built-in columns: the request's own features and the load when it was sent
   * @param shared with {@link FeatureTable#OVERLAPPING_PREFILL_TOKENS} added
   */
  record Surrogates(SurrogateExplanation own, SurrogateExplanation shared) {}

  /** Runs the three parts and prints them to {@code out}. */
  static Result run(Sizes sizes, PrintStream out) {
    Workload workload = workload(sizes.seed());
    GenerationParams params = GenerationParams.builder().maxTokens(OUTPUT_TOKENS).ignoreEos(true).build();
    LoadProfile load = LoadProfile.poisson(RATE).requests(sizes.requests()).warmupRequests(WARMUP).seed(sizes.seed());
    SimulatorConfig config = SimulatorConfig.builder().engine(EngineProfile.llama8bH200()).seed(sizes.seed()).build();

    // ---- Run A: where the time goes, and which request features drive it.
    heading(out, String.format(Locale.ROOT, "Run A: %d Poisson requests at %.0f/s, one in %d with a long prompt",
        sizes.requests(), RATE, LONG_EVERY));
    RunResult runA = run(config, workload, params, load);
    RunSummary summaryA = RunSummary.of(runA);
    out.println(line(summaryA));
    warnIfUntrusted(out, "run A", runA);
    PhaseDecomposition phasesA = PhaseDecomposition.of(runA, LatencyBasis.SERVICE_TIME);
    out.println();
    out.println("Where the time went (service time: from the actual send; waiting = time to first byte):");
    out.println(phasesA.table(0.95, 0.99));
    Optional<Surrogates> surrogates = explain(runA, out);

    // ---- Run B: the same schedule, some responses' headers held back. Why did P99 move?
    long[] faulty = faultyRequests(WARMUP + sizes.requests());
    heading(out, String.format(Locale.ROOT, "Run B: the same run, %d requests with response headers held back %d ms",
        faulty.length, SLOW_HEADERS_MILLIS));
    SimulatorConfig faultyConfig = config.toBuilder()
        .faultOnRequests(Fault.slowHeaders(Duration.ofMillis(SLOW_HEADERS_MILLIS)), faulty).build();
    RunResult runB = run(faultyConfig, workload, params, load);
    out.println(line(RunSummary.of(runB)));
    warnIfUntrusted(out, "run B", runB);
    Function<RequestRecord, String> position = r -> "#" + r.index();
    PercentileChange change = ChangeDecomposition.builder().percentile(0.99).build().decompose(
        ComponentTable.phases(runA.records(), LatencyBasis.SERVICE_TIME, position),
        ComponentTable.phases(runB.records(), LatencyBasis.SERVICE_TIME, position));
    out.println();
    if (runA.clientHealth().isWarning() || runB.clientHealth().isWarning()) {
      out.println("WARNING: the comparison below rests on a run whose client did not keep up (see above): "
          + "differences below " + String.format(Locale.ROOT, "%.1f ms", Math.max(runA.clientHealth().floorMillis(),
              runB.clientHealth().floorMillis())) + " are the client's noise");
    }
    out.printf(Locale.ROOT, "Why did P99 E2E move? %.1f ms -> %.1f ms (%+.1f ms), Shapley split over phases "
        + "(%s coupling, %d request pairs, %s):%n", change.statisticA(), change.statisticB(), change.change(),
        change.coupling(), change.coupledRequests(), change.method());
    for (String phase : change.ranking()) {
      out.printf(Locale.ROOT, "  %-27s %+9.1f ms%n", phase, change.contribution(phase));
    }
    out.printf(Locale.ROOT, "  (contributions add up to the change within %.1e ms; substituting one phase at a "
        + "time would disagree by up to %.1f ms depending on the order)%n", change.efficiencyGap(),
        change.orderDependence());
    DriftReport drift = Drift.compare(runA.records(), runB.records(), LatencyMetric.E2E);
    out.println();
    out.println("Did E2E drift from run A to run B?");
    out.printf(Locale.ROOT, "  PSI %.3f (%s), KS D=%.3f p=%.3f (%s), JS %.4f bits%n", drift.psi(),
        drift.psiVerdict().name().toLowerCase(Locale.ROOT), drift.ks().statistic(), drift.ks().pValue(),
        drift.ks().rejects() ? "rejects equal distributions" : "no difference shown", drift.jsBits());
    for (TailComparison t : drift.tails()) {
      out.printf(Locale.ROOT, "  %-5s %8.1f -> %8.1f ms  %s%n", t.label(),
          t.baseline().estimateMillis().orElse(Double.NaN), t.current().estimateMillis().orElse(Double.NaN),
          switch (t.shift()) {
            case SLOWER -> "slower (95% intervals apart)";
            case FASTER -> "faster (95% intervals apart)";
            case NONE -> "intervals overlap";
            case UNKNOWN -> String.format(Locale.ROOT, "too few requests to bound it (needs %d per run)",
                OrderStatisticRanks.samplesNeeded(t.p(), drift.options().confidence()));
          });
    }

    // ---- A rate sweep: where is the knee, which levels are worth running at?
    heading(out, String.format(Locale.ROOT, "Rate sweep: %.1f s of Poisson arrivals at each of %s requests/s",
        sizes.sweepSeconds(), Arrays.toString(SWEEP_RATES)));
    // A fresh simulator per level: the same prompts at every level, and no prefix cache left by the last one.
    List<SweepPoint<Double>> sweep = Sweep.rates(SWEEP_RATES).run(rate -> run(config, workload, params,
        LoadProfile.poisson(rate).requests(sizes.sweepRequests(rate)).seed(sizes.seed())));
    List<ParetoPoint<String>> points = new ArrayList<>();
    out.println("  rate req/s | requests | achieved req/s | P99 TTFT ms | P99 E2E ms | client");
    for (SweepPoint<Double> p : sweep) {
      RunSummary s = RunSummary.of(p.result());
      String label = String.format(Locale.ROOT, "%.0f req/s", p.level());
      ParetoPoint.of(label, s, LatencyMetric.E2E, 0.99).ifPresent(points::add);
      out.printf(Locale.ROOT, "  %10.0f | %8d | %14.1f | %11.1f | %10.1f | %s%n", p.level(), s.requests().measured(),
          orNaN(s.requestThroughputRps()), orNaN(s.distribution(LatencyMetric.TTFT).p99()),
          orNaN(s.distribution(LatencyMetric.E2E).p99()), s.clientHealth().verdict());
    }
    // The knee is on the achieved throughput (seed 002 §3.2: Δlatency/ΔQPS over the measured QPS). Kneedle's
    // threshold drops S × the mean step of the normalized curve (1/4 with five levels) below each candidate:
    // kneed's default S = 1 often finds no knee on a curve this short, S = 0.5 does.
    SweepKnees knees = SweepKnees.ofSweep(sweep, LatencyMetric.TTFT, 0.99, Kneedle.latencyCurve().sensitivity(0.5),
        SlopeThreshold.of(KNEE_SLOPE_MS_PER_RPS));
    out.println();
    out.println("Knee of the P99 TTFT curve against achieved req/s:");
    for (String warning : knees.clientWarnings()) {
      out.println("  WARNING client not trustworthy at " + warning);
    }
    out.println("  Kneedle: " + knees.kneedleLabel().map(l -> String.format(Locale.ROOT, "%s (P99 TTFT %.1f ms)", l,
        knees.kneedle().kneeY().orElse(Double.NaN))).orElse("none found"));
    out.println("  Slope above " + KNEE_SLOPE_MS_PER_RPS + " ms per achieved req/s: " + knees.slopeLabel()
        .map(l -> "reached at " + l + ", last acceptable level " + knees.lastAcceptableLabel().orElse("none"))
        .orElse("never"));
    ParetoFront<String> pareto = ParetoFront.of(points);
    out.println();
    out.println("Pareto front, throughput against P99 E2E (levels no other level beats on both):");
    for (ParetoPoint<String> p : pareto.front()) {
      out.printf(Locale.ROOT, "  %-10s %7.1f req/s at %7.1f ms%n", p.label(), p.throughput(), p.latencyMillis());
    }
    for (ParetoPoint<String> p : pareto.dominated()) {
      out.printf(Locale.ROOT, "  (dominated: %s, %.1f req/s at %.1f ms)%n", p.label(), p.throughput(),
          p.latencyMillis());
    }
    out.printf(Locale.ROOT, "  hypervolume %.0f req/s x ms (reference: 0 req/s, %.1f ms)%n", pareto.hypervolume(),
        pareto.defaultReferenceLatencyMillis());
    return new Result(runA, summaryA, phasesA, surrogates, runB, change, drift, sweep, knees, pareto);
  }

  /**
   * The workload: request {@code i} asks for {@value #OUTPUT_TOKENS} tokens; its prompt is a long
   * document of 4,000–8,000 tokens when {@code i mod }{@value #LONG_EVERY}{@code  == }{@value #LONG_AT},
   * else a short one of 32–256 tokens. Lengths and texts are drawn from {@code seed} and {@code i}
   * (texts differ from request to request, so the server's prefix cache does not shorten prefills).
   */
  static Workload workload(long seed) {
    return (index, intendedNanos, defaults) -> {
      SplittableRandom random = new SplittableRandom(Randoms.mix(seed, index));
      int tokens = index % LONG_EVERY == LONG_AT ? 4000 + random.nextInt(4001) : 32 + random.nextInt(225);
      return new RequestSpec(ExactLength.prompt(SIMULATOR_TOKENS, tokens, random.nextLong()), defaults);
    };
  }

  /**
   * Arrival numbers (from 0, warmup included) of run B's slow-header requests: every {@value #FAULT_EVERY}th
   * measured request, except in the run's last second (so the run does not end waiting for held-back
   * headers).
   */
  static long[] faultyRequests(int total) {
    List<Long> ids = new ArrayList<>();
    for (long i = WARMUP; i + RATE <= total; i++) {
      if (i % FAULT_EVERY == FAULT_AT) {
        ids.add(i);
      }
    }
    return ids.stream().mapToLong(Long::longValue).toArray();
  }

  /**
   * Two surrogate models of E2E: from the request's own features (the built-in columns), then with the
   * {@link FeatureTable#OVERLAPPING_PREFILL_TOKENS} column added. Empty when xgboost4j is not on the classpath.
   */
  private static Optional<Surrogates> explain(RunResult run, PrintStream out) {
    out.println();
    if (!XgboostSurrogate.isAvailable()) {
      out.println("Surrogate models skipped: add " + XgboostSurrogate.MAVEN_COORDINATES
          + " (an optional dependency of infermark-attribution) to explain latency by request features.");
      return Optional.empty();
    }
    XgboostSurrogate xgboost = XgboostSurrogate.builder().build();
    FeatureTable own = FeatureTable.builder().build(run.records());
    SurrogateExplanation ownWhy = xgboost.fit(own, SurrogateTarget.e2e()).explain();
    out.printf(Locale.ROOT, "What drives E2E? An xgboost model of each request's E2E from its own features (%d "
        + "requests), explained with TreeSHAP:%n", own.rowCount());
    print(ownWhy, out);
    out.println("Read the fit before the attributions. Requests also slow each other down: a short request that");
    out.println("decodes beside someone else's long prefill waits for it, and nothing in its own features says so.");
    out.println("A column that does:");
    out.println();
    FeatureTable shared = FeatureTable.builder().overlappingPrefillTokens().build(run.records());
    SurrogateExplanation sharedWhy = xgboost.fit(shared, SurrogateTarget.e2e()).explain();
    out.printf(Locale.ROOT, "The same model with %s (prompt tokens other requests prefilled while this one was in "
        + "flight):%n", FeatureTable.OVERLAPPING_PREFILL_TOKENS);
    print(sharedWhy, out);
    return Optional.of(new Surrogates(ownWhy, sharedWhy));
  }

  private static void print(SurrogateExplanation why, PrintStream out) {
    out.printf(Locale.ROOT, "  %-26s %14s%n", "factor", "mean |SHAP| ms");
    for (FactorImportance f : why.importance()) {
      out.printf(Locale.ROOT, "  %-26s %14.1f%n", f.factor(), f.meanAbsShap());
    }
    out.printf(Locale.ROOT, "  held-out fit: R² %.2f, RMSE %.1f ms (%d requests trained, %d held out)%n",
        why.fit().rSquared().orElse(Double.NaN), why.fit().rmseMillis().orElse(Double.NaN), why.fit().trainRows(),
        why.fit().testRows());
    out.printf(Locale.ROOT, "  base %.1f ms + attributions = the model's prediction for every request, within "
        + "%.1e ms%n", why.baseValue(), why.maxEfficiencyGap());
  }

  /** One run against a simulator of its own. */
  private static RunResult run(SimulatorConfig config, Workload workload, GenerationParams params, LoadProfile load) {
    try (Simulator simulator = Simulator.start(config);
        OpenAiTarget target = OpenAiTarget.chat(simulator.baseUrl() + "/v1", config.model()).build()) {
      // No pre-flight request: the simulator's faults are placed on its request numbers, from 0.
      return Benchmark.target(target).preflight(false).workload(workload).params(params).load(load).run();
    }
  }

  /** A warning line naming the reasons when a run's client was DEGRADED or CLIENT_BOUND. */
  private static void warnIfUntrusted(PrintStream out, String label, RunResult run) {
    if (run.clientHealth().isWarning()) {
      out.printf(Locale.ROOT, "WARNING: %s's client was %s (measurement floor %.1f ms): %s%n", label,
          run.clientHealth().verdict(), run.clientHealth().floorMillis(), run.clientHealth().reasonText());
    }
  }

  private static String line(RunSummary s) {
    return String.format(Locale.ROOT, "%d measured, %d failed; throughput %.1f req/s; E2E P50 %.1f ms, P99 %.1f ms",
        s.requests().measured(), s.requests().failed(), orNaN(s.requestThroughputRps()),
        orNaN(s.distribution(LatencyMetric.E2E).p50()), orNaN(s.distribution(LatencyMetric.E2E).p99()));
  }

  private static double orNaN(OptionalDouble v) {
    return v.orElse(Double.NaN);
  }

  private static void heading(PrintStream out, String title) {
    out.println();
    out.println("== " + title + " " + "=".repeat(Math.max(3, 100 - title.length())));
  }
}
