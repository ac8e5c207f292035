package io.infermark.cli.scenario;

import io.infermark.cli.options.DurationText;
import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.Prompt;
import io.infermark.core.sweep.DualCalibration;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code infermark scenario calibrate}: seed 003 §2.3's dual QPS/TPS calibration, {@link DualCalibration}. */
@Command(name = "calibrate", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Seed 003 §2.3, dual QPS/TPS calibration: a PID controller moves the request rate to hold "
        + "transactions/s (requests answered within the SLA latency, counted when they complete) at the floor plus "
        + "--margin, never offering more than the QPS ceiling. The verdict judges [--settle, --duration): QPS = "
        + "requests sent / s, TPS = transactions completed / s, SLA share = transactions / requests, Token/s = "
        + "output tokens of the successes / s.",
        "Passes when QPS <= --max-qps, TPS >= --min-tps, the SLA share >= --sla-share and, if given, Token/s >= "
            + "--min-token-rate."})
final class CalibrateCommand extends KitCommand {

  @Option(names = "--max-qps", defaultValue = "1200", description = "Requests/s ceiling (default: ${DEFAULT-VALUE}).")
  double maxQps;

  @Option(names = "--min-tps", defaultValue = "850", description = "Transactions/s floor (default: ${DEFAULT-VALUE}).")
  double minTps;

  @Option(names = "--sla-latency", paramLabel = "DURATION", converter = DurationText.class, defaultValue = "800ms",
      description = "A transaction's E2E is at most this (default: ${DEFAULT-VALUE}).")
  Duration slaLatency;

  @Option(names = "--sla-share", defaultValue = "0.995", description = "Share of requests that must be transactions "
      + "(default: ${DEFAULT-VALUE}).")
  double slaShare;

  @Option(names = "--min-token-rate", paramLabel = "TOKENS_PER_S", description = "Output tokens/s floor, the third "
      + "dimension (default: none).")
  Double minTokenRate;

  @Option(names = "--margin", defaultValue = "0.05", description = "The controller holds TPS this far above the "
      + "floor, in [0, 1) (default: ${DEFAULT-VALUE}).")
  double margin;

  @Option(names = "--initial-rate", paramLabel = "PER_S", description = "First rate, requests/s (default: 1 %% of "
      + "--max-qps).")
  Double initialRate;

  @Option(names = "--duration", paramLabel = "DURATION", converter = DurationText.class, defaultValue = "60s",
      description = "How long the run lasts (default: ${DEFAULT-VALUE}).")
  Duration duration;

  @Option(names = "--settle", paramLabel = "DURATION", converter = DurationText.class, defaultValue = "20s",
      description = "Judged from this time on (default: ${DEFAULT-VALUE}).")
  Duration settle;

  @Option(names = "--prompt", defaultValue = "Calibrate: answer briefly.", description = "Every request's prompt "
      + "(default: ${DEFAULT-VALUE}).")
  String prompt;

  @Override
  int defaultOutputLen() {
    return 16;
  }

  private DualCalibration calibration() {
    DualCalibration c = DualCalibration.of(maxQps, minTps).sla(slaLatency, slaShare).margin(margin);
    if (minTokenRate != null) {
      c = c.minTokensPerSecond(minTokenRate);
    }
    return initialRate == null ? c : c.initialRate(initialRate);
  }

  @Override
  void validate() {
    if (settle.compareTo(duration) >= 0) {
      throw new IllegalArgumentException("--settle (" + settle + ") must be shorter than --duration (" + duration
          + ")");
    }
    calibration();
  }

  @Override
  Outcome execute(PrintWriter out, PrintWriter err) {
    DualCalibration cal = calibration();
    RunResult run;
    try (Target t = target.build()) {
      run = Benchmark.target(t).prompts(Prompt.user(prompt)).params(params())
          .load(LoadProfile.controlled(cal.controller()).duration(duration)).run();
    }
    requireASuccess(run.measured());
    DualCalibration.Verdict v = cal.verdict(run, settle);
    List<String> lines = new ArrayList<>();
    lines.add(String.format(Locale.ROOT, "judged window: %.1f s to %.1f s, %d requests, %d transactions",
        settle.toNanos() / 1e9, duration.toNanos() / 1e9, v.requests(), v.transactions()));
    lines.add(String.format(Locale.ROOT, "QPS (requests sent/s):                 %.2f  (<= %s)", v.qps(),
        trim(v.maxQps())));
    lines.add(String.format(Locale.ROOT, "TPS (transactions completed/s):        %.2f  (>= %s)", v.tps(),
        trim(v.minTps())));
    lines.add(String.format(Locale.ROOT, "SLA share (within %d ms):              %.2f %%  (>= %.2f %%)",
        slaLatency.toMillis(), 100 * v.slaShare(), 100 * v.slaTarget()));
    lines.add(String.format(Locale.ROOT, "Token/s (output tokens of successes/s): %.1f%s", v.tokensPerSecond(),
        v.minTokensPerSecond().isPresent() ? "  (>= " + trim(v.minTokensPerSecond().getAsDouble()) + ")" : ""));
    if (!run.control().isEmpty()) {
      lines.add(String.format(Locale.ROOT, "last offered rate (req/s):             %.2f",
          run.control().get(run.control().size() - 1).rate()));
    }
    lines.add("client: " + run.clientHealth().verdict());
    v.reasons().forEach(r -> lines.add("  " + r));
    Map<String, Object> extra = new LinkedHashMap<>();
    extra.put("client_health", run.clientHealth().verdict().name());
    return new Outcome(v.pass(), v, lines, extra, Optional.empty()).withRecords(run.measured());
  }

  static String trim(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
  }
}
