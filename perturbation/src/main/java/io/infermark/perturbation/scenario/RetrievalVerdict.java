package io.infermark.perturbation.scenario;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of a {@link RetrievalKit}: recall, Top-3 MRR, semantic fidelity (with a fuse) and latency
 * at each load level, and the first level where retrieval degraded. {@link #table()} marks a level
 * whose fuse tripped with {@code !} after its mean fidelity.
 *
 * @param pass true when no level degraded
 * @param degradedAt the first level whose mean recall fell below the minimum or whose retrieval P99
 *     exceeded the limit, if any
 * @param levels every level, in the order given
 */
public record RetrievalVerdict(boolean pass, Optional<Level> degradedAt, List<Level> levels) {

  /**
   * One load level's numbers.
   *
   * @param label the level's name (e.g. "concurrency 8")
   * @param load the level's load, for ordering and charts (streams, requests/s)
   * @param requests measured requests with a recall (ground truth and retrieved ids)
   * @param failed failed measured requests
   * @param meanRecall mean recall@k, 0 to 1
   * @param minRecall the lowest recall@k of a request
   * @param mrr mean reciprocal rank of the first relevant document within the top 3 (seed 003 §2.2's
   *     "召回准确率（Top-3 MRR）"), 0 to 1
   * @param fidelity the level's semantic-fidelity verdict, when the kit has a fuse
   * @param retrievalP50Ms median retrieval stage, ms
   * @param retrievalP99Ms P99 retrieval stage, ms (linear interpolation)
   * @param e2eP99Ms P99 end to end (retrieval plus generation), ms
   * @param e2eP95Ms P95 end to end, ms: seed 003 §2.2's table reports "P95延迟(ms)" per concurrency level
   * @param degraded true when this level broke a limit (recall, MRR, retrieval P99, failures, or its fuse tripped)
   */
  public record Level(String label, double load, int requests, int failed, double meanRecall, double minRecall,
      double mrr, Optional<io.infermark.perturbation.fidelity.FidelityVerdict> fidelity, double retrievalP50Ms,
      double retrievalP99Ms, double e2eP99Ms, double e2eP95Ms, boolean degraded) {

    /** Validates. */
    public Level {
      Objects.requireNonNull(fidelity, "fidelity");
    }
  }

  /** Copies. */
  public RetrievalVerdict {
    levels = List.copyOf(levels);
  }

  /** A text table of the levels. */
  public String table() {
    StringBuilder s = new StringBuilder(String.format(Locale.ROOT,
        "%-16s %8s %6s %8s %8s %8s %9s %10s %10s %10s %10s %s%n", "level", "requests", "failed", "recall", "min",
        "MRR@3", "fidelity", "retr p50", "retr p99", "e2e p95", "e2e p99", "state"));
    for (Level l : levels) {
      s.append(String.format(Locale.ROOT, "%-16s %8d %6d %8.3f %8.3f %8.3f %9s %10.2f %10.2f %10.2f %10.2f %s%n",
          l.label(),
          l.requests(), l.failed(), l.meanRecall(), l.minRecall(), l.mrr(),
          l.fidelity().map(f -> String.format(Locale.ROOT, "%.3f%s", f.meanScore(), f.tripped() ? "!" : ""))
              .orElse("-"), l.retrievalP50Ms(), l.retrievalP99Ms(), l.e2eP95Ms(), l.e2eP99Ms(),
          l.degraded() ? "DEGRADED" : "ok"));
    }
    return s.toString();
  }

  @Override
  public String toString() {
    return "RetrievalVerdict[" + (pass ? "PASS" : "FAIL") + ", " + levels.size() + " levels"
        + degradedAt.map(l -> ", degraded at " + l.label()).orElse("") + "]";
  }
}
