package io.infermark.cli.scenario;

import io.infermark.cli.options.DurationText;
import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.pipeline.AgentSessionTarget;
import io.infermark.core.pipeline.Tool;
import io.infermark.core.pipeline.ToolStep;
import io.infermark.perturbation.scenario.ToolCascadeKit;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code infermark scenario tool-cascade}: seed 003 §4.4, {@link ToolCascadeKit} over agent sessions. */
@Command(name = "tool-cascade", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Seed 003 §4.4, a tool-call timeout cascade: each session is a planning call to the server, a "
        + "simulated tool step, then the answering call. The tool answers in --tool-latency, or --slow-tool-latency "
        + "on every --slow-every-th task; the session waits --tool-timeout, then asks the fallback (a cache answering "
        + "in --fallback-latency).",
        "Passes when no session failed, at least --min-fallback-correct of the fallback results were correct and the "
            + "sessions' P95 E2E is within --max-session-p95. The cascade cost is the fallback sessions' mean E2E "
            + "minus the in-time ones'."})
final class ToolCascadeCommand extends KitCommand {

  static final String CORRECT = "21 C";

  @Option(names = "--sessions", defaultValue = "24", description = "Sessions in all, after one warm-up per stream "
      + "(default: ${DEFAULT-VALUE}).")
  int sessions;

  @Option(names = "--concurrency", defaultValue = "4", description = "Concurrent sessions (default: "
      + "${DEFAULT-VALUE}).")
  int concurrency;

  @Option(names = "--tool-latency", paramLabel = "DURATION", converter = DurationText.class, defaultValue = "100ms",
      description = "The tool's answer time (default: ${DEFAULT-VALUE}).")
  Duration toolLatency;

  @Option(names = "--slow-tool-latency", paramLabel = "DURATION", converter = DurationText.class,
      defaultValue = "2s", description = "Its answer time on a slow task (default: ${DEFAULT-VALUE}).")
  Duration slowLatency;

  @Option(names = "--slow-every", defaultValue = "2", description = "Every N-th task is slow (default: "
      + "${DEFAULT-VALUE}).")
  int slowEvery;

  @Option(names = "--tool-timeout", paramLabel = "DURATION", converter = DurationText.class, defaultValue = "1200ms",
      description = "How long the session waits for the tool (default: ${DEFAULT-VALUE}, the seed's "
          + "context.WithTimeout).")
  Duration timeout;

  @Option(names = "--fallback-latency", paramLabel = "DURATION", converter = DurationText.class,
      defaultValue = "187ms", description = "The fallback's answer time (default: ${DEFAULT-VALUE}, the seed's "
          + "cache recovery time).")
  Duration fallbackLatency;

  @Option(names = "--fallback-stale", description = "The fallback answers a stale result (19 C where the tool "
      + "says 21 C): every fallback result is wrong.")
  boolean stale;

  @Option(names = "--no-fallback", description = "No fallback: a timed-out step fails its session.")
  boolean noFallback;

  @Option(names = "--min-fallback-correct", defaultValue = "1.0", description = "Share of fallback results that "
      + "must be correct, in [0, 1] (default: ${DEFAULT-VALUE}).")
  double minFallbackCorrect;

  @Option(names = "--max-session-p95", paramLabel = "DURATION", converter = DurationText.class,
      description = "Longest acceptable P95 session E2E (default: none).")
  Duration maxSessionP95;

  @Override
  int defaultOutputLen() {
    return 8;
  }

  private ToolCascadeKit kit() {
    ToolCascadeKit.Builder b = ToolCascadeKit.builder("weather", CORRECT::equals)
        .minFallbackCorrect(minFallbackCorrect);
    if (maxSessionP95 != null) {
      b.maxSessionP95(maxSessionP95);
    }
    return b.build();
  }

  @Override
  void validate() {
    if (sessions < 1 || concurrency < 1 || slowEvery < 1) {
      throw new IllegalArgumentException("--sessions, --concurrency and --slow-every must be >= 1, were " + sessions
          + ", " + concurrency + " and " + slowEvery);
    }
    if (stale && noFallback) {
      throw new IllegalArgumentException("give --fallback-stale or --no-fallback, not both");
    }
    kit();
  }

  /** A tool answering {@code result} after {@code ms}, or {@code slowMs} for a slow task; interruptible. */
  private static Tool tool(String result, long ms, long slowMs) {
    return input -> {
      Thread.sleep(input.contains("slow") ? slowMs : ms);
      return result;
    };
  }

  @Override
  Outcome execute(PrintWriter out, PrintWriter err) {
    ToolCascadeKit kit = kit();
    ToolStep step = ToolStep.of("weather", tool(CORRECT, toolLatency.toMillis(), slowLatency.toMillis()), timeout);
    if (!noFallback) {
      long ms = fallbackLatency.toMillis();
      step = step.withFallback(tool(stale ? "19 C" : CORRECT, ms, ms));
    }
    List<String> tasks = new ArrayList<>();
    for (int i = 0; i < slowEvery; i++) {
      tasks.add(i == slowEvery - 1 ? "Plan a slow day in Oslo" : "Plan a fast day in Oslo");
    }
    RunResult run;
    try (AgentSessionTarget agent = AgentSessionTarget.builder(target.build()).step(step).build()) {
      run = Benchmark.target(agent).prompts(kit.prompts(tasks)).params(params())
          .load(LoadProfile.concurrency(concurrency).requests(sessions).warmupRequests(concurrency)).run();
    }
    requireASuccess(run.measured());
    ToolCascadeKit.CascadeVerdict v = kit.verdict(run.measured());
    List<String> lines = new ArrayList<>();
    lines.add(String.format(Locale.ROOT, "sessions: %d (%d failed); tool timeouts %d, fallbacks %d (%d correct)",
        v.sessions(), v.failed(), v.timeouts(), v.fallbacks(), v.fallbackCorrect()));
    lines.add(String.format(Locale.ROOT, "session P95 E2E (ms): %.1f", v.sessionP95Ms()));
    v.fallbackSessionMeanMs().ifPresent(m -> lines.add(String.format(Locale.ROOT,
        "mean E2E (ms): %.1f with the fallback, %s in time", m, v.inTimeSessionMeanMs().isPresent()
            ? String.format(Locale.ROOT, "%.1f", v.inTimeSessionMeanMs().getAsDouble()) : "-")));
    v.cascadeCostMs().ifPresent(c -> lines.add(String.format(Locale.ROOT, "cascade cost (ms): %.1f", c)));
    v.reasons().forEach(r -> lines.add("  " + r));
    return new Outcome(v.pass(), v, lines).withRecords(run.measured());
  }
}
