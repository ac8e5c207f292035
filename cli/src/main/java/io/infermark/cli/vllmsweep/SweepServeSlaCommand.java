package io.infermark.cli.vllmsweep;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

/**
 * {@code bench sweep serve_sla}: the SLA auto-tuner of older vLLM releases, which vLLM replaced by
 * {@code serve_workload} ({@code vllm/benchmarks/sweep/cli.py} lists no {@code serve_sla}); refused with what to use
 * instead, whatever its options, so a command line copied from older docs ends in a reason, not "Unknown option".
 */
@Command(name = "serve_sla", aliases = "serve-sla", mixinStandardHelpOptions = true,
    description = "Refused: vLLM replaced serve_sla by serve_workload. Use `infermark bench sweep serve_workload`, or "
        + "`infermark capacity --slo ...` to search the highest load that meets an SLO.")
final class SweepServeSlaCommand implements Callable<Integer> {

  @Unmatched
  List<String> given = new java.util.ArrayList<>();

  @Override
  public Integer call() {
    throw new IllegalArgumentException("serve_sla is not supported: vLLM replaced it by serve_workload (use infermark "
        + "bench sweep serve_workload), and infermark capacity --slo searches the highest load that meets an SLO");
  }
}
