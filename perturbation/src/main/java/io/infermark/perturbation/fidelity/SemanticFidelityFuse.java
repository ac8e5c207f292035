package io.infermark.perturbation.fidelity;

import io.infermark.core.capture.RequestRecord;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Seed 003 §2.2's semantic-fidelity fuse: "对每条RAG输出做实时语义一致性打分当BertScore低于阈值0.75时自动触发向量服务降级熔断"
 * (score every RAG answer's semantic consistency in real time; when BERTScore falls below the 0.75
 * threshold, automatically trip the fuse that degrades the vector service). Replays a run's answers in
 * send order, scores each against its reference with a {@link SemanticScorer}, and trips at the first
 * answer where the mean of the last {@code window} [1: each answer on its own, as the seed says] scores
 * is below the threshold [0.75] (with a window of n, once n answers are scored).
 *
 * <pre>{@code
 * // prompts tagged with their reference answers; run with captureText(true)
 * Prompt p = Prompt.user(question).withTag(SemanticFidelityFuse.REFERENCE_TAG, referenceAnswer);
 * FidelityVerdict v = SemanticFidelityFuse.defaults().judge(run.measured());
 * v.tripped();   // the fuse's verdict; v.trip() says at which answer, with what score
 * }</pre>
 *
 * <p>An answer is scored when its request succeeded and it has a reference (the record's
 * {@value #REFERENCE_TAG} tag by default); failed requests and answers without a reference are counted,
 * not scored. The default scorer is {@link SemanticScorer#greedyTrigramF1()} (offline, lexical: read
 * its notes before comparing its values with BERTScore's). Immutable.
 */
public final class SemanticFidelityFuse {

  /** The seed's threshold: 0.75. */
  public static final double SEED_THRESHOLD = 0.75;
  /** Prompt (and so record) tag holding an answer's reference. */
  public static final String REFERENCE_TAG = "semantic.reference";

  private final SemanticScorer scorer;
  private final double threshold;
  private final int window;

  private SemanticFidelityFuse(SemanticScorer scorer, double threshold, int window) {
    this.scorer = scorer;
    this.threshold = threshold;
    this.window = window;
  }

  /** The seed's fuse (threshold 0.75, each answer on its own) with the offline default scorer. */
  public static SemanticFidelityFuse defaults() {
    return of(SemanticScorer.greedyTrigramF1());
  }

  /** The seed's fuse with another scorer (a BERTScore service, an embedding model, a judge). */
  public static SemanticFidelityFuse of(SemanticScorer scorer) {
    return new SemanticFidelityFuse(Objects.requireNonNull(scorer, "scorer"), SEED_THRESHOLD, 1);
  }

  /** The same tripping below {@code threshold}, in (0, 1]. */
  public SemanticFidelityFuse threshold(double threshold) {
    if (!(threshold > 0 && threshold <= 1)) {
      throw new IllegalArgumentException("threshold must be in (0, 1], was " + threshold);
    }
    return new SemanticFidelityFuse(scorer, threshold, window);
  }

  /** The same judging the mean of the last {@code answers} scores (at least 1) instead of each on its own. */
  public SemanticFidelityFuse window(int answers) {
    if (answers < 1) {
      throw new IllegalArgumentException("window must be at least 1 answer, was " + answers);
    }
    return new SemanticFidelityFuse(scorer, threshold, answers);
  }

  /** The threshold. */
  public double threshold() {
    return threshold;
  }

  /** Judges records against the references in their {@value #REFERENCE_TAG} tags. */
  public FidelityVerdict judge(List<RequestRecord> records) {
    return judge(records, r -> Optional.ofNullable(r.tags().get(REFERENCE_TAG)));
  }

  /**
   * Judges records against the references {@code reference} gives.
   *
   * @throws IllegalArgumentException if a successful record with a reference has no captured text (run with
   *     {@code captureText(true)}), or the scorer returns a value outside [0, 1]
   */
  public FidelityVerdict judge(List<RequestRecord> records, Function<RequestRecord, Optional<String>> reference) {
    Objects.requireNonNull(records, "records");
    Objects.requireNonNull(reference, "reference");
    List<RequestRecord> ordered = records.stream().filter(RequestRecord::measured)
        .sorted(Comparator.comparingLong(RequestRecord::sendNanos).thenComparingLong(RequestRecord::index)).toList();
    ArrayDeque<Double> last = new ArrayDeque<>();
    double windowSum = 0;
    double sum = 0;
    double min = Double.NaN;
    int scored = 0;
    int unscored = 0;
    int below = 0;
    FidelityVerdict.Trip trip = null;
    for (RequestRecord r : ordered) {
      Optional<String> ref = r.succeeded() ? reference.apply(r) : Optional.empty();
      if (ref.isEmpty()) {
        unscored++;
        continue;
      }
      String answer = r.text().orElseThrow(() -> new IllegalArgumentException("request " + r.requestId()
          + " succeeded without captured text; run with captureText(true) to judge semantic fidelity"));
      double score = scorer.score(answer, ref.get());
      if (!(score >= 0 && score <= 1)) {
        throw new IllegalArgumentException(scorer.name() + " scored request " + r.requestId() + " " + score
            + "; a semantic score must be in [0, 1]");
      }
      scored++;
      sum += score;
      min = Double.isNaN(min) ? score : Math.min(min, score);
      below += score < threshold ? 1 : 0;
      last.addLast(score);
      windowSum += score;
      if (last.size() > window) {
        windowSum -= last.removeFirst();
      }
      double judged = windowSum / last.size();
      if (trip == null && last.size() == window && judged < threshold) {
        trip = new FidelityVerdict.Trip(r.requestId(), r.index(), r.sendNanos(), score, judged);
      }
    }
    return new FidelityVerdict(trip != null, Optional.ofNullable(trip), scored, unscored,
        scored == 0 ? Double.NaN : sum / scored, min, below, threshold, window, scorer.name());
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "SemanticFidelityFuse[%s < %s over %d answer%s]", scorer.name(), threshold,
        window, window == 1 ? "" : "s");
  }
}
