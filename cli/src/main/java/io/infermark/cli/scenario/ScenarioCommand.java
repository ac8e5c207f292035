package io.infermark.cli.scenario;

import picocli.CommandLine.Command;
import picocli.CommandLine;

/** {@code infermark scenario}: the group of the seeds' scenario kits; each kit is a subcommand. */
@Command(name = "scenario", mixinStandardHelpOptions = true,
    description = {"Run one of the seeds' scenario kits against a server, with the seed's parameters as defaults "
        + "(docs/scenarios.md). Each kit prints its verdict, writes it as JSON (--json) and exits with it.",
        "Target flags are bench's (--base-url, --model, --backend, ...)."},
    subcommands = {ColdStartCommand.class, ContextInflationCommand.class, KvPressureCommand.class,
        InjectionCommand.class, IsolationCommand.class, RetrievalCommand.class, ToolCascadeCommand.class,
        CalibrateCommand.class, KnobControlCommand.class, DensityCommand.class},
    footer = {"", "Exit codes: 0 the kit's verdict passed, 1 it failed, 2 bad command line, 3 the kit could not run "
        + "(unreachable server, every request failed)."})
public final class ScenarioCommand implements Runnable {

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  /** The command picocli instantiates. */
  public ScenarioCommand() {}

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "a kit is needed: "
        + String.join(", ", spec.subcommands().keySet().stream().filter(k -> !k.equals("help")).toList()));
  }
}
