package io.infermark.cli.scenario;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.Prompt;
import io.infermark.metrics.Distribution;
import io.infermark.perturbation.workload.DensityWeightedClustering;
import io.infermark.perturbation.workload.LogWorkload;
import io.infermark.perturbation.workload.QueryCluster;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code infermark scenario density}: seed 003 ch.1/§2.2's density-weighted load over query clusters. */
@Command(name = "density", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Seed 003 ch.1 and §2.2, density-weighted load: the query log is embedded (character trigrams), "
        + "clustered by k-means (k = --clusters), and each cluster gets the QPS weight clamp(1.5 density / mean "
        + "density, 0.3, 2.0); synthetic queries are drawn by Gaussian noise around each centroid (the nearest member "
        + "of the cluster is sent), interleaved so every stretch of the run has the mix, at a Poisson --rate.",
        "Reports each cluster's share, QPS and latency. Passes when every request was sent and answered, so each "
            + "cluster got exactly its share of the rate."})
final class DensityCommand extends KitCommand {

  /** The seven-query log of docs/scenarios.md, used without --queries. */
  static final List<String> SAMPLE_LOG = List.of("How do I reset my password?", "how do i reset my password",
      "How can I reset my password?", "What is the weather in Paris?", "what's the weather in paris today",
      "Cancel my subscription", "Please cancel my subscription now");

  @Option(names = "--queries", paramLabel = "FILE", description = "The query log, one query a line (default: a "
      + "seven-query sample log, see docs/scenarios.md).")
  Path queries;

  @Option(names = "--clusters", defaultValue = "5", description = "k of k-means (default: ${DEFAULT-VALUE}, the "
      + "seed's).")
  int k;

  @Option(names = "--seed", defaultValue = "42", description = "Seed of k-means and the noise (default: "
      + "${DEFAULT-VALUE}, the seed's random_state).")
  long seed;

  @Option(names = "--centroid-noise", defaultValue = "0.15", description = "Gaussian noise on the centroids, "
      + "relative to each centroid's length (default: ${DEFAULT-VALUE}, the seed's \"±15%%\").")
  double noise;

  @Option(names = "--absolute-noise", description = "Read --centroid-noise as an absolute sigma per coordinate, as "
      + "the seed's code (np.random.normal(0, 0.15, ...)).")
  boolean absoluteNoise;

  @Option(names = "--representatives", description = "Send each cluster's representative (the member nearest its "
      + "centroid) instead of synthetic queries.")
  boolean representatives;

  @Option(names = "--requests", defaultValue = "1000", description = "Requests in all (default: ${DEFAULT-VALUE}).")
  int requests;

  @Option(names = "--rate", defaultValue = "50", description = "Requests per second, Poisson (default: "
      + "${DEFAULT-VALUE}).")
  double rate;

  @Override
  int defaultOutputLen() {
    return 16;
  }

  private List<String> log() {
    if (queries == null) {
      return SAMPLE_LOG;
    }
    try {
      List<String> lines = Files.readAllLines(queries).stream().map(String::strip).filter(l -> !l.isEmpty()).toList();
      if (lines.isEmpty()) {
        throw new IllegalArgumentException("--queries " + queries + " holds no query");
      }
      return lines;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read --queries " + queries + ": " + e.getMessage(), e);
    }
  }

  private DensityWeightedClustering clustering() {
    DensityWeightedClustering c = DensityWeightedClustering.defaults().k(k).seed(seed);
    return absoluteNoise ? c.centroidNoise(noise) : c.relativeCentroidNoise(noise);
  }

  @Override
  void validate() {
    if (requests < 1 || !(rate > 0) || Double.isInfinite(rate)) {
      throw new IllegalArgumentException("--requests must be >= 1 and --rate > 0, were " + requests + " and " + rate);
    }
    clustering();
  }

  @Override
  Outcome execute(PrintWriter out, PrintWriter err) {
    LogWorkload workload = LogWorkload.of(log(), clustering());
    List<Prompt> prompts = representatives ? workload.interleaved(requests) : workload.synthesized(requests);
    RunResult run;
    try (Target t = target.build()) {
      run = Benchmark.target(t).prompts(prompts).params(params())
          .load(LoadProfile.poisson(rate).requests(requests).seed(seed)).run();
    }
    requireASuccess(run.measured());
    double seconds = run.durationNanos() / 1e9;
    List<String> lines = new ArrayList<>();
    lines.add(String.format(Locale.ROOT, "%7s %7s %9s %7s %8s %10s %10s  %s", "cluster", "share", "quota", "sent",
        "answered", "QPS", "TTFT p50", "representative"));
    List<Map<String, Object>> rows = new ArrayList<>();
    boolean pass = true;
    for (QueryCluster c : workload.clusters()) {
      String id = Integer.toString(c.id());
      long quota = prompts.stream().filter(p -> id.equals(p.tags().get(LogWorkload.CLUSTER_TAG))).count();
      List<RequestRecord> mine = run.measured().stream()
          .filter(r -> id.equals(r.tags().get(LogWorkload.CLUSTER_TAG))).toList();
      long sent = mine.stream().filter(RequestRecord::wasSent).count();
      long answered = mine.stream().filter(RequestRecord::succeeded).count();
      pass &= sent == quota && answered == quota;
      Distribution ttft = Distribution.of(mine.stream().filter(RequestRecord::succeeded)
          .filter(r -> r.chunks().firstTokenOffsetNanos().isPresent())
          .mapToDouble(r -> r.chunks().firstTokenOffsetNanos().getAsLong() / 1e6).toArray());
      double qps = seconds > 0 ? sent / seconds : Double.NaN;
      lines.add(String.format(Locale.ROOT, "%7s %7.4f %9d %7d %8d %10.2f %10s  %s", id, c.weight(), quota, sent,
          answered, qps, ttft.p50().isPresent() ? String.format(Locale.ROOT, "%.2f", ttft.p50().getAsDouble()) : "-",
          c.representative()));
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("cluster", c.id());
      row.put("share", c.weight());
      row.put("members", c.members().size());
      row.put("representative", c.representative());
      row.put("quota", quota);
      row.put("sent", sent);
      row.put("answered", answered);
      row.put("qps", qps);
      row.put("ttft_p50_ms", ttft.p50());
      row.put("ttft_p99_ms", ttft.p99());
      rows.add(row);
    }
    Map<String, Object> verdict = new LinkedHashMap<>();
    verdict.put("pass", pass);
    verdict.put("clusters", rows);
    verdict.put("clustering", clustering().toString());
    return new Outcome(pass, verdict, lines, Map.of(), Optional.empty()).withRecords(run.measured());
  }
}
