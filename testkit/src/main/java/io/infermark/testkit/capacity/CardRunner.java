package io.infermark.testkit.capacity;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.health.ClientMeasurements;
import io.infermark.core.health.HealthVerdict;
import io.infermark.core.health.ProbeReading;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.protocol.Target;
import io.infermark.core.protocol.TritonGrpcTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.sweep.CeilingResult;
import io.infermark.core.sweep.CeilingSearch;
import io.infermark.core.sweep.CeilingStep;
import io.infermark.core.transport.netty.HttpVersionPolicy;
import io.infermark.core.transport.netty.NettyTransport;
import io.infermark.metrics.RunSummary;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import io.infermark.testkit.simulator.SimulatorProtocol;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/** Measures a {@link CapacityCard}: one ceiling search per row, each step one short run against a fresh simulator. */
final class CardRunner {

  /** A step must reach this share of the offered rate. */
  private static final double KEPT_UP = 0.9;
  private static final Duration TTFT = Duration.ofMillis(5);
  /** The fewest streams the heap per stream is measured at. */
  private static final int HEAP_STREAMS = 1024;

  private final CardSettings settings;
  private final Consumer<String> progress;
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

  CardRunner(CardSettings settings, Consumer<String> progress) {
    this.settings = settings;
    this.progress = progress;
  }

  /** What one step measured. */
  private record Figures(double offered, double achieved, double units, long clientCpuNanos, long floorNanos,
      String boundBy, long failed, long measured, HealthVerdict verdict) {

    double perClientCore() {
      return clientCpuNanos <= 0 ? 0 : units / (clientCpuNanos / 1e9);
    }
  }

  CapacityCard run() {
    long t0 = System.nanoTime();
    String loadBefore = loadAverage();
    // JIT and class loading, off the card; at most a fifth of the budget
    Duration warmup = settings.warmup().compareTo(settings.budget().dividedBy(5)) < 0 ? settings.warmup()
        : settings.budget().dividedBy(5);
    if (!warmup.isZero()) {
      progress.accept("warm-up: " + warmup.toMillis() + " ms of HTTP/1.1 streams, not measured");
      tokens(CardProtocol.HTTP_1_1, settings.tokenStreams() * 50.0, 1, warmup);
    }
    // the streams rows get two shares: their steps hold requests of two gaps each, and a heap step follows
    long remaining = settings.budget().toNanos() - (System.nanoTime() - t0);
    int shares = settings.protocols().size() * (settings.figures().size()
        + (settings.figures().contains(CardFigure.STREAMS) ? 1 : 0));
    long perShare = Math.max(1, remaining / shares);
    // measured figure by figure, each figure's wires one after the other, so the wires of a figure are compared under
    // the same load: measured wire by wire, the last wire's rows all fell in the card's last minute, and a load that
    // rose during the card (13.8 to 21.4 in one) was read as that wire's weakness
    Map<CardProtocol, Map<CardFigure, CardRow>> measured = new EnumMap<>(CardProtocol.class);
    for (CardFigure f : CardFigure.values()) {
      if (!settings.figures().contains(f)) {
        continue;
      }
      for (CardProtocol p : CardProtocol.values()) {
        if (settings.protocols().contains(p)) {
          measured.computeIfAbsent(p, k -> new EnumMap<>(CardFigure.class))
              .put(f, row(p, f, Duration.ofNanos(f == CardFigure.STREAMS ? 2 * perShare : perShare)));
        }
      }
    }
    List<CardRow> rows = new ArrayList<>(); // printed wire by wire
    measured.values().forEach(byFigure -> rows.addAll(byFigure.values()));
    return new CapacityCard(Runtime.getRuntime().availableProcessors(), loadBefore, loadAverage(),
        System.getProperty("java.version"), collectors(), settings, Duration.ofNanos(System.nanoTime() - t0), rows);
  }

