package io.infermark.cli.scenario;

import io.infermark.cli.options.DurationText;
import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.perturbation.scenario.ContextInflationKit;
import io.infermark.perturbation.scenario.InflationVerdict;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code infermark scenario context-inflation}: seed 003 §3.2, {@link ContextInflationKit}. */
@Command(name = "context-inflation", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Seed 003 §3.2, a context window that grows turn by turn: step k is a chat of k earlier turns "
        + "(distractor text) plus the question, about START + k x STEP tokens up to MAX, sent in order on one "
        + "stream, --requests-per-step times each.",
        "A step fails when more than --max-failure-rate of its requests fail; it degrades when its median TTFT or "
            + "E2E exceeds its limit or --factor times the first step's. Passes when no step degrades or fails."})
final class ContextInflationCommand extends KitCommand {

  @Option(names = "--start", defaultValue = "512", description = "First context length, tokens (default: "
      + "${DEFAULT-VALUE}, the seed's fixed window).")
  int start;

  @Option(names = "--step", defaultValue = "512", description = "Tokens added per step (default: ${DEFAULT-VALUE}).")
  int step;

  @Option(names = "--max", defaultValue = "8192", description = "Longest context, tokens (default: ${DEFAULT-VALUE}).")
  int max;

  @Option(names = "--requests-per-step", defaultValue = "3", description = "Requests at each length (default: "
      + "${DEFAULT-VALUE}).")
  int requestsPerStep;

  @Option(names = "--ttft-limit", paramLabel = "DURATION", converter = DurationText.class,
      description = "A step degrades when its median TTFT exceeds this (default: none).")
  Duration ttftLimit;

  @Option(names = "--e2e-limit", paramLabel = "DURATION", converter = DurationText.class,
      description = "A step degrades when its median E2E exceeds this (default: none).")
  Duration e2eLimit;

  @Option(names = "--factor", defaultValue = "3", description = "A step degrades when a median exceeds this many "
      + "times the first step's (default: ${DEFAULT-VALUE}).")
  double factor;

  @Option(names = "--max-failure-rate", defaultValue = "0", description = "Failure share a step may have, in [0, 1) "
      + "(default: ${DEFAULT-VALUE}).")
  double maxFailureRate;

  @Option(names = "--question", defaultValue = "What was the first sentence about?",
      description = "The question after the history (default: ${DEFAULT-VALUE}).")
  String question;

  @Override
  int defaultOutputLen() {
    return 16;
  }

  private ContextInflationKit kit() {
    ContextInflationKit.Builder b = ContextInflationKit.builder(TokenCounter.estimate(), question)
        .lengths(start, step, max).requestsPerStep(requestsPerStep).factor(factor).maxFailureRate(maxFailureRate);
    if (ttftLimit != null) {
      b.ttftLimit(ttftLimit);
    }
    if (e2eLimit != null) {
      b.e2eLimit(e2eLimit);
    }
    return b.build();
  }

  @Override
  void validate() {
    kit(); // the kit's own checks: lengths, factor, rates
  }

  @Override
  Outcome execute(PrintWriter out, PrintWriter err) {
    ContextInflationKit kit = kit();
    RunResult run;
    try (Target t = target.build()) {
      var prompts = kit.prompts();
      run = Benchmark.target(t).prompts(prompts).params(params())
          .load(LoadProfile.concurrency(1).requests(prompts.size())).run();
    }
    requireASuccess(run.measured());
    InflationVerdict v = kit.verdict(run);
    List<String> lines = new ArrayList<>(v.table().lines().toList());
    v.degradedAt().ifPresent(n -> lines.add("degraded from " + n + " tokens"));
    v.failedAt().ifPresent(n -> lines.add("failing from " + n + " tokens"));
    return new Outcome(v.pass(), v, lines).withRecords(run.measured());
  }
}
