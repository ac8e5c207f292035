package io.infermark.cli.vllmsweep;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Runs a bench command: {@code vllm bench serve ...} and {@code infermark bench ...} as infermark's own bench in
 * this JVM (the words after the program name, so vLLM's flags are read as {@code infermark bench} reads them), any
 * other command as a process. Exit 0, or 1 (a gate of infermark's failed, the run measured), with the result file
 * written, is a run; anything else fails the run.
 */
final class BenchInvocation {

  private final SweepContext ctx;
  private final boolean showStdout;

  BenchInvocation(SweepContext ctx, boolean showStdout) {
    this.ctx = ctx;
    this.showStdout = showStdout;
  }

  /** Whether the command is infermark's bench: {@code vllm bench serve ...} or {@code infermark bench ...}. */
  static boolean inJvm(List<String> cmd) {
    if (cmd.size() < 2 || !cmd.get(1).equals("bench")) {
      return false;
    }
    String program = Path.of(cmd.get(0)).getFileName().toString();
    return program.equals("infermark") || program.equals("vllm") && cmd.size() > 2 && cmd.get(2).equals("serve");
  }

  /**
   * Runs the command, which must write {@code output}.
   *
   * @throws IllegalStateException if it fails or writes no result
   */
  void run(List<String> cmd, Path output) {
    int code;
    if (inJvm(cmd)) {
      ctx.out().flush();
      code = ctx.bench().run(showStdout ? ctx.out() : ServeSweep.discard(), ctx.err(), cmd.subList(1, cmd.size()));
      ctx.err().flush();
    } else {
      code = process(cmd, showStdout);
    }
    if (code != 0 && code != 1) {
      String aside = aside(output);
      ctx.checkStop(); // a bench a signal stopped: the sweep stops too
      throw new IllegalStateException("the benchmark command exited with code " + code + aside + ": "
          + Shlex.join(cmd));
    }
    if (!Files.exists(output)) {
      throw new IllegalStateException("the benchmark command wrote no result at " + output + ": " + Shlex.join(cmd));
    }
  }

  /**
   * A failed or interrupted run's result file, renamed {@code run=N.incomplete.json} so that {@code --resume} runs
   * it again instead of taking it as done; what to say about it.
   */
  private static String aside(Path output) {
    if (!Files.exists(output)) {
      return "";
    }
    String stem = output.getFileName().toString().replaceFirst("\\.json$", "");
    Path to = output.resolveSibling(stem + ".incomplete.json");
    try {
      Files.move(output, to, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      return " (its result, incomplete, moved to " + to.getFileName() + ")";
    } catch (IOException e) {
      throw new IllegalStateException("the benchmark command failed and its incomplete result " + output
          + " cannot be moved aside (remove it before --resume): " + e.getMessage());
    }
  }

  /** Runs a command as a process (its standard error shown, its standard output only when asked); its exit code. */
  static int process(List<String> cmd, boolean showStdout) {
    Process p = null;
    try {
      p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.INHERIT)
          .redirectError(ProcessBuilder.Redirect.INHERIT)
          .redirectOutput(showStdout ? ProcessBuilder.Redirect.INHERIT : ProcessBuilder.Redirect.DISCARD).start();
      return p.waitFor();
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + Shlex.join(cmd) + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroy();
      throw new IllegalStateException("interrupted while running " + Shlex.join(cmd));
    }
  }
}