  private CardRow row(CardProtocol p, CardFigure f, Duration budget) {
    Map<Double, Figures> seen = new HashMap<>();
    String name = p.label() + " " + (f == CardFigure.BATCHED_TOKENS
        ? "streamed tokens/s, " + settings.tokensPerChunk() + " per chunk" : f.label());
    int s = settings.tokenStreams();
    double stepSeconds = settings.step().toNanos() / 1e9;
    CeilingSearch.Builder search = CeilingSearch.builder().growth(settings.growth()).tolerance(settings.tolerance())
        .budget(f == CardFigure.STREAMS ? budget.multipliedBy(4).dividedBy(5) : budget); // the heap step after it
    CeilingSearch.Measurement m;
    switch (f) {
      case STREAMED_TOKENS, BATCHED_TOKENS -> {
        int k = f == CardFigure.STREAMED_TOKENS ? 1 : settings.tokensPerChunk();
        // lowest: two chunks per request within one step; highest: 1 ms between a stream's chunks
        double min = s * 2.0 * k / stepSeconds;
        search.start(Math.max(min, s * 50.0 * k / 4)).min(min).max(s * 1000.0 * k);
        m = level -> judge(name, level, seen, tokens(p, level, k, settings.step()), true);
      }
      case REQUESTS -> {
        search.start(100).min(Math.max(4, 8 / stepSeconds)).max(50_000);
        m = level -> judge(name, level, seen, requests(p, level), true);
      }
      default -> {
        search.start(64).min(8).max(maxStreams(p)).integral(true);
        m = level -> judge(name, level, seen, streams(p, (int) level, false), false);
      }
    }
    CeilingResult r = search.build().run(m);
    OptionalDouble heap = OptionalDouble.empty();
    if (f == CardFigure.STREAMS) {
      // at the ceiling, but at least HEAP_STREAMS: a few streams' share drowns in the collector's own variation
      int n = (int) Math.max(r.ceiling().orElse(0), Math.min(HEAP_STREAMS, maxStreams(p)));
      Figures h = streams(p, n, true);
      heap = OptionalDouble.of(h.units());
      progress.accept(String.format(Locale.ROOT, "%s: heap %.1f KiB per stream at %d streams", name,
          h.units() / 1024, n));
    }
    String limitedBy = r.firstFailure().isPresent()
        ? r.steps().stream().filter(st -> !st.passed() && st.level() == r.firstFailure().getAsDouble())
            .map(st -> String.format(Locale.ROOT, "%,.0f %s: %s", st.level(), f.unit(), st.detail())).findFirst()
            .orElse("")
        : "";
    if (r.ceiling().isEmpty()) {
      return new CardRow(p, f, r, OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty(), "", heap,
          limitedBy);
    }
    Figures at = seen.get(r.ceiling().getAsDouble());
    return new CardRow(p, f, r, OptionalDouble.of(at.achieved()),
        f == CardFigure.STREAMS ? OptionalDouble.empty() : OptionalDouble.of(at.perClientCore()),
        OptionalDouble.of(at.floorNanos() / 1e6), at.boundBy(), heap, limitedBy);
  }

  private CeilingStep judge(String name, double level, Map<Double, Figures> seen, Figures f, boolean rate) {
    seen.put(level, f);
    List<String> why = new ArrayList<>();
    if (f.verdict() == HealthVerdict.UNMEASURED) {
      why.add("the client's health was not measured");
    }
    if (f.floorNanos() > settings.errorBoundLimit().toNanos()) {
      why.add(String.format(Locale.ROOT, "error bound %.2f ms > %.2f ms", f.floorNanos() / 1e6,
          settings.errorBoundLimit().toNanos() / 1e6));
    }
    if (f.failed() > 0) {
      why.add(f.failed() + " of " + f.measured() + " requests failed");
    }
    if (f.measured() == 0) {
      why.add("no request was measured");
    }
    if (rate && f.achieved() < KEPT_UP * f.offered()) {
      why.add(String.format(Locale.ROOT, "%,.0f/s of %,.0f/s offered", f.achieved(), f.offered()));
    }
    String detail = String.format(Locale.ROOT, "error bound %.2f ms (%s), %,.0f %s, %d requests, %.0f per client core",
        f.floorNanos() / 1e6, f.boundBy(), f.achieved(), rate ? "per second" : "held", f.measured(),
        f.perClientCore());
    if (!why.isEmpty()) {
      detail = String.join("; ", why) + " [" + detail + "]";
    }
    CeilingStep step = why.isEmpty() ? CeilingStep.pass(level, detail) : CeilingStep.fail(level, detail);
    progress.accept(String.format(Locale.ROOT, "%s: %s", name, step));
    return step;
  }

