package io.infermark.cli;

import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import io.infermark.testkit.simulator.SimulatorMain;
import io.infermark.testkit.simulator.SimulatorProtocol;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;

/**
 * {@code infermark sim}: the LLM serving simulator on its own, for any client (vLLM's, curl, a
 * Prometheus scraper); its options are the simulator's ({@link SimulatorMain#USAGE}) and {@code --protocol}.
 * Serves until the process is stopped: the first SIGINT or SIGTERM closes it and the process exits
 * (130 or 143), as a test script that {@code kill}s it expects.
 */
@Command(name = "sim", mixinStandardHelpOptions = true,
    customSynopsis = "infermark sim [-hV] [simulator options]",
    description = {"Run the LLM serving simulator (OpenAI chat and completions API, Prometheus",
        "/metrics) until stopped; the first SIGINT or SIGTERM stops it.",
        "Every option but --help and --version goes to the simulator (listed below)."},
    footer = "")
final class SimCommand implements Callable<Integer> {

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Unmatched
  List<String> options = new ArrayList<>();

  /** What the command line asks for: the simulator's configuration and the protocol it speaks. */
  record Setup(SimulatorConfig config, SimulatorProtocol protocol) {
    @Override
    public String toString() {
      return "Setup[" + protocolName(protocol) + ", " + config + "]";
    }
  }

  /**
   * The simulator the arguments describe: {@code --protocol} here (the standalone simulator's {@code main} parses it
   * too), every other option by {@link SimulatorMain#parse}.
   *
   * @throws IllegalArgumentException naming the bad option and value
   */
  static Setup parse(List<String> args) {
    List<String> rest = new ArrayList<>(args);
    SimulatorProtocol protocol = SimulatorProtocol.HTTP_1_1;
    int at;
    while ((at = rest.indexOf("--protocol")) >= 0) { // repeated: the last wins, as every other option
      if (at + 1 >= rest.size()) {
        throw new IllegalArgumentException("--protocol needs a value: http1, h2c or h2");
      }
      protocol = switch (rest.get(at + 1)) {
        case "http1" -> SimulatorProtocol.HTTP_1_1;
        case "h2c" -> SimulatorProtocol.H2C;
        case "h2" -> SimulatorProtocol.H2;
        default -> throw new IllegalArgumentException("--protocol must be http1, h2c or h2, was '"
            + rest.get(at + 1) + "'");
      };
      rest.subList(at, at + 2).clear();
    }
    return new Setup(SimulatorMain.parse(rest.toArray(String[]::new)), protocol);
  }

  static String protocolName(SimulatorProtocol p) {
    return switch (p) {
      case HTTP_1_1 -> "http1";
      case H2C -> "h2c";
      case H2 -> "h2";
    };
  }

  /**
   * The simulator's help text reflowed to {@code width} columns: a line too long is cut at spaces and its
   * continuation indented under its description (or two past the line's own indent), never at column 0.
   */
  static String help(int width) {
    List<String> logical = new ArrayList<>();
    for (String line : SimulatorMain.USAGE.split("\n")) {
      if (line.startsWith("usage: ")) {
        continue; // the synopsis above says it
      }
      // a continuation (indented past the option column, not an option) belongs to the line above
      if (!logical.isEmpty() && indent(line) > 2 && !line.trim().startsWith("--")) {
        int last = logical.size() - 1;
        logical.set(last, logical.get(last) + " " + line.trim());
      } else {
        logical.add(line);
      }
    }
    StringBuilder out = new StringBuilder();
    for (String line : logical) {
      if (line.length() <= width) {
        out.append(line).append('\n');
        continue;
      }
      int lead = indent(line);
      // several options on one line ("--fault a  --fault b"): as many a line as fit, the rest below
      String[] parts = line.substring(lead).split("\\s{2,}(?=--)");
      String pad = " ".repeat(Math.max(lead, 2));
      StringBuilder packed = new StringBuilder(pad);
      for (String part : parts) {
        if (packed.length() > pad.length() && packed.length() + 2 + part.length() > width) {
          wrap(out, packed.toString(), width);
          packed = new StringBuilder(pad);
        }
        packed.append(packed.length() > pad.length() ? "  " : "").append(part);
      }
      wrap(out, packed.toString(), width);
    }
    return out.toString();
  }

  private static void wrap(StringBuilder out, String line, int width) {
    if (line.length() <= width) {
      out.append(line).append('\n');
      return;
    }
    int lead = indent(line);
    // "  --port N    text": the text wraps under its own column; any other line two past its indent
    java.util.regex.Matcher option = java.util.regex.Pattern.compile("^(?:\\s*\\S+(?: \\S+)?\\s{2,}|\\S+: )(?=\\S)").matcher(line);
    String prefix = option.find() && option.end() <= width / 2 ? line.substring(0, option.end()) : " ".repeat(lead);
    int hang = prefix.isBlank() ? lead + 2 : prefix.length();
    StringBuilder current = new StringBuilder(prefix);
    boolean empty = true;
    for (String word : line.substring(prefix.length()).trim().split(" +")) {
      if (!empty && current.length() + 1 + word.length() > width) {
        out.append(current).append('\n');
        current = new StringBuilder(" ".repeat(hang));
        empty = true;
      }
      if (!empty) {
        current.append(' ');
      }
      current.append(word);
      empty = false;
    }
    out.append(current).append('\n');
  }

  private static int indent(String line) {
    int i = 0;
    while (i < line.length() && line.charAt(i) == ' ') {
      i++;
    }
    return i;
  }

  @Override
  public Integer call() throws InterruptedException {
    Setup setup = parse(options);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    Simulator sim = Simulator.start(setup.config(), setup.protocol());
    CountDownLatch stopped = new CountDownLatch(1);
    Runnable stop = () -> {
      sim.close(); // idempotent
      stopped.countDown();
    };
    StopSignals signals = StopSignals.current(err);
    // the simulator runs no benchmark: the first signal closes it (a script's one `kill` must end it)
    signals.whenIdle(() -> {
      err.println();
      err.println("infermark sim: " + signals.signal().orElse("signal") + ": stopping the simulator");
      err.flush();
      stop.run();
    });
    Thread hook = new Thread(stop, "infermark-sim-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    out.println("infermark simulator serving " + sim.baseUrl() + "/v1 over " + protocolName(setup.protocol())
        + " (" + setup.config() + ")");
    out.flush();
    stopped.await();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the JVM is exiting already (a signal nobody caught): the hook closes it
    }
    signals.clearWhenIdle();
    return signals.received() ? signals.exitCode() : Infermark.OK;
  }
}
