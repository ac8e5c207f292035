package io.infermark.cli.scenario;

import io.infermark.cli.options.DurationText;
import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.Prompt;
import io.infermark.metrics.ColdStarts;
import io.infermark.perturbation.scenario.ColdStartKit;
import io.infermark.perturbation.scenario.ColdStartVerdict;
import java.io.PrintWriter;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code infermark scenario cold-start}: seed 003 §3.3, {@link ColdStartKit}. */
@Command(name = "cold-start", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Seed 003 §3.3, the cost of a cold start: start (or wake) the server, then run this. After "
        + "warming its own code paths (see --no-client-warmup), it polls the health endpoint until it "
        + "answers 2xx (time to ready, from --load-started or from then), sends the cold requests at once as soon as "
        + "the server accepts connections, with no test request before them, then warm requests one at a time. Cold TTFT is the slowest cold request's; the "
        + "penalty is that minus the warm median TTFT.",
        "Passes when time to ready <= --max-time-to-ready, penalty <= --max-cold-penalty (both unlimited unless "
            + "given: the seed sets no number) and every request succeeded."})
final class ColdStartCommand extends KitCommand {

  @Option(names = "--cold-requests", defaultValue = "2", description = "Requests sent at once while the server "
      + "loads (default: ${DEFAULT-VALUE}).")
  int coldRequests;

  @Option(names = "--warm-requests", defaultValue = "20", description = "Warm requests sent one at a time after "
      + "the cold ones, after 2 warm-ups (default: ${DEFAULT-VALUE}).")
  int warmRequests;

  @Option(names = "--health-path", defaultValue = "/health", description = "Health endpoint on the server's root, "
      + "polled every 5 ms (default: ${DEFAULT-VALUE}: vLLM, TGI, llama.cpp and the simulator; Ollama answers on /).")
  String healthPath;

  @Option(names = "--ready-timeout", paramLabel = "DURATION", converter = DurationText.class, defaultValue = "2m",
      description = "Give up when the server is not ready after this long (default: ${DEFAULT-VALUE}).")
  Duration readyTimeout;

  @Option(names = "--max-time-to-ready", paramLabel = "DURATION", converter = DurationText.class,
      description = "Fail when the server took longer to be ready (default: unlimited).")
  Duration maxTimeToReady;

  @Option(names = "--max-cold-penalty", paramLabel = "DURATION", converter = DurationText.class,
      description = "Fail when the slowest cold TTFT exceeds the warm median by more (default: unlimited).")
  Duration maxColdPenalty;

  @Option(names = "--cold-start-idle-gap", paramLabel = "DURATION", converter = DurationText.class,
      description = "Also report which requests seed 003's idle rule marks cold: sent after the server had nothing "
          + "in flight this long (the first request too). The server's load_duration (Ollama) always counts.")
  Duration idleGap;

  @Option(names = "--load-started", paramLabel = "EPOCH_MS", description = "When the load began, in milliseconds "
      + "since the epoch (e.g. date +%%s%%3N just before starting the server): time to ready counts from then "
      + "(default: from when the client is ready to send, after its warm-up).")
  Long loadStarted;

  @Override
  int defaultOutputLen() {
    return 8;
  }

  @Override
  void validate() {
    if (coldRequests < 1 || warmRequests < 1) {
      throw new IllegalArgumentException("--cold-requests and --warm-requests must be >= 1, were " + coldRequests
          + " and " + warmRequests);
    }
    if (loadStarted != null && loadStarted > System.currentTimeMillis()) {
      throw new IllegalArgumentException("--load-started " + loadStarted + " is in the future");
    }
    if (!healthPath.startsWith("/")) {
      throw new IllegalArgumentException("--health-path must start with /, was " + healthPath);
    }
  }

  /**
   * Waits until the server accepts connections (a server still starting refuses them: the cold requests would fail
   * to connect instead of waiting for the load), polling every 5 ms up to --ready-timeout.
   */
  private void awaitListening(URI root, long started) {
    int port = root.getPort() >= 0 ? root.getPort() : "https".equalsIgnoreCase(root.getScheme()) ? 443 : 80;
    long deadline = started + readyTimeout.toNanos();
    while (true) {
      try (java.net.Socket s = new java.net.Socket()) {
        s.connect(new java.net.InetSocketAddress(root.getHost(), port), 1000);
        return;
      } catch (java.io.IOException notYet) {
        if (System.nanoTime() >= deadline) {
          throw new IllegalStateException(root.getHost() + ":" + port + " accepted no connection within "
              + readyTimeout + "; is the server starting?");
        }
        java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
      }
    }
  }

