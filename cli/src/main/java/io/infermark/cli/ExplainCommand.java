package io.infermark.cli;

import io.infermark.attribution.change.ChangeDecomposition;
import io.infermark.attribution.change.ComponentTable;
import io.infermark.attribution.change.PercentileChange;
import io.infermark.attribution.drift.Drift;
import io.infermark.attribution.drift.DriftReport;
import io.infermark.attribution.drift.TailComparison;
import io.infermark.attribution.phase.LatencyBasis;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.LatencyMetric;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code infermark explain}: why a percentile of E2E moved from run A to run B, split over the
 * latency phases by Shapley values, and whether the distribution drifted.
 */
@Command(name = "explain", mixinStandardHelpOptions = true,
    description = {"Explain why P99 (or --percentile) E2E moved from run A to run B: the change split over the phases "
        + "(connect, queue/time to first byte, prefill, decode, ...) by Shapley values, and the drift of E2E."})
final class ExplainCommand implements Callable<Integer> {

  @Spec
  picocli.CommandLine.Model.CommandSpec spec;

  @Parameters(index = "0", paramLabel = "A", description = "The baseline run's records file (or result JSON).")
  Path a;

  @Parameters(index = "1", paramLabel = "B", description = "The run to explain (records file or result JSON).")
  Path b;

  @Option(names = "--percentile", defaultValue = "99", description = "The percentile that moved (default: ${DEFAULT-VALUE}).")
  double percentile;

  @Option(names = "--coupling", defaultValue = "position",
      description = "position: pair each request of B with A's at the same schedule position (same workload and seed); "
          + "rank: pair by rank of E2E (default: ${DEFAULT-VALUE}).")
  String coupling;

  @Override
  public Integer call() {
    if (!(percentile > 0 && percentile < 100)) {
      throw new IllegalArgumentException("--percentile must be in (0, 100), was " + percentile);
    }
    PrintWriter out = spec.commandLine().getOut();
    RunResult runA = RunFacts.attach(a, RecordFiles.read(a));
    RunResult runB = RunFacts.attach(b, RecordFiles.read(b));
    List<RequestRecord> recordsA = runA.records();
    List<RequestRecord> recordsB = runB.records();
    ComponentTable tableA;
    ComponentTable tableB;
    ChangeDecomposition.Builder decomposition = ChangeDecomposition.builder().percentile(percentile / 100);
    switch (coupling.toLowerCase(Locale.ROOT)) {
      case "position" -> {
        Function<RequestRecord, String> position = r -> "#" + r.index();
        tableA = ComponentTable.phases(recordsA, LatencyBasis.SERVICE_TIME, position);
        tableB = ComponentTable.phases(recordsB, LatencyBasis.SERVICE_TIME, position);
        decomposition.dropUnmatched(true);
      }
      case "rank" -> {
        tableA = ComponentTable.phases(recordsA, LatencyBasis.SERVICE_TIME);
        tableB = ComponentTable.phases(recordsB, LatencyBasis.SERVICE_TIME);
      }
      default -> throw new IllegalArgumentException("--coupling must be position or rank, was " + coupling);
    }
    PercentileChange change = decomposition.build().decompose(tableA, tableB);
    String p = trim(percentile);
    out.printf(Locale.ROOT, "Why did P%s E2E move from %s to %s? %.1f ms -> %.1f ms (%+.1f ms)%n", p, RecordFiles.label(a),
        RecordFiles.label(b), change.statisticA(), change.statisticB(), change.change());
    out.printf(Locale.ROOT, "Shapley split over phases (%s coupling, %d request pairs, %s):%n", change.coupling(),
        change.coupledRequests(), change.method());
    for (String phase : change.ranking()) {
      out.printf(Locale.ROOT, "  %-27s %+9.1f ms%n", phase, change.contribution(phase));
    }
    out.printf(Locale.ROOT, "  (the contributions add up to the change within %.1e ms; one phase at a time would "
        + "disagree by up to %.1f ms depending on the order)%n", change.efficiencyGap(), change.orderDependence());
    DriftReport drift = Drift.compare(recordsA, recordsB, LatencyMetric.E2E);
    out.println();
    out.println("Did E2E drift?");
    out.printf(Locale.ROOT, "  PSI %.3f (%s), KS D=%.3f p=%.3g (%s)%n", drift.psi(),
        drift.psiVerdict().name().toLowerCase(Locale.ROOT), drift.ks().statistic(), drift.ks().pValue(),
        drift.ks().rejects() ? "the distributions differ" : "no difference shown");
    for (TailComparison t : drift.tails()) {
      out.printf(Locale.ROOT, "  %-5s %9.1f -> %9.1f ms  %s%n", t.label(), t.baseline().estimateMillis().orElse(Double.NaN),
          t.current().estimateMillis().orElse(Double.NaN), t.shift().name().toLowerCase(Locale.ROOT));
    }
    out.flush();
    return Infermark.OK;
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
  }
}
