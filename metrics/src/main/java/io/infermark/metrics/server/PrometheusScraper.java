package io.infermark.metrics.server;

import io.infermark.core.RunListener;
import io.infermark.core.RunResult;
import io.infermark.core.RunStart;
import io.infermark.core.control.ControlSignal;
import io.infermark.core.time.Clock;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls a Prometheus endpoint (vLLM's, SGLang's, TGI's or the simulator's {@code /metrics}) while a
 * run goes on, and keeps chosen series on the run's clock so they line up with its time series:
 * register it with {@code Benchmark.listener(scraper)}; it starts scraping when the run starts and
 * stops when it finishes (after one last scrape of the run's end state), on its own daemon thread, every
 * {@link Builder#interval(Duration)} (1 s by default).
 *
 * <pre>{@code
 * PrometheusScraper scraper = PrometheusScraper.builder("http://localhost:8000/metrics")
 *     .series("vllm:num_requests_running").series("vllm:num_requests_waiting")
 *     .series("vllm:gpu_cache_usage_perc").build();
 * Benchmark.target(t).prompts(p).load(l).listener(scraper).run();
 * List<ServerSeries> server = scraper.series();
 * DoubleSupplier waiting = scraper.latest("vllm:num_requests_waiting");   // for a controller
 * }</pre>
 *
 * <p>Each sample is stamped with the midpoint of its scrape's request and response on the run's
 * clock, in nanoseconds from the run's origin, and keeps both ends ({@link ServerSeries#fromNanos},
 * {@link ServerSeries#toNanos}): the server read the value somewhere in between. A selector with no matching sample in a scrape gets
 * no point for it. A failed scrape (connection refused, non-2xx, no answer within {@link Builder#timeout(Duration)})
 * is logged once at WARN and counted ({@link #failedScrapes()}); scraping goes on. The URL's user info and query are
 * never logged.
 *
 * <p>A slow endpoint is waited for, not given up on: some servers answer {@code /metrics} only between batches
 * (llama.cpp's waits behind prompt processing, often for seconds), so the default timeout is
 * {@value #DEFAULT_TIMEOUT_SECONDS} s. A scrape that ends after the next one was due is <em>late</em>
 * ({@link #lateScrapes()}; its sample keeps its true time span), and the ticks it overran are skipped rather than
 * fired back to back, so one slow answer never turns into a burst of scrapes.
 */
public final class PrometheusScraper implements RunListener, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(PrometheusScraper.class);

  /** The default time one scrape may take before it counts as failed, in seconds. */
  public static final long DEFAULT_TIMEOUT_SECONDS = 30;

  private final HttpUrl url;
  private final Duration interval;
  private final OkHttpClient client;
  private final List<SeriesSelector> selectors;
  private final Map<String, Points> points = new LinkedHashMap<>();
  private final Map<String, Latest> latest = new LinkedHashMap<>();
  private final AtomicInteger failures = new AtomicInteger();
  private final AtomicInteger scrapes = new AtomicInteger();
  private final AtomicInteger late = new AtomicInteger();
  private final AtomicInteger skipped = new AtomicInteger();
  private final Duration timeout;
  /** When the next scrape is due, on the run's clock (absolute nanos); written by the scraping thread only. */
  private long dueNanos;
  private volatile Clock clock;
  private volatile long originNanos;
  private ScheduledExecutorService executor;

  private PrometheusScraper(Builder b) {
    this.url = b.url;
    this.interval = b.interval;
    this.timeout = b.timeout;
    this.client = b.client;
    this.selectors = List.copyOf(b.selectors);
    for (SeriesSelector s : selectors) {
      points.put(s.displayName(), new Points());
      latest.put(s.displayName(), new Latest());
    }
  }

  /**
   * A builder for the given endpoint.
   *
   * @throws IllegalArgumentException if the URL is not http(s)
   */
  public static Builder builder(String url) {
    return new Builder(url);
  }

  @Override
  public synchronized void onRunStarted(RunStart start) {
    start(start.clock(), start.originNanos());
  }

  /**
   * Starts scraping outside a run (a host that drives its own load): times are then from {@code origin}.
   *
   * @throws IllegalStateException if already scraping
   */
  public synchronized void start(Clock runClock, long origin) {
    if (executor != null) {
      throw new IllegalStateException("already scraping " + redacted());
    }
    bindClock(runClock, origin);
    java.util.concurrent.ScheduledThreadPoolExecutor e = new java.util.concurrent.ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "infermark-prometheus-scraper");
      t.setDaemon(true);
      return t;
    });
    // At the run's end the next tick is dropped; only a scrape already running is waited for.
    e.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    executor = e;
    executor.execute(this::tick);
  }

  /**
   * One scheduled scrape, then the next one at the first interval tick after it ended: ticks it overran are skipped
   * (and the scrape counted late), so a slow endpoint is scraped as often as it answers, never in a burst.
   */
  void tick() {
    Clock c = clock;
    scrapeQuietly();
    long now = c.nanoTime();
    long step = interval.toNanos();
    long next = dueNanos + step;
    if (now - next > 0) {
      late.incrementAndGet();
      long missed = (now - next) / step + 1;
      skipped.addAndGet((int) Math.min(missed, Integer.MAX_VALUE));
      next += missed * step;
    }
    dueNanos = next;
    synchronized (this) {
      if (executor != null && !executor.isShutdown()) {
        executor.schedule(this::tick, Math.max(0, next - now), TimeUnit.NANOSECONDS);
      }
    }
  }

  /** Sets the clock and origin sample times are taken on, without starting the thread (tests scrape by hand). */
  void bindClock(Clock runClock, long origin) {
    this.clock = Objects.requireNonNull(runClock, "runClock");
    this.originNanos = origin;
    this.dueNanos = runClock.nanoTime();
  }

  /**
   * Ends scraping at the run's end: a scrape in flight is waited for (up to the timeout: late, not lost), then one
   * last scrape on the calling thread records the run's end state (counters' final values; a run shorter than
   * the interval still gets a sample).
   */
  @Override
  public void onRunFinished(RunResult result) {
    finish();
  }

  /** Stops the schedule, waits for a scrape in flight (up to the timeout), then scrapes once more. */
  void finish() {
    ScheduledExecutorService e;
    synchronized (this) {
      e = executor;
      executor = null;
    }
    if (e == null) {
      return;
    }
    e.shutdown();
    try {
      if (!e.awaitTermination(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
        e.shutdownNow();
      }
    } catch (InterruptedException interrupted) {
      e.shutdownNow();
      Thread.currentThread().interrupt();
      return;
    }
    scrapeQuietly();
  }

  /** Stops scraping; the series keep what was collected. Idempotent. */
  public synchronized void stop() {
    if (executor != null) {
      executor.shutdownNow();
      executor = null;
    }
  }

  @Override
  public void close() {
    stop();
  }

  private void scrapeQuietly() {
    try {
      scrapeOnce();
    } catch (RuntimeException e) {
      // Never let an exception cancel the schedule.
      noteFailure(e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  /**
   * Scrapes once now, on the calling thread, and records what the selectors match.
   *
   * @return true when the scrape succeeded
   * @throws IllegalStateException if neither a run nor {@link #start} gave a clock
   */
  public boolean scrapeOnce() {
    Clock c = clock;
    if (c == null) {
      throw new IllegalStateException("no clock yet: register the scraper with a run or call start(clock, origin)");
    }
    long before = c.nanoTime();
    String body;
    try (Response response = client.newCall(new Request.Builder().url(url).get().build()).execute()) {
      if (!response.isSuccessful()) {
        noteFailure("HTTP " + response.code());
        return false;
      }
      ResponseBody b = response.body();
      body = b.string();
    } catch (IOException e) {
      noteFailure(e.getClass().getSimpleName() + ": " + e.getMessage());
      return false;
    }
    long after = c.nanoTime();
    long at = before + (after - before) / 2 - originNanos;
    record(PrometheusText.parse(body), before - originNanos, at, after - originNanos);
    scrapes.incrementAndGet();
    return true;
  }

  private void record(PrometheusText.Page page, long fromNanos, long atNanos, long toNanos) {
    for (SeriesSelector s : selectors) {
      double sum = 0;
      boolean found = false;
      for (PrometheusText.Sample sample : page.samples()) {
        if (s.matches(sample)) {
          sum += sample.value();
          found = true;
        }
      }
      if (found) {
        points.get(s.displayName()).add(fromNanos, atNanos, toNanos, sum);
        latest.get(s.displayName()).value = sum;
      }
    }
  }

  private void noteFailure(String what) {
    if (failures.getAndIncrement() == 0) {
      LOG.warn("scraping {} failed ({}); will keep trying every {}", redacted(), what, interval);
    } else {
      LOG.debug("scraping {} failed again: {}", redacted(), what);
    }
  }

  private String redacted() {
    return url.newBuilder().username("").password("").query(null).build().toString();
  }

  /** The series collected so far, in selector order. */
  public List<ServerSeries> series() {
    List<ServerSeries> out = new ArrayList<>();
    points.forEach((name, p) -> out.add(p.toSeries(name)));
    return out;
  }

  /**
   * The latest value of a series as a supplier a controller can poll: NaN until the first
   * successful scrape that matched it.
   *
   * @param displayName the selector's {@link SeriesSelector#displayName()}, e.g. {@code vllm:num_requests_waiting}
   * @throws IllegalArgumentException if no selector has that name
   */
  public DoubleSupplier latest(String displayName) {
    Latest l = latest.get(displayName);
    if (l == null) {
      throw new IllegalArgumentException("no series named '" + displayName + "'; selected are " + latest.keySet());
    }
    return () -> l.value;
  }

  /**
   * The latest value of a series as a {@link ControlSignal} for a rate controller
   * ({@code LoadProfile.controlled(...)}): empty until the first successful scrape that matched it.
   * Reading it never blocks the scheduler (unlike core's {@code PrometheusGauge}, which fetches
   * on the scheduling thread): the scraper's own thread keeps it current, so register the scraper
   * as a listener of the same run.
   *
   * @param displayName the selector's {@link SeriesSelector#displayName()}
   * @throws IllegalArgumentException if no selector has that name
   */
  public ControlSignal controlSignal(String displayName) {
    DoubleSupplier value = latest(displayName);
    return ControlSignal.of(displayName, elapsedNanos -> {
      double v = value.getAsDouble();
      return Double.isNaN(v) ? OptionalDouble.empty() : OptionalDouble.of(v);
    });
  }

  /** Scrapes that failed (error, non-2xx, or no answer within the timeout). */
  public int failedScrapes() {
    return failures.get();
  }

  /**
   * Scheduled scrapes that ended after the next one was due (succeeded or not): the endpoint answered slower than
   * the interval. Their samples are kept, with their real time span.
   */
  public int lateScrapes() {
    return late.get();
  }

  /** Interval ticks skipped because a late scrape overran them. */
  public int skippedTicks() {
    return skipped.get();
  }

  /** The endpoint, without user info or query. */
  public String endpoint() {
    return redacted();
  }

  /** How often scrapes are scheduled. */
  public Duration interval() {
    return interval;
  }

  /** How long one scrape may take before it counts as failed. */
  public Duration timeout() {
    return timeout;
  }

  /**
   * What was scraped: endpoint, interval, timeout, counts of successful, late and failed scrapes, and the series
   * collected so far.
   */
  public ScrapeReport report() {
    return new ScrapeReport(redacted(), interval, timeout, scrapes.get(), late.get(), failures.get(), series());
  }

  /** Scrapes that succeeded. */
  public int successfulScrapes() {
    return scrapes.get();
  }

  @Override
  public String toString() {
    return "PrometheusScraper[" + redacted() + " every " + interval + ", " + points.keySet() + "]";
  }

  /** A volatile latest value. */
  private static final class Latest {
    volatile double value = Double.NaN;
  }

  /** Growable synchronized (time, value) arrays. */
  private static final class Points {
    private long[] times = new long[64];
    private long[] from = new long[64];
    private long[] to = new long[64];
    private double[] values = new double[64];
    private int size;

    synchronized void add(long f, long t, long u, double v) {
      if (size == times.length) {
        times = Arrays.copyOf(times, size * 2);
        from = Arrays.copyOf(from, size * 2);
        to = Arrays.copyOf(to, size * 2);
        values = Arrays.copyOf(values, size * 2);
      }
      times[size] = t;
      from[size] = f;
      to[size] = u;
      values[size++] = v;
    }

    synchronized ServerSeries toSeries(String name) {
      return new ServerSeries(name, Arrays.copyOf(times, size), Arrays.copyOf(values, size), Arrays.copyOf(from, size),
          Arrays.copyOf(to, size));
    }
  }

  /** Builds a {@link PrometheusScraper}. */
  public static final class Builder {
    private final HttpUrl url;
    private Duration interval = Duration.ofSeconds(1);
    private Duration timeout = Duration.ofSeconds(DEFAULT_TIMEOUT_SECONDS);
    private OkHttpClient client;
    private final List<SeriesSelector> selectors = new ArrayList<>();

    private Builder(String url) {
      Objects.requireNonNull(url, "url");
      HttpUrl parsed = HttpUrl.parse(url);
      if (parsed == null) {
        throw new IllegalArgumentException("url must be an http or https URL, was '" + url.replaceAll("//[^@/]*@",
            "//") + "'");
      }
      this.url = parsed;
    }

    /**
     * How often to scrape; 1 s by default.
     *
     * @throws IllegalArgumentException if shorter than 10 ms
     */
    public Builder interval(Duration interval) {
      Objects.requireNonNull(interval, "interval");
      if (interval.toMillis() < 10) {
        throw new IllegalArgumentException("interval must be at least 10 ms, was " + interval);
      }
      this.interval = interval;
      return this;
    }

    /**
     * How long one scrape may take (connect, send, read the whole page) before it counts as failed;
     * {@value PrometheusScraper#DEFAULT_TIMEOUT_SECONDS} s by default. Ignored when a {@link #client} is given (its own
     * timeouts apply).
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder timeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("timeout must be positive, was " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /** The HTTP client; by default a new one whose call timeout is {@link #timeout}. */
    public Builder client(OkHttpClient client) {
      this.client = Objects.requireNonNull(client, "client");
      return this;
    }

    /** Keeps every sample of a metric, summed. */
    public Builder series(String metricName) {
      return series(SeriesSelector.of(metricName));
    }

    /** Keeps the samples a selector matches, summed. */
    public Builder series(SeriesSelector selector) {
      Objects.requireNonNull(selector, "selector");
      for (SeriesSelector s : selectors) {
        if (s.displayName().equals(selector.displayName())) {
          throw new IllegalArgumentException("series " + selector.displayName() + " is already selected");
        }
      }
      selectors.add(selector);
      return this;
    }

    /**
     * The scraper.
     *
     * @throws IllegalStateException if no series was selected
     */
    public PrometheusScraper build() {
      if (selectors.isEmpty()) {
        throw new IllegalStateException("select at least one series to keep");
      }
      if (client == null) {
        client = new OkHttpClient.Builder().callTimeout(timeout).readTimeout(timeout).connectTimeout(timeout).build();
      }
      return new PrometheusScraper(this);
    }
  }
}
