package io.infermark.perturbation.fidelity;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link SemanticFidelityFuse}'s verdict on a run's answers.
 *
 * @param tripped the fuse tripped: some answer (or window of answers) scored below the threshold
 * @param trip where it tripped, if it did
 * @param scored answers scored
 * @param unscored measured requests not scored (failed, or no reference)
 * @param meanScore the mean score of the scored answers (NaN when none)
 * @param minScore the lowest score (NaN when none)
 * @param belowThreshold scored answers below the threshold
 * @param threshold the threshold
 * @param window answers per judged mean
 * @param scorer the scorer's name
 */
public record FidelityVerdict(boolean tripped, Optional<Trip> trip, int scored, int unscored, double meanScore,
    double minScore, int belowThreshold, double threshold, int window, String scorer) {

  /** Validates. */
  public FidelityVerdict {
    Objects.requireNonNull(trip, "trip");
    Objects.requireNonNull(scorer, "scorer");
  }

  /**
   * Where the fuse tripped.
   *
   * @param requestId the answer's request
   * @param index its index in the run
   * @param sendNanos its send time, from the run's origin
   * @param score its own score
   * @param windowMean the mean of the window that tripped (its own score with a window of 1)
   */
  public record Trip(String requestId, long index, long sendNanos, double score, double windowMean) {}

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "FidelityVerdict[%s, %s mean %.3f, min %.3f, %d of %d below %s%s]",
        tripped ? "TRIPPED" : "held", scorer, meanScore, minScore, belowThreshold, scored, threshold,
        trip.map(t -> String.format(Locale.ROOT, ", tripped at request #%d (%.3f)", t.index(), t.windowMean()))
            .orElse(""));
  }
}
