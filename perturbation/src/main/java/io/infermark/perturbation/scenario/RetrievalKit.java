package io.infermark.perturbation.scenario;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.pipeline.RetrievalTarget;
import io.infermark.core.stats.QuantileMethod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Scenario kit: retrieval degradation under load (seed 003 §4.2). Run a
 * {@link RetrievalTarget retrieval pipeline} at rising load levels on prompts tagged with their
 * ground truth ({@link RetrievalTarget#RELEVANT_TAG}); the kit reports each level's recall@k and
 * the retrieval stage's latency (from the record's {@code RETRIEVAL_START}/{@code RETRIEVAL_END}
 * phases) next to end-to-end latency.
 *
 * <pre>{@code
 * RetrievalKit kit = RetrievalKit.builder().minRecall(0.9).maxRetrievalP99(Duration.ofMillis(50)).build();
 * List<RetrievalKit.Level> levels = new ArrayList<>();
 * for (int c : new int[] {1, 4, 16}) {
 *   RunResult run = Benchmark.target(rag).prompts(prompts).load(LoadProfile.concurrency(c).requests(200)).run();
 *   levels.add(new RetrievalKit.Level("concurrency " + c, c, run.measured()));
 * }
 * RetrievalVerdict verdict = kit.verdict(levels);
 * }</pre>
 *
 * <p>Beside recall@k each level reports seed 003 §2.2's "召回准确率（Top-3 MRR）", the mean reciprocal
 * rank of the first relevant document within the top 3 ({@link RetrievalTarget#reciprocalRank}), and,
 * with a {@link io.infermark.perturbation.fidelity.SemanticFidelityFuse} ({@code fidelityFuse}), the
 * semantic fidelity of its answers against their references and whether the seed's fuse tripped.
 *
 * <p><b>Verdict:</b> a level <i>degrades</i> when its mean recall@k is below {@code minRecall} [0.9],
 * its MRR@3 below {@code minMrr} [none], its retrieval P99 exceeds {@code maxRetrievalP99} [none], its
 * fuse trips, or more than {@code maxFailureRate} [0] of its requests failed. The kit passes when no
 * level degrades and reports the first that did.
 */
public final class RetrievalKit {

  private final double minRecall;
  private final double minMrr;
  private final Duration maxRetrievalP99;
  private final double maxFailureRate;
  private final io.infermark.perturbation.fidelity.SemanticFidelityFuse fuse;

  /**
   * One load level's measured records.
   *
   * @param label its name
   * @param load its load (streams or requests/s), for ordering and charts
   * @param records its measured records
   */
  public record Level(String label, double load, List<RequestRecord> records) {
    /** Validates and copies. */
    public Level {
      Objects.requireNonNull(label, "label");
      records = List.copyOf(records);
    }
  }

  private RetrievalKit(Builder b) {
    this.minRecall = b.minRecall;
    this.minMrr = b.minMrr;
    this.maxRetrievalP99 = b.maxRetrievalP99;
    this.maxFailureRate = b.maxFailureRate;
    this.fuse = b.fuse;
  }

  /** A builder with the defaults above. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The verdict over levels in the order given (usually rising load).
   *
   * @throws IllegalArgumentException if a level has no successful request with ground truth and a
   *     retrieval stage to measure
   */
  public RetrievalVerdict verdict(List<Level> levels) {
    if (levels.isEmpty()) {
      throw new IllegalArgumentException("no levels: run the pipeline at a few loads and pass each level's records");
    }
    List<RetrievalVerdict.Level> out = new ArrayList<>();
    Optional<RetrievalVerdict.Level> degradedAt = Optional.empty();
    for (Level level : levels) {
      List<Double> recalls = new ArrayList<>();
      List<Double> ranks = new ArrayList<>();
      List<Double> retrieval = new ArrayList<>();
      List<Double> e2e = new ArrayList<>();
      int failed = 0;
      int measured = 0;
      for (RequestRecord r : level.records()) {
        if (!r.measured()) {
          continue;
        }
        measured++;
        if (!r.succeeded()) {
          failed++;
          continue;
        }
        OptionalDouble recall = RetrievalTarget.recallAtK(r);
        if (recall.isPresent()) {
          recalls.add(recall.getAsDouble());
        }
        RetrievalTarget.reciprocalRank(r, RetrievalTarget.MRR_DEPTH).ifPresent(ranks::add);
        r.phases().retrievalNanos().ifPresent(n -> retrieval.add(n / 1e6));
        r.chunks().lastTokenOffsetNanos().ifPresent(n -> e2e.add(n / 1e6));
      }
      if (recalls.isEmpty() || retrieval.isEmpty()) {
        throw new IllegalArgumentException("level '" + level.label() + "' has no successful request with ground truth "
            + "(" + RetrievalTarget.RELEVANT_TAG + ") and a retrieval stage; send tagged prompts through a "
            + "RetrievalTarget");
      }
      double mean = recalls.stream().mapToDouble(Double::doubleValue).average().getAsDouble();
      double min = recalls.stream().mapToDouble(Double::doubleValue).min().getAsDouble();
      double p50 = quantile(retrieval, 0.5);
      double p99 = quantile(retrieval, 0.99);
      double e2eP99 = e2e.isEmpty() ? Double.NaN : quantile(e2e, 0.99);
      double e2eP95 = e2e.isEmpty() ? Double.NaN : quantile(e2e, 0.95);
      double mrr = ranks.stream().mapToDouble(Double::doubleValue).average().orElse(0);
      Optional<io.infermark.perturbation.fidelity.FidelityVerdict> fidelity = Optional.ofNullable(fuse)
          .map(f -> f.judge(level.records()));
      boolean degraded = mean < minRecall || mrr < minMrr
          || (maxRetrievalP99 != null && p99 > maxRetrievalP99.toNanos() / 1e6)
          || failed > maxFailureRate * measured || fidelity.map(io.infermark.perturbation.fidelity.FidelityVerdict::tripped)
              .orElse(false);
      RetrievalVerdict.Level l = new RetrievalVerdict.Level(level.label(), level.load(), recalls.size(), failed, mean,
          min, mrr, fidelity, p50, p99, e2eP99, e2eP95, degraded);
      out.add(l);
      if (degraded && degradedAt.isEmpty()) {
        degradedAt = Optional.of(l);
      }
    }
    return new RetrievalVerdict(degradedAt.isEmpty(), degradedAt, out);
  }

  private static double quantile(List<Double> values, double p) {
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return QuantileMethod.LINEAR.quantile(sorted, p);
  }

  @Override
  public String toString() {
    return "RetrievalKit[minRecall " + minRecall + (minMrr > 0 ? ", minMrr " + minMrr : "")
        + (fuse == null ? "" : ", " + fuse) + ", maxRetrievalP99 " + (maxRetrievalP99 == null ? "none"
        : maxRetrievalP99) + ", maxFailureRate " + maxFailureRate + "]";
  }

  /** Collects a {@link RetrievalKit}'s limits. */
  public static final class Builder {
    private double minRecall = 0.9;
    private double minMrr;
    private Duration maxRetrievalP99;
    private double maxFailureRate;
    private io.infermark.perturbation.fidelity.SemanticFidelityFuse fuse;

    private Builder() {}

    /** The lowest acceptable mean recall@k, in [0, 1] [0.9]. */
    public Builder minRecall(double recall) {
      if (!(recall >= 0 && recall <= 1)) {
        throw new IllegalArgumentException("minRecall must be in [0, 1], was " + recall);
      }
      this.minRecall = recall;
      return this;
    }

    /** The lowest acceptable Top-3 MRR, in [0, 1] [none]. */
    public Builder minMrr(double mrr) {
      if (!(mrr >= 0 && mrr <= 1)) {
        throw new IllegalArgumentException("minMrr must be in [0, 1], was " + mrr);
      }
      this.minMrr = mrr;
      return this;
    }

    /**
     * Judges each level's answers with seed 003 §2.2's semantic-fidelity fuse (references in the prompts'
     * {@value io.infermark.perturbation.fidelity.SemanticFidelityFuse#REFERENCE_TAG} tags, text captured);
     * a level whose fuse trips degrades [none].
     */
    public Builder fidelityFuse(io.infermark.perturbation.fidelity.SemanticFidelityFuse fuse) {
      this.fuse = Objects.requireNonNull(fuse, "fuse");
      return this;
    }

    /** The longest acceptable retrieval P99 [none]. */
    public Builder maxRetrievalP99(Duration limit) {
      Objects.requireNonNull(limit, "limit");
      if (limit.isNegative() || limit.isZero()) {
        throw new IllegalArgumentException("maxRetrievalP99 must be > 0, was " + limit);
      }
      this.maxRetrievalP99 = limit;
      return this;
    }

    /** The failure share a level may have, in [0, 1) [0]. */
    public Builder maxFailureRate(double rate) {
      if (!(rate >= 0 && rate < 1)) {
        throw new IllegalArgumentException("maxFailureRate must be in [0, 1), was " + rate);
      }
      this.maxFailureRate = rate;
      return this;
    }

    /** The kit. */
    public RetrievalKit build() {
      return new RetrievalKit(this);
    }
  }
}
