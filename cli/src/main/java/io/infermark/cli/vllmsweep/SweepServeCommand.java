package io.infermark.cli.vllmsweep;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;

/** {@code bench sweep serve}: vLLM's {@code vllm bench sweep serve}. */
@Command(name = "serve", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Run the server benchmark under multiple settings (vllm bench sweep serve): the server command "
        + "once per --serve-params combination, the bench command --num-runs times per --bench-params combination.",
        "Writes OUTPUT_DIR/EXPERIMENT/SERVE-<s>-BENCH-<b>/run=N.json, summary.json and server.log, and summary.csv."})
final class SweepServeCommand implements Callable<Integer> {

  @ParentCommand
  VllmSweepCommand parent;

  @Mixin
  ServeSweepOptions options;

  @Override
  public Integer call() {
    SweepContext ctx = parent.context();
    Path dir = options.experimentDir();
    ServeSweep sweep = options.sweep(ctx, dir);
    return VllmSweepCommand.guarded(ctx, "serve", dir, options.dryRun, sweep::run);
  }
}