  /** A closed loop of the token-rate streams, offering {@code rate} tokens/s, {@code k} tokens per chunk. */
  private Figures tokens(CardProtocol p, double rate, int k, Duration measured) {
    int s = settings.tokenStreams();
    Duration itl = Duration.ofNanos(Math.max(1, Math.round(s / rate * 1e9)));
    double seconds = measured.toNanos() / 1e9;
    // a request lasts about a quarter of the step, at least two chunks
    int n = (int) Math.max(2L * k, Math.min(1024, Math.round(seconds / 4 / (itl.toNanos() / 1e9))));
    n = (n + k - 1) / k * k;
    SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(TTFT).interTokenInterval(itl)
        .defaultOutputTokens(n).tokensPerChunk(k).timelineRetention(1000).build();
    Duration request = TTFT.plus(itl.multipliedBy(n));
    LoadProfile load = LoadProfile.concurrency(s).warmupRequests(s).duration(request.plus(measured))
        .drainTimeout(request.multipliedBy(2).plusSeconds(5));
    return step(p, config, load, GenerationParams.builder().maxTokens(n).ignoreEos(true).build(), rate, Kind.TOKENS,
        n);
  }

  /** Non-streamed requests, open loop at {@code rate} per second. */
  private Figures requests(CardProtocol p, double rate) {
    SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(1))
        .interTokenInterval(Duration.ZERO).defaultOutputTokens(16).timelineRetention(1000).build();
    Duration warm = settings.step().dividedBy(4);
    LoadProfile load = LoadProfile.constantRate(rate).warmup(warm).duration(warm.plus(settings.step()))
        .drainTimeout(Duration.ofSeconds(10));
    return step(p, config, load, GenerationParams.builder().maxTokens(16).ignoreEos(true).stream(false).build(), rate,
        Kind.REQUESTS, 16);
  }

  /**
   * {@code streams} streams with long gaps between their tokens: three tokens a request, so each request spans two
   * gaps; the first wave opens the connections and is warm-up. With {@code heap}, instead of judging, the heap in
   * use per stream is measured halfway through (after a full collection) and returned as the figures' units.
   */
  private Figures streams(CardProtocol p, int streams, boolean heap) {
    Duration gap = settings.streamGap();
    int n = 3;
    Duration request = TTFT.plus(gap.multipliedBy(n - 1));
    Duration measured = request.compareTo(settings.step()) > 0 ? request : settings.step();
    SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(TTFT).interTokenInterval(gap)
        .defaultOutputTokens(n).timelineRetention(1000).build();
    LoadProfile load = LoadProfile.concurrency(streams).warmupRequests(streams).duration(request.plus(measured))
        .drainTimeout(request.multipliedBy(2).plusSeconds(10));
    return step(p, config, load, GenerationParams.builder().maxTokens(n).ignoreEos(true).build(), streams,
        heap ? Kind.HEAP : Kind.STREAMS, n);
  }

  /** What a step measures. */
  private enum Kind { TOKENS, REQUESTS, STREAMS, HEAP }

  /**
   * One run against a fresh simulator. Every request asks for {@code tokens} tokens with {@code ignore_eos}, and the
   * simulator streams exactly that many, so a succeeded request's tokens are known without counting them from the
   * stream (a Triton response carries no usage; its tokens are counted from each response's num_output_tokens).
   */
  private Figures step(CardProtocol p, SimulatorConfig config, LoadProfile load, GenerationParams params,
      double offered, Kind kind, int tokens) {
    SimulatorProtocol wire = p == CardProtocol.HTTP_1_1 ? SimulatorProtocol.HTTP_1_1 : SimulatorProtocol.H2C;
    try (Simulator sim = Simulator.start(config, wire); Target target = target(p, sim)) {
      Benchmark bench = Benchmark.target(target).preflight(false).prompts(Prompt.user("How much can one client read?"))
          .params(params).load(load);
      long base = 0;
      CompletableFuture<Long> inUse = null;
      if (kind == Kind.HEAP) {
        base = heapAfterGc();
        long at = load.duration().orElseThrow().toNanos() * 3 / 4;
        inUse = CompletableFuture.supplyAsync(() -> {
          LockSupport.parkNanos(at);
          return heapAfterGc();
        });
      }
      Map<Long, Long> simBefore = simulatorThreadCpu();
      long cpu0 = processCpuNanos();
      RunResult run = bench.run();
      long cpu = processCpuNanos() - cpu0;
      long simCpu = 0;
      for (Map.Entry<Long, Long> e : simulatorThreadCpu().entrySet()) {
        simCpu += e.getValue() - simBefore.getOrDefault(e.getKey(), 0L);
      }
      if (kind == Kind.HEAP) {
        long used = inUse.get(1, TimeUnit.MINUTES) - base;
        return new Figures(offered, offered, Math.max(0, used) / offered, 0, 0, "", 0, run.measured().size(),
            HealthVerdict.UNMEASURED);
      }
      double units = 0;
      for (RequestRecord r : run.records()) {
        units += r.succeeded() ? (kind == Kind.REQUESTS ? 1 : tokens) : 0;
      }
      double requestRate = RunSummary.of(run).requestThroughputRps().orElse(0);
      double achieved = switch (kind) {
        case TOKENS -> requestRate * tokens;
        case REQUESTS -> requestRate;
        default -> offered; // the streams row holds its streams by construction (a closed loop)
      };
      ClientHealth h = run.clientHealth();
      return new Figures(offered, achieved, units, Math.max(0, cpu - simCpu), h.floorNanos(), boundBy(h),
          run.failureCount(), run.measured().size(), h.verdict());
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("a capacity card step failed: " + e, e);
    }
  }

  private static Target target(CardProtocol p, Simulator sim) {
    String model = sim.config().model();
    return switch (p) {
      case HTTP_1_1 -> OpenAiTarget.chat(sim.baseUrl() + "/v1", model).transport(NettyTransport.builder().build())
          .connectTimeout(Duration.ofSeconds(30)).build();
      case H2C -> OpenAiTarget.chat(sim.baseUrl() + "/v1", model)
          .transport(NettyTransport.builder().httpVersion(HttpVersionPolicy.HTTP_2).build())
          .connectTimeout(Duration.ofSeconds(30)).build();
      case GRPC -> TritonGrpcTarget.streamInfer(sim.baseUrl(), model).returnNumOutputTokens(true)
          .connectTimeout(Duration.ofSeconds(30)).build();
    };
  }

  /** Which figure set the error bound: the largest of those {@link ClientHealth#floor} takes. */
  private static String boundBy(ClientHealth h) {
    if (h.measurements().isEmpty() || h.floorNanos() == 0) {
      return "nothing measured";
    }
    ClientMeasurements m = h.measurements().get();
    long floor = h.floorNanos();
    if (m.gc().maxNanos() == floor) {
      return "GC pause";
    }
    for (ProbeReading probe : m.probes()) {
      if (probe.lateness().p99Nanos() == floor) {
        return probe.name() + " p99";
      }
    }
    if (m.hiccup().p99Nanos() == floor) {
      return "hiccup p99";
    }
    return "send lag p99";
  }

  /** The most streams the process's file descriptors allow: HTTP/1.1 holds two per stream (client and simulator). */
  private int maxStreams(CardProtocol p) {
    int max = settings.maxStreams();
    if (p == CardProtocol.HTTP_1_1
        && ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean os) {
      long fds = os.getMaxFileDescriptorCount() - os.getOpenFileDescriptorCount() - 256;
      max = (int) Math.max(8, Math.min(max, fds / 2));
    }
    return max;
  }

  private Map<Long, Long> simulatorThreadCpu() {
    Map<Long, Long> cpu = new HashMap<>();
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info != null && info.getThreadName().startsWith("infermark-sim")) {
        long t = threads.getThreadCpuTime(info.getThreadId());
        if (t > 0) {
          cpu.put(info.getThreadId(), t);
        }
      }
    }
    return cpu;
  }

  private static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
      return Math.max(0, os.getProcessCpuTime());
    }
    return 0;
  }

  @SuppressWarnings("java:S1215") // a full collection is the point: the heap the open streams hold, not garbage
  private static long heapAfterGc() {
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static String collectors() {
    return ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName)
        .collect(Collectors.joining(", "));
  }

  static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return f[0] + " " + f[1] + " " + f[2];
    } catch (Exception e) {
      double l = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
      return l < 0 ? "n/a" : String.format(Locale.ROOT, "%.2f", l);
    }
  }
}
