package io.infermark.cli;

import io.infermark.cli.options.DurationText;
import io.infermark.testkit.capacity.CapacityCard;
import io.infermark.testkit.capacity.CardProtocol;
import io.infermark.testkit.capacity.CardSettings;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code infermark capacity-card}: what one client process can drive on this machine before its own error bound
 * passes a limit (1 ms at p99): streamed tokens/s, non-streamed requests/s and concurrent streams, over HTTP/1.1,
 * h2c and gRPC, measured against the simulator in this process ({@link CapacityCard}), printed as a table.
 */
@Command(name = "capacity-card", mixinStandardHelpOptions = true,
    description = {"Measure what one infermark client process can drive on this machine before its own error bound "
        + "passes a limit: streamed tokens/s (1 and several per chunk), non-streamed requests/s and concurrent "
        + "streams with the heap each holds, over HTTP/1.1, h2c and gRPC, against the simulator in this process.",
        "A few minutes (--quick: about 30 s); size a run from it."})
final class CapacityCardCommand implements Callable<Integer> {

  private static final String SIMULATOR_LOG_LEVEL = "org.slf4j.simpleLogger.log.io.infermark.testkit.simulator";

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Option(names = "--quick", description = "About 30 s with coarse brackets instead of a few minutes.")
  boolean quick;

  @Option(names = "--budget", paramLabel = "DURATION", converter = DurationText.class,
      description = "The time the whole card may take, e.g. 90s or 5m (default: 4m, or 30s with --quick).")
  Duration budget;

  @Option(names = "--step", paramLabel = "DURATION", converter = DurationText.class,
      description = "The measured part of each step (default: 2s, or 500ms with --quick).")
  Duration step;

  @Option(names = "--error-bound", paramLabel = "DURATION", converter = DurationText.class,
      description = "The client error bound a level may reach and still pass (default: 1ms).")
  Duration errorBound;

  @Option(names = "--protocols", paramLabel = "LIST", split = ",",
      description = "The wires to measure, of http1, h2c and grpc (default: all three).")
  List<String> protocols;

  @Option(names = "--max-streams", paramLabel = "N",
      description = "The most concurrent streams tried (default: 16384, or 4096 with --quick).")
  Integer maxStreams;

  @Option(names = {"-v", "--verbose"}, description = "Print every step as it is measured (to standard error).")
  boolean verbose;

  @Override
  public Integer call() {
    // Each step starts and closes a simulator, which says so at INFO: one line per step is -v's job. Set before the
    // simulator's logger exists (this process only; a level given with -D is kept).
    if (!verbose && System.getProperty(SIMULATOR_LOG_LEVEL) == null) {
      System.setProperty(SIMULATOR_LOG_LEVEL, "warn");
    }
    CardSettings.Builder b = (quick ? CardSettings.quick() : CardSettings.full()).toBuilder();
    if (budget != null) {
      b.budget(budget);
    }
    if (step != null) {
      b.step(step);
    }
    if (errorBound != null) {
      b.errorBoundLimit(errorBound);
    }
    if (maxStreams != null) {
      b.maxStreams(maxStreams);
    }
    if (protocols != null) {
      b.protocols(protocols(protocols));
    }
    CardSettings settings = b.build();
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    err.printf(Locale.ROOT, "measuring the capacity card (%d rows, up to %d s)...%n", settings.rows(),
        settings.budget().toSeconds());
    CapacityCard card = CapacityCard.measure(settings, line -> {
      if (verbose) {
        err.println(line);
      }
    });
    out.print(card.toTable());
    out.flush();
    return Infermark.OK;
  }

  static Set<CardProtocol> protocols(List<String> names) {
    Set<CardProtocol> set = EnumSet.noneOf(CardProtocol.class);
    for (String n : names) {
      set.add(switch (n.trim().toLowerCase(Locale.ROOT)) {
        case "http1", "http/1.1" -> CardProtocol.HTTP_1_1;
        case "h2c" -> CardProtocol.H2C;
        case "grpc" -> CardProtocol.GRPC;
        default -> throw new IllegalArgumentException("--protocols takes http1, h2c and grpc, was '" + n + "'");
      });
    }
    if (set.isEmpty()) {
      throw new IllegalArgumentException("--protocols needs at least one of http1, h2c and grpc");
    }
    return set;
  }
}
