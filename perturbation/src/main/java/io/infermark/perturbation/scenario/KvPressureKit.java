package io.infermark.perturbation.scenario;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.Prompt;
import io.infermark.core.stats.QuantileMethod;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.perturbation.operator.Draft;
import io.infermark.perturbation.operator.Padding;
import io.infermark.perturbation.scenario.KvPressureVerdict.Cell;
import io.infermark.perturbation.scenario.KvPressureVerdict.Quadrant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;

/**
 * Scenario kit: KV-cache memory pressure (seed 003 §2.4). A grid of context lengths x concurrencies
 * is run cell by cell while the server's Prometheus metrics are scraped; the kit finds the cell where
 * the server starts preempting sequences ({@code vllm:num_preemptions_total} rises) and judges every
 * cell against two thresholds at once: KV memory ({@code vllm:kv_cache_usage_perc}, default 0.9) and
 * latency (P99 TTFT, and the P95 end to end of seed 003 §2.4's "P95推理延迟阈值 120ms" when
 * {@link Builder#p95LatencyLimit} is set).
 *
 * <pre>{@code
 * KvPressureKit kit = KvPressureKit.builder(TokenCounter.estimate()).contexts(512, 2048, 8192)
 *     .concurrencies(1, 8, 32).requestsPerStream(4).p99TtftLimit(Duration.ofMillis(500)).build();
 * List<KvPressureKit.Readings> cells = new ArrayList<>();
 * for (KvPressureKit.Point p : kit.points()) {
 *   try (PrometheusScraper scraper = PrometheusScraper.builder(base + "/metrics")
 *       .series("vllm:kv_cache_usage_perc").series("vllm:num_preemptions_total").build()) {
 *     RunResult run = Benchmark.target(target).prompts(kit.prompts(p)).params(params)
 *         .load(kit.load(p)).listener(scraper).run();
 *     ServerSeries kv = scraper.series().get(0);
 *     ServerSeries pre = scraper.series().get(1);
 *     cells.add(new KvPressureKit.Readings(p, run.measured(), kv.max().orElse(0),
 *         pre.latest().orElse(0) - pre.value(0), Double.NaN));
 *   }
 * }
 * KvPressureVerdict verdict = kit.verdict(cells);
 * }</pre>
 *
 * <p><b>Verdict:</b> each cell falls in one {@link Quadrant}: memory high when its peak KV usage is at
 * least the memory threshold, latency high when its P99 TTFT exceeds the limit (or more than
 * {@code maxFailureRate} [0] of its requests failed). The preemption onset is the first cell, by
 * context then concurrency, with a preemption. The kit passes when no cell preempted and none is
 * {@link Quadrant#SCALE_OUT}.
 */
public final class KvPressureKit {

  /** The tag naming the scenario. */
  public static final String SCENARIO = "kv-pressure";

  private final TokenCounter counter;
  private final int[] contexts;
  private final int[] concurrencies;
  private final int requestsPerStream;
  private final double memoryThreshold;
  private final Duration p99TtftLimit;
  private final Duration p95LatencyLimit;
  private final double maxFailureRate;

  /**
   * One cell of the grid.
   *
   * @param contextTokens prompt length, tokens
   * @param concurrency concurrent streams
   */
  public record Point(int contextTokens, int concurrency) {}

  /**
   * What was measured at one point: the client's records and the server's readings.
   *
   * @param point the cell
   * @param records its measured records
   * @param peakKvUsage the highest KV-cache usage scraped, 0 to 1
   * @param preemptions the preemption counter's increase during the cell
   * @param peakFragmentation the highest KV fragmentation scraped, 0 to 1, or NaN when the server does not report it
   */
  public record Readings(Point point, List<RequestRecord> records, double peakKvUsage, double preemptions,
      double peakFragmentation) {

    /** Validates and copies. */
    public Readings {
      Objects.requireNonNull(point, "point");
      records = List.copyOf(records);
      if (!(peakKvUsage >= 0) || !(preemptions >= 0)) {
        throw new IllegalArgumentException("peakKvUsage and preemptions must be >= 0, were " + peakKvUsage + " and "
            + preemptions + "; a counter that went down means the server restarted during the cell");
      }
    }
  }

