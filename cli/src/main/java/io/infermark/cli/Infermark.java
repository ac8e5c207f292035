package io.infermark.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code infermark} command: {@code bench} an endpoint with {@code vllm bench serve}'s flags,
 * {@code sweep} load levels and find the knee, search the {@code capacity} that meets an SLO, run
 * the simulator ({@code sim}), render or compare reports ({@code report}), {@code explain} why P99
 * moved between two runs, {@code merge} the shards of a schedule split over several machines, and run the
 * seeds' {@code scenario} kits.
 *
 * <p>Exit codes: {@link #OK} when the run was measured and every gate passed, {@link #GATE_FAILED}
 * when an SLO or goodput gate failed (so CI can gate on it), {@link #USAGE} for a bad command line and
 * {@link #FAILED} when the command could not do its job (unreachable server, every request failed,
 * unreadable file).
 */
@Command(name = "infermark", mixinStandardHelpOptions = true, versionProvider = Infermark.Version.class,
    description = Infermark.DESCRIPTION, footer = {"", Infermark.EXIT_CODES},
    subcommands = {BenchCommand.class, SweepCommand.class, CapacityCommand.class, CapacityCardCommand.class,
        SimCommand.class, ReportCommand.class, ExplainCommand.class, MergeCommand.class,
        io.infermark.cli.scenario.ScenarioCommand.class, CommandLine.HelpCommand.class})
public final class Infermark implements Runnable {

  static final String DESCRIPTION =
      "Benchmark LLM inference services: token-level timings, honest statistics, explanations.";
  static final String EXIT_CODES =
      "Exit codes: 0 ok, 1 an SLO or goodput gate failed, 2 bad command line, 3 the command failed.";
  private static final String NEEDS_A_COMMAND =
      "a command is needed: bench, sweep, capacity, sim, report, explain, merge or scenario";

  /** Everything measured, every gate passed. */
  public static final int OK = 0;
  /** An SLO or goodput gate failed. */
  public static final int GATE_FAILED = 1;
  /** The command line was wrong. */
  public static final int USAGE = 2;
  /** The command could not do its job. */
  public static final int FAILED = 3;
  /**
   * The run was stopped before its end (by a stop other than a signal, which gives 128 + its number: 130
   * for SIGINT, 143 for SIGTERM); every output was written, marked interrupted.
   */
  public static final int INTERRUPTED = 130;

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  /** Runs the command line and exits with its code. */
  public static void main(String[] args) {
    // Netty 4.2 declares JFR events for its allocator: loading them starts the JVM's event machinery (about 0.2 s
    // of CPU before the first request; docs/cpu-engine-on-the-same-machine.md). The command records no JFR, so
    // leave them off unless asked for with -Dio.netty.jfr.enabled=true. This process only: the library sets nothing.
    if (System.getProperty("io.netty.jfr.enabled") == null) {
      System.setProperty("io.netty.jfr.enabled", "false");
    }
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    StopSignals.install(err); // SIGINT/SIGTERM stop the run gracefully and every output is still written
    QuickJit.apply(); // C1 only, as the launcher compiles, unless the JVM's command line or INFERMARK_JIT says otherwise
    System.exit(run(out, err, args));
  }

  /**
   * Runs a command line, writing to the given streams, and returns its exit code; never calls
   * {@code System.exit}, so tests and host applications can call it.
   */
  public static int run(PrintWriter out, PrintWriter err, String... args) {
    CommandLine cl = commandLine(out, err, args);
    java.util.List<String> given;
    try {
      // vLLM's conventions (bench serve, --config, underscores, prefixes) before picocli parses
      given = args.length == 0 || !args[0].equals("bench") ? java.util.List.of(args)
          : VllmArgs.normalize(java.util.List.of(args), cl.getSubcommands().get("bench").getCommandSpec());
    } catch (CliException e) {
      err.println("infermark bench: " + e.getMessage());
      return e.exitCode();
    } catch (IllegalArgumentException e) {
      err.println("infermark bench: " + e.getMessage());
      err.println("Try 'infermark bench --help' for the options.");
      return USAGE;
    }
    return cl.execute(given.toArray(String[]::new));
  }

  /**
   * The commands {@link Infermark} declares, by name, in the order the help lists them. Read from the declaration
   * (each class's own {@code @Command} name), not listed again; picocli builds a command's model only when it is
   * added, and reading all of them (over a thousand options with the scenario kits) was about a fifth of the
   * start-up of a {@code bench} run.
   */
  private static final Map<String, Class<?>> COMMANDS = commands();

  private static Map<String, Class<?>> commands() {
    Map<String, Class<?>> c = new LinkedHashMap<>();
    for (Class<?> command : Infermark.class.getAnnotation(Command.class).subcommands()) {
      c.put(command.getAnnotation(Command.class).name(), command);
    }
    return Collections.unmodifiableMap(c);
  }

  /** The configured picocli command line with every command (its output and error streams set). */
  static CommandLine commandLine(PrintWriter out, PrintWriter err) {
    return commandLine(out, err, new String[0]);
  }

  /**
   * The configured picocli command line for the arguments {@code given}: only the command their first argument
   * names (not {@code help}, which shows the others), else all of them, so help, suggestions and errors read as
   * before; and {@code bench}'s {@code sweep} family only when asked for or when help may list it.
   */
  static CommandLine commandLine(PrintWriter out, PrintWriter err, String[] given) {
    CommandLine cl = new CommandLine(new Root());
    String first = given.length == 0 ? "" : given[0];
    boolean one = COMMANDS.containsKey(first) && !first.equals("help");
    COMMANDS.forEach((name, command) -> {
      if (!one || name.equals(first)) {
        cl.addSubcommand(name, command);
      }
    });
    boolean plainBench = one && first.equals("bench") && given.length > 1 && !given[1].equals("sweep")
        && java.util.Arrays.stream(given).noneMatch(a -> a.equals("-h") || a.equals("--help"));
    if (cl.getSubcommands().containsKey("bench") && !plainBench) {
      // vLLM's `vllm bench sweep ...`: its own package; its in-JVM benches come back through run()
      cl.getSubcommands().get("bench").addSubcommand(
          new io.infermark.cli.vllmsweep.VllmSweepCommand((o, e, a) -> run(o, e, a.toArray(String[]::new)),
              () -> StopSignals.current(err).exitCode()));
    }
    cl.setOut(out);
    cl.setErr(err);
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    cl.setOverwrittenOptionsAllowed(true); // vLLM's argparse: a repeated flag's last value wins (every command)
    if (cl.getSubcommands().containsKey("sim")) {
      cl.getSubcommands().get("sim").getCommandSpec().usageMessage()
          .footer("", "Simulator options:", SimCommand.help(80).stripTrailing().replace("%", "%%"));
    }
    cl.setExitCodeExceptionMapper(e -> e instanceof CommandLine.ParameterException ? USAGE : FAILED);
    cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      Throwable cause = e;
      if (cause instanceof CliException ce) {
        commandLine.getErr().println(prefix(commandLine) + ce.getMessage());
        return ce.exitCode();
      }
      if (cause instanceof IllegalArgumentException || cause instanceof java.io.UncheckedIOException
          || cause instanceof IllegalStateException) {
        commandLine.getErr().println(prefix(commandLine) + cause.getMessage());
        return cause instanceof IllegalArgumentException ? USAGE : FAILED;
      }
      commandLine.getErr().println(prefix(commandLine) + "failed: " + cause);
      return FAILED;
    });
    cl.setParameterExceptionHandler((ex, args) -> {
      CommandLine c = ex.getCommandLine();
      c.getErr().println(prefix(c) + ex.getMessage());
      if (!CommandLine.UnmatchedArgumentException.printSuggestions(ex, c.getErr())) {
        c.getErr().println("Try '" + c.getCommandSpec().qualifiedName(" ") + " --help' for the options.");
      }
      return USAGE;
    });
    return cl;
  }

  /**
   * "infermark: " for the top-level command, the qualified name for a subcommand ("infermark bench: ",
   * "infermark scenario cold-start: ").
   */
  static String prefix(CommandLine c) {
    return c.getParent() == null ? "infermark: " : c.getCommandSpec().qualifiedName(" ") + ": ";
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), NEEDS_A_COMMAND);
  }

  /**
   * The {@code infermark} command without its subcommands, to which {@link #run} adds only those a command line
   * needs: picocli reads every option of every subcommand a command declares, so a parser built from
   * {@link Infermark} itself (as {@code new CommandLine(new Infermark())} does, for whoever needs the whole tree)
   * reads all ten.
   */
  @Command(name = "infermark", mixinStandardHelpOptions = true, versionProvider = Infermark.Version.class,
      description = DESCRIPTION, footer = {"", EXIT_CODES})
  static final class Root implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
      throw new CommandLine.ParameterException(spec.commandLine(), NEEDS_A_COMMAND);
    }
  }

  /** The version from the jar's manifest (or "development" when run from classes). */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Infermark.class.getPackage().getImplementationVersion();
      return new String[] {"infermark " + (v == null ? "development build" : v)};
    }
  }
}
