package io.infermark.cli;

import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import io.infermark.testkit.simulator.SimulatorMain;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;
import picocli.CommandLine.Spec;

/**
 * {@code infermark sim}: the LLM serving simulator on its own, for any client (vLLM's, curl, a
 * Prometheus scraper); its options are the simulator's ({@link SimulatorMain#USAGE}). Serves until the
 * process is stopped.
 */
@Command(name = "sim", mixinStandardHelpOptions = true,
    description = {"Run the LLM serving simulator (OpenAI chat and completions API, Prometheus /metrics) until stopped.",
        "Every option but --help and --version goes to the simulator (listed below)."},
    footer = "")
final class SimCommand implements Callable<Integer> {

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Unmatched
  List<String> options = new ArrayList<>();

  @Override
  public Integer call() throws InterruptedException {
    SimulatorConfig config = SimulatorMain.parse(options.toArray(String[]::new));
    PrintWriter out = spec.commandLine().getOut();
    Simulator sim = Simulator.start(config);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      sim.close();
      stopped.countDown();
    }, "infermark-sim-shutdown"));
    out.println("infermark simulator serving " + sim.baseUrl() + "/v1 (" + config + ")");
    out.flush();
    stopped.await();
    return Infermark.OK;
  }
}
