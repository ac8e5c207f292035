package io.infermark.cli.scenario;

import io.infermark.cli.options.DurationText;
import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.pipeline.RetrievalTarget;
import io.infermark.core.request.Prompt;
import io.infermark.perturbation.fidelity.SemanticFidelityFuse;
import io.infermark.perturbation.scenario.RetrievalKit;
import io.infermark.perturbation.scenario.RetrievalVerdict;
import io.infermark.testkit.simulator.SimulatedVectorIndex;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code infermark scenario retrieval}: seed 003 §2.2 and §4.2, {@link RetrievalKit} over a simulated index. */
@Command(name = "retrieval", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Seed 003 §2.2/§4.2, retrieval under concurrent load: a simulated vector index (its latency grows "
        + "and its recall falls with the searches in flight, with known ground truth) in front of the server, which "
        + "answers from the passages. Each --concurrency level reports recall@k, the Top-3 MRR, the retrieval "
        + "stage's P50/P99 and E2E P99, and with --fidelity-fuse the semantic fidelity of the answers against the "
        + "context perfect retrieval gives (seed: BERTScore below 0.75 trips the fuse).",
        "A level degrades when its mean recall < --min-recall, MRR < --min-mrr, retrieval P99 > "
            + "--max-retrieval-p99, its fuse trips, or requests failed. Passes when no level degrades."})
final class RetrievalCommand extends KitCommand {

  @Option(names = "--concurrency", split = ",", paramLabel = "N", defaultValue = "50,200",
      description = "Load levels, concurrent streams (default: ${DEFAULT-VALUE}, the seed's table).")
  int[] levels;

  @Option(names = "--requests-per-level", defaultValue = "200", description = "Requests at each level, after one "
      + "warm-up per stream (default: ${DEFAULT-VALUE}).")
  int requestsPerLevel;

  @Option(names = "--top-k", defaultValue = "10", description = "Passages retrieved per request (default: "
      + "${DEFAULT-VALUE}, seed §4.2's Recall@10).")
  int topK;

  @Option(names = "--min-recall", defaultValue = "0.9", description = "Lowest mean recall@k that holds (default: "
      + "${DEFAULT-VALUE}).")
  double minRecall;

  @Option(names = "--min-mrr", description = "Lowest Top-3 MRR that holds (default: none).")
  Double minMrr;

  @Option(names = "--max-retrieval-p99", paramLabel = "DURATION", converter = DurationText.class,
      description = "Longest retrieval P99 that holds (default: none).")
  Duration maxRetrievalP99;

  @Option(names = "--fidelity-fuse", description = "Score every answer against its reference (the context a "
      + "perfect retrieval gives: meaningful for a model that answers from its context) and degrade a level whose "
      + "fuse trips.")
  boolean fuse;

  @Option(names = "--fidelity-threshold", defaultValue = "0.75", description = "The fuse's threshold (default: "
      + "${DEFAULT-VALUE}, the seed's).")
  double fidelityThreshold;

  @Option(names = "--relevant-per-query", defaultValue = "4", description = "Index: relevant documents per query "
      + "(default: ${DEFAULT-VALUE}).")
  int relevant;

  @Option(names = "--index-latency", paramLabel = "DURATION", converter = DurationText.class, defaultValue = "5ms",
      description = "Index: a search alone (default: ${DEFAULT-VALUE}).")
  Duration baseLatency;

  @Option(names = "--index-latency-per-search", paramLabel = "DURATION", converter = DurationText.class,
      defaultValue = "1ms", description = "Index: added per other search in flight (default: ${DEFAULT-VALUE}).")
  Duration perInFlight;

  @Option(names = "--index-recall-drop", defaultValue = "0.05", description = "Index: recall lost per other search "
      + "in flight (default: ${DEFAULT-VALUE}).")
  double recallDrop;

  @Option(names = "--index-min-recall", defaultValue = "0.25", description = "Index: recall floor (default: "
      + "${DEFAULT-VALUE}).")
  double indexMinRecall;

  @Option(names = "--index-rank-drop", defaultValue = "0", description = "Index: distractors ranked first per other "
      + "search in flight (default: ${DEFAULT-VALUE}).")
  int rankDrop;

  @Option(names = "--seed", defaultValue = "7", description = "Seed of queries and ground truth (default: "
      + "${DEFAULT-VALUE}).")
  long seed;

  @Override
  int defaultOutputLen() {
    return 20;
  }

  private SimulatedVectorIndex index() {
    return SimulatedVectorIndex.builder().relevantPerQuery(relevant).baseLatency(baseLatency)
        .latencyPerInFlight(perInFlight).recallDropPerInFlight(recallDrop).minRecall(indexMinRecall)
        .rankDropPerInFlight(rankDrop).seed(seed).build();
  }

  private RetrievalKit kit() {
    RetrievalKit.Builder b = RetrievalKit.builder().minRecall(minRecall);
    if (minMrr != null) {
      b.minMrr(minMrr);
    }
    if (maxRetrievalP99 != null) {
      b.maxRetrievalP99(maxRetrievalP99);
    }
    if (fuse) {
      b.fidelityFuse(SemanticFidelityFuse.defaults().threshold(fidelityThreshold));
    }
    return b.build();
  }

  @Override
  void validate() {
    if (levels.length == 0 || java.util.Arrays.stream(levels).anyMatch(c -> c < 1)) {
      throw new IllegalArgumentException("--concurrency needs levels >= 1");
    }
    if (requestsPerLevel < 1 || topK < 1) {
      throw new IllegalArgumentException("--requests-per-level and --top-k must be >= 1, were " + requestsPerLevel
          + " and " + topK);
    }
    index();
    kit();
  }

  /** Each of the index's prompts tagged with its reference answer: what a perfect retrieval would give it. */
  private static List<Prompt> withReferences(SimulatedVectorIndex index, List<Prompt> prompts) {
    return prompts.stream()
        .map(p -> p.withTag(SemanticFidelityFuse.REFERENCE_TAG, index.reference(p).strip()))
        .toList();
  }

  @Override
  Outcome execute(PrintWriter out, PrintWriter err) {
    SimulatedVectorIndex index = index();
    RetrievalKit kit = kit();
    List<RetrievalKit.Level> measured = new ArrayList<>();
    List<io.infermark.core.capture.RequestRecord> all = new ArrayList<>();
    try (RetrievalTarget rag = RetrievalTarget.builder(target.build(), index).topK(topK).build()) {
      for (int c : levels) {
        RunResult run = Benchmark.target(rag).prompts(withReferences(index, index.prompts(requestsPerLevel)))
            .captureText(fuse).params(params())
            .load(LoadProfile.concurrency(c).requests(requestsPerLevel).warmupRequests(c)).run();
        measured.add(new RetrievalKit.Level("concurrency " + c, c, run.measured()));
        all.addAll(run.measured());
      }
    }
    requireASuccess(all);
    RetrievalVerdict v = kit.verdict(measured);
    List<String> lines = new ArrayList<>(v.table().lines().toList());
    v.degradedAt().ifPresent(l -> lines.add("degraded from " + l.label()));
    Map<String, Object> extra = new LinkedHashMap<>();
    extra.put("index", index.toString());
    return new Outcome(v.pass(), v, lines, extra, Optional.empty()).withRecords(all);
  }
}