  private KvPressureKit(Builder b) {
    this.counter = b.counter;
    this.contexts = b.contexts.clone();
    this.concurrencies = b.concurrencies.clone();
    this.requestsPerStream = b.requestsPerStream;
    this.memoryThreshold = b.memoryThreshold;
    this.p99TtftLimit = b.p99TtftLimit;
    this.p95LatencyLimit = b.p95LatencyLimit;
    this.maxFailureRate = b.maxFailureRate;
  }

  /** A builder; prompts are padded to length with {@code counter}'s counts. */
  public static Builder builder(TokenCounter counter) {
    return new Builder(Objects.requireNonNull(counter, "counter"));
  }

  /** Every cell, by context then concurrency. */
  public List<Point> points() {
    List<Point> out = new ArrayList<>();
    for (int c : contexts) {
      for (int n : concurrencies) {
        out.add(new Point(c, n));
      }
    }
    return List.copyOf(out);
  }

  /**
   * The prompts of a cell: one per request, each a distinct text of about {@code contextTokens}
   * tokens (distinct, so a prefix cache cannot share their KV), tagged with the scenario and cell.
   */
  public List<Prompt> prompts(Point p) {
    int n = p.concurrency() * requestsPerStream;
    Padding padding = Padding.toTokens(counter, p.contextTokens());
    List<Prompt> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Draft d = new Draft("", Optional.empty());
      d.dimension("kv-pressure");
      padding.apply(d, 0, new SplittableRandom(((long) p.contextTokens() << 32) ^ (p.concurrency() * 7919L) ^ i));
      out.add(Prompt.text(i + " " + d.text().strip()).withTag("scenario", SCENARIO)
          .withTag("kv.context", Integer.toString(p.contextTokens()))
          .withTag("kv.concurrency", Integer.toString(p.concurrency())));
    }
    return List.copyOf(out);
  }

  /** The load of a cell: a closed loop of its concurrency, {@code requestsPerStream} requests per stream. */
  public LoadProfile load(Point p) {
    return LoadProfile.concurrency(p.concurrency()).requests(p.concurrency() * requestsPerStream);
  }

  /**
   * The verdict over the measured cells.
   *
   * @throws IllegalArgumentException if no cell is given
   */
  public KvPressureVerdict verdict(List<Readings> readings) {
    if (readings.isEmpty()) {
      throw new IllegalArgumentException("no cells measured: run each of points() and pass its readings");
    }
    List<Readings> sorted = new ArrayList<>(readings);
    sorted.sort(Comparator.comparingInt((Readings r) -> r.point().contextTokens())
        .thenComparingInt(r -> r.point().concurrency()));
    List<Cell> cells = new ArrayList<>();
    Optional<Cell> onset = Optional.empty();
    boolean pass = true;
    for (Readings r : sorted) {
      double[] ttft = r.records().stream().filter(x -> x.measured() && x.succeeded())
          .filter(x -> x.chunks().firstTokenOffsetNanos().isPresent())
          .mapToDouble(x -> x.chunks().firstTokenOffsetNanos().getAsLong() / 1e6).sorted().toArray();
      int failed = (int) r.records().stream().filter(x -> x.measured() && !x.succeeded()).count();
      double p99 = ttft.length == 0 ? Double.NaN : QuantileMethod.LINEAR.quantile(ttft, 0.99);
      double[] e2e = r.records().stream().filter(x -> x.measured() && x.succeeded())
          .filter(x -> x.chunks().lastTokenOffsetNanos().isPresent())
          .mapToDouble(x -> x.chunks().lastTokenOffsetNanos().getAsLong() / 1e6).sorted().toArray();
      double e2eP95 = e2e.length == 0 ? Double.NaN : QuantileMethod.LINEAR.quantile(e2e, 0.95);
      boolean memoryHigh = r.peakKvUsage() >= memoryThreshold;
      boolean latencyHigh = ttft.length == 0 || failed > maxFailureRate * (ttft.length + failed)
          || (p99TtftLimit != null && p99 > p99TtftLimit.toNanos() / 1e6)
          || (p95LatencyLimit != null && !(e2eP95 <= p95LatencyLimit.toNanos() / 1e6));
      Quadrant q = memoryHigh ? (latencyHigh ? Quadrant.SCALE_OUT : Quadrant.MEMORY_BOUND)
          : latencyHigh ? Quadrant.LATENCY_BOUND : Quadrant.OK;
      Cell cell = new Cell(r.point().contextTokens(), r.point().concurrency(), ttft.length, failed, p99, e2eP95,
          r.peakKvUsage(), r.preemptions(), r.peakFragmentation(), q);
      cells.add(cell);
      if (r.preemptions() > 0 && onset.isEmpty()) {
        onset = Optional.of(cell);
      }
      if (r.preemptions() > 0 || q == Quadrant.SCALE_OUT) {
        pass = false;
      }
    }
    return new KvPressureVerdict(pass, onset, cells);
  }

  @Override
  public String toString() {
    return "KvPressureKit[contexts " + Arrays.toString(contexts) + " x concurrencies " + Arrays.toString(concurrencies)
        + ", memory threshold " + memoryThreshold + ", p99 TTFT limit " + (p99TtftLimit == null ? "none" : p99TtftLimit)
        + (p95LatencyLimit == null ? "" : ", p95 latency limit " + p95LatencyLimit)
        + "]";
  }

  /** Collects a {@link KvPressureKit}'s grid and thresholds. */
  public static final class Builder {
    private final TokenCounter counter;
    private int[] contexts = {512, 2048, 8192};
    private int[] concurrencies = {1, 8, 32};
    private int requestsPerStream = 4;
    private double memoryThreshold = 0.9;
    private Duration p99TtftLimit;
    private Duration p95LatencyLimit;
    private double maxFailureRate;

    private Builder(TokenCounter counter) {
      this.counter = counter;
    }

    /** Prompt lengths to try, tokens, each &gt; 0 [512, 2048, 8192]. */
    public Builder contexts(int... tokens) {
      this.contexts = positive(tokens, "context");
      return this;
    }

    /** Concurrencies to try, each &gt; 0 [1, 8, 32]. */
    public Builder concurrencies(int... streams) {
      this.concurrencies = positive(streams, "concurrency");
      return this;
    }

    /** Requests each stream sends per cell, &gt; 0 [4]. */
    public Builder requestsPerStream(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("requestsPerStream must be > 0, was " + n);
      }
      this.requestsPerStream = n;
      return this;
    }

    /** The KV-usage threshold, in (0, 1] [0.9]: at or above it a cell is memory-high. */
    public Builder memoryThreshold(double fraction) {
      if (!(fraction > 0 && fraction <= 1)) {
        throw new IllegalArgumentException("memoryThreshold must be in (0, 1], was " + fraction);
      }
      this.memoryThreshold = fraction;
      return this;
    }

    /** The latency threshold: a P99 TTFT above it is latency-high [none: only failures are]. */
    public Builder p99TtftLimit(Duration limit) {
      Objects.requireNonNull(limit, "limit");
      if (limit.isNegative() || limit.isZero()) {
        throw new IllegalArgumentException("p99TtftLimit must be > 0, was " + limit);
      }
      this.p99TtftLimit = limit;
      return this;
    }

    /**
     * Seed 003 §2.4's latency threshold, "P95推理延迟阈值 120ms" (P95 inference latency, swept 80 → 200 ms): a P95
     * end to end above it is latency-high too [none]. Each cell reports its P95 either way.
     */
    public Builder p95LatencyLimit(Duration limit) {
      Objects.requireNonNull(limit, "p95LatencyLimit");
      if (limit.isNegative() || limit.isZero()) {
        throw new IllegalArgumentException("p95LatencyLimit must be > 0, was " + limit);
      }
      this.p95LatencyLimit = limit;
      return this;
    }

    /** The failure share a cell may have without being latency-high, in [0, 1) [0]. */
    public Builder maxFailureRate(double rate) {
      if (!(rate >= 0 && rate < 1)) {
        throw new IllegalArgumentException("maxFailureRate must be in [0, 1), was " + rate);
      }
      this.maxFailureRate = rate;
      return this;
    }

    private static int[] positive(int[] values, String name) {
      Objects.requireNonNull(values, name);
      if (values.length == 0) {
        throw new IllegalArgumentException("give at least one " + name);
      }
      int[] sorted = values.clone();
      Arrays.sort(sorted);
      if (sorted[0] < 1) {
        throw new IllegalArgumentException(name + " values must be > 0, were " + Arrays.toString(values));
      }
      return sorted;
    }

    /** The kit. */
    public KvPressureKit build() {
      return new KvPressureKit(this);
    }
  }
}