  @Override
  Outcome execute(PrintWriter out, PrintWriter err) {
    long started = loadStarted == null ? System.nanoTime()
        : System.nanoTime() - (System.currentTimeMillis() - loadStarted) * 1_000_000L;
    ColdStartKit.Builder b = ColdStartKit.builder();
    if (maxTimeToReady != null) {
      b.maxTimeToReady(maxTimeToReady);
    }
    if (maxColdPenalty != null) {
      b.maxColdPenalty(maxColdPenalty);
    }
    ColdStartKit kit = b.build();
    URI health = URI.create(target.root() + healthPath);
    CompletableFuture<Duration> ready = CompletableFuture.supplyAsync(() ->
        ColdStartKit.awaitReady(health, started, readyTimeout));
    RunResult cold;
    RunResult warm;
    Duration timeToReady;
    awaitListening(URI.create(target.root()), started);
    try (Target t = target.build()) {
      cold = Benchmark.target(t).prompts(Prompt.user("Cold start: say hello.")).params(params()).preflight(false)
          .load(LoadProfile.concurrency(coldRequests).requests(coldRequests)).run();
      try {
        timeToReady = ready.join();
      } catch (CompletionException e) {
        throw e.getCause() instanceof RuntimeException r ? r : e;
      }
      warm = Benchmark.target(t).prompts(Prompt.user("Warm: say hello again.")).params(params())
          .load(LoadProfile.concurrency(1).requests(warmRequests).warmupRequests(2)).run();
    }
    requireASuccess(cold.measured());
    requireASuccess(warm.measured());
    ColdStartVerdict v = kit.verdict(OptionalDouble.of(timeToReady.toNanos() / 1e6), cold.measured(),
        warm.measured());
    List<String> lines = new ArrayList<>();
    lines.add(String.format(Locale.ROOT, "time to ready (ms):          %.1f", timeToReady.toNanos() / 1e6));
    lines.add(String.format(Locale.ROOT, "cold TTFT, slowest (ms):     %.1f  (%d cold requests)", v.coldTtftMs(),
        v.coldRequests()));
    lines.add(String.format(Locale.ROOT, "warm TTFT p50 (ms):          %.1f  (%d warm requests)", v.warmTtftP50Ms(),
        v.warmRequests()));
    lines.add(String.format(Locale.ROOT, "cold-start penalty (ms):     %.1f", v.coldPenaltyMs()));
    Map<String, Object> extra = new LinkedHashMap<>();
    ColdStarts rule = idleGap == null ? ColdStarts.serverReported() : ColdStarts.serverReported().afterIdle(idleGap);
    List<io.infermark.core.capture.RequestRecord> all = new ArrayList<>(cold.records());
    long offset = warm.originNanos() - cold.originNanos(); // the warm run on the cold run's clock
    for (io.infermark.core.capture.RequestRecord r : warm.records()) {
      all.add(r.toBuilder().index(r.index() + cold.records().size()).sendNanos(r.sendNanos() + offset)
          .intendedNanos(r.intendedNanos() + offset).build());
    }
    Map<Long, String> reasons = rule.reasons(all);
    long markedCold = reasons.keySet().stream().filter(i -> i < cold.records().size()).count();
    long markedWarm = reasons.size() - markedCold;
    lines.add(String.format(Locale.ROOT, "marked cold by %s: %d of the cold requests, %d of the warm", rule,
        markedCold, markedWarm));
    extra.put("cold_start_rule", rule.toString());
    extra.put("marked_cold", Map.of("cold_requests", markedCold, "warm_requests", markedWarm));
    v.reasons().forEach(r -> lines.add("  " + r));
    return new Outcome(v.pass(), v, lines, extra, Optional.empty()).withRecords(rule.mark(all));
  }
}
