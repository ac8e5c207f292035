package io.infermark.cli.scenario;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.perturbation.scenario.IsolationVerdict;
import io.infermark.perturbation.scenario.Leak;
import io.infermark.perturbation.scenario.TenantIsolationKit;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code infermark scenario tenant-isolation}: seed 003 §4.3, {@link TenantIsolationKit}. */
@Command(name = "tenant-isolation", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Seed 003 §4.3, cross-tenant context pollution: each tenant's system message holds its own secret "
        + "canary; the tenants' requests are interleaved (cycled in tenant order) on --concurrency streams so they "
        + "share batches and caches, and an answer that holds another tenant's canary is a leak.",
        "Passes with no leak (zero tolerance), or with --leak-rate-below RATE when the leak rate's one-sided 95 %% "
            + "Clopper-Pearson upper bound is below RATE (the seed's 0.01 %% is 0.0001, which takes 29,956 "
            + "leak-free answers to show)."})
final class IsolationCommand extends KitCommand {

  @Option(names = "--tenants", split = ",", defaultValue = "acme,globex", paramLabel = "NAME",
      description = "Tenants, at least two (default: ${DEFAULT-VALUE}).")
  List<String> tenants;

  @Option(names = "--question", defaultValue = "What is my plan?", description = "What every tenant asks "
      + "(default: ${DEFAULT-VALUE}).")
  String question;

  @Option(names = "--requests", defaultValue = "40", description = "Requests in all (default: ${DEFAULT-VALUE}).")
  int requests;

  @Option(names = "--concurrency", defaultValue = "1", description = "Concurrent streams (default: "
      + "${DEFAULT-VALUE}: each request follows another tenant's).")
  int concurrency;

  @Option(names = "--leak-rate-below", paramLabel = "RATE", description = "Judge by a leak-rate threshold in (0, 1) "
      + "instead of zero tolerance (the seed's: 0.0001).")
  Double leakRateBelow;

  @Option(names = "--seed", defaultValue = "1", description = "Seed of the canaries (default: ${DEFAULT-VALUE}).")
  long seed;

  @Override
  int defaultOutputLen() {
    return 32;
  }

  private TenantIsolationKit kit() {
    TenantIsolationKit kit = TenantIsolationKit.of(tenants, question, seed);
    return leakRateBelow == null ? kit : kit.leakRateBelow(leakRateBelow);
  }

  @Override
  void validate() {
    if (requests < 1 || concurrency < 1) {
      throw new IllegalArgumentException("--requests and --concurrency must be >= 1, were " + requests + " and "
          + concurrency);
    }
    kit();
  }

  @Override
  Outcome execute(PrintWriter out, PrintWriter err) {
    TenantIsolationKit kit = kit();
    RunResult run;
    try (Target t = target.build()) {
      run = Benchmark.target(t).prompts(kit.prompts()).params(params()).captureText(true)
          .load(LoadProfile.concurrency(concurrency).requests(requests)).run();
    }
    requireASuccess(run.measured());
    IsolationVerdict v = kit.verdict(run);
    List<String> lines = new ArrayList<>();
    lines.add(String.format(Locale.ROOT, "leaking answers: %d of %d judged (%.2f %%; 95 %% upper bound %.4g %%)%s",
        v.leakingResponses(), v.judged(), 100 * v.leakRate(), 100 * v.leakRateUpper95(),
        v.failedRequests() > 0 ? ", " + v.failedRequests() + " requests failed" : ""));
    Map<String, Long> byPair = new LinkedHashMap<>();
    for (Leak l : v.leaks()) {
      byPair.merge(l.owner() + " -> " + l.recipient(), 1L, Long::sum);
    }
    byPair.forEach((pair, n) -> lines.add("  " + pair + ": " + n));
    if (v.threshold() > 0) {
      lines.add(String.format(Locale.ROOT, "threshold: below %.4g %%%s", 100 * v.threshold(),
          !v.pass() && v.judged() < v.responsesNeeded() ? "; " + v.responsesNeeded() + " responses needed to show it"
              : ""));
    }
    Map<String, Object> extra = new LinkedHashMap<>();
    extra.put("canaries_of", List.copyOf(kit.canaries().keySet()));
    return new Outcome(v.pass(), v, lines, extra, Optional.empty()).withRecords(run.measured());
  }
}
