package io.infermark.cli.vllmsweep;

import io.infermark.core.time.Clock;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.IntSupplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code infermark bench sweep}: vLLM's {@code vllm bench sweep} family with its flags and files, so a team that
 * drives vLLM's sweeps switches by replacing the program name. {@code serve} runs a server command per
 * {@code --serve-params} combination and a bench command per {@code --bench-params} combination;
 * {@code serve_workload} explores request rates or concurrencies between serial and batch inference;
 * {@code startup} measures a server's start-up time; {@code plot} and {@code plot_pareto} chart the results.
 */
@Command(name = "sweep", mixinStandardHelpOptions = true,
    description = {"vLLM's parameter sweeps (vllm bench sweep): serve, serve_workload, startup, plot, plot_pareto.",
        "The server command is run as a process per combination; a bench command `vllm bench serve ...` or "
            + "`infermark bench ...` runs infermark's bench in this JVM. Charts are HTML pages where vLLM draws PNGs."},
    subcommands = {SweepServeCommand.class, SweepServeWorkloadCommand.class, SweepStartupCommand.class,
        SweepPlotCommand.class, SweepPlotParetoCommand.class, SweepServeSlaCommand.class})
public final class VllmSweepCommand implements Runnable {

  private final BenchRunner bench;
  private final Clock clock;
  private final Duration stopGrace;
  private final IntSupplier stopSignal;

  @Spec
  CommandSpec spec;

  /**
   * The command, running in-JVM benches through {@code bench}, reading start-up times from the system's monotonic
   * clock, and giving a stopped server 10 s to exit before it is killed.
   */
  public VllmSweepCommand(BenchRunner bench) {
    this(bench, () -> 0);
  }

  /**
   * As {@link #VllmSweepCommand(BenchRunner)}, stopping when {@code stopSignal} turns non-zero (the exit code of a
   * SIGINT or SIGTERM the process caught): no further server or run starts, the running server is stopped, and the
   * command exits with that code, the experiment resumable.
   */
  public VllmSweepCommand(BenchRunner bench, IntSupplier stopSignal) {
    this(bench, Clock.system(), ServerProcess.STOP_GRACE, stopSignal);
  }

  /** The command with its clock, a stopped server's grace period and the stop signal given (for tests). */
  public VllmSweepCommand(BenchRunner bench, Clock clock, Duration stopGrace, IntSupplier stopSignal) {
    this.bench = Objects.requireNonNull(bench, "bench");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.stopGrace = Objects.requireNonNull(stopGrace, "stopGrace");
    this.stopSignal = Objects.requireNonNull(stopSignal, "stopSignal");
  }

  /** What the sub-commands run with. */
  SweepContext context() {
    return new SweepContext(spec.commandLine().getOut(), spec.commandLine().getErr(), bench, clock, stopGrace,
        stopSignal);
  }

  @Override
  public void run() {
    throw new picocli.CommandLine.ParameterException(spec.commandLine(),
        "a sweep is needed: serve, serve_workload, startup, plot or plot_pareto");
  }

  /**
   * The words after {@code bench sweep} as vLLM's parser reads them: an option's underscores as dashes
   * ({@code --serve_cmd}), values untouched.
   */
  public static List<String> vllmSpelling(List<String> args) {
    List<String> out = new ArrayList<>();
    boolean options = true;
    for (String a : args) {
      if (options && a.equals("--")) {
        options = false;
      }
      if (options && a.startsWith("--") && a.length() > 2) {
        int eq = a.indexOf('=');
        out.add(eq < 0 ? a.replace('_', '-') : a.substring(0, eq).replace('_', '-') + a.substring(eq));
      } else {
        out.add(a);
      }
    }
    return out;
  }

  /** Runs a sweep body, printing vLLM's closing line and, for a server that failed, its log's tail. */
  static int guarded(SweepContext ctx, String name, Path experimentDir, boolean dryRun, Runnable body) {
    PrintWriter out = ctx.out();
    PrintWriter err = ctx.err();
    try {
      body.run();
    } catch (ServerProcess.ServerFailedException e) {
      err.println("infermark bench sweep " + name + ": " + e.getMessage());
      err.println("The last lines of the server's log (" + e.log() + "):");
      e.tail().forEach(l -> err.println("  " + l));
      if (e.tail().isEmpty()) {
        err.println("  (the log is empty)");
      }
      err.println("The script was terminated early. Use `--resume` to continue the script from its last checkpoint.");
      return 3;
    } catch (SweepContext.Stopped e) {
      err.println("infermark bench sweep " + name + ": " + e.getMessage());
      err.println("The script was terminated early. Use `--resume` to continue the script from its last checkpoint.");
      return e.exitCode();
    } catch (IllegalArgumentException e) {
      throw e;
    } catch (RuntimeException e) {
      err.println("infermark bench sweep " + name + ": " + e.getMessage());
      if (!dryRun) {
        err.println("The script was terminated early. Use `--resume` to continue the script from its last "
            + "checkpoint.");
      }
      return 3;
    }
    out.println((dryRun ? "Experiment will be saved at: " : "Experiment has been saved at: ") + experimentDir);
    return 0;
  }
}
