package io.infermark.core.sweep;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * What a {@link CeilingSearch} found: the highest level that passed, the lowest that failed, how the search
 * ended, and every step in the order it was measured.
 *
 * @param ceiling the highest level that passed; empty when none did (down to the minimum)
 * @param firstFailure the lowest level that failed; empty when none did (up to the maximum)
 * @param outcome how the search ended
 * @param steps every measurement, in order
 */
public record CeilingResult(OptionalDouble ceiling, OptionalDouble firstFailure, Outcome outcome,
    List<CeilingStep> steps) {

  /** How a search ended. */
  public enum Outcome {
    /** The ceiling is bracketed: the lowest failing level is within the tolerance of the highest passing one. */
    FOUND,
    /** The maximum level passed: the ceiling is at least that. */
    AT_MAX,
    /** The minimum level failed: no level passed. */
    BELOW_MIN,
    /** The time or step budget ran out first: the ceiling is a lower bound (and the first failure an upper one). */
    BUDGET_SPENT
  }

  /** Copies and validates. */
  public CeilingResult {
    Objects.requireNonNull(ceiling, "ceiling");
    Objects.requireNonNull(firstFailure, "firstFailure");
    Objects.requireNonNull(outcome, "outcome");
    steps = List.copyOf(steps);
  }

  /** The bracket's width relative to the ceiling ((first failure − ceiling) / ceiling); empty unless both exist. */
  public OptionalDouble relativeWidth() {
    if (ceiling.isEmpty() || firstFailure.isEmpty()) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of((firstFailure.getAsDouble() - ceiling.getAsDouble()) / ceiling.getAsDouble());
  }

  /** The step that measured the ceiling, if a level passed. */
  public java.util.Optional<CeilingStep> ceilingStep() {
    if (ceiling.isEmpty()) {
      return java.util.Optional.empty();
    }
    double c = ceiling.getAsDouble();
    return steps.stream().filter(s -> s.passed() && s.level() == c).reduce((a, b) -> b);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "CeilingResult[%s, ceiling %s, first failure %s, %d steps]", outcome,
        ceiling.isPresent() ? String.format(Locale.ROOT, "%.6g", ceiling.getAsDouble()) : "none",
        firstFailure.isPresent() ? String.format(Locale.ROOT, "%.6g", firstFailure.getAsDouble()) : "none",
        steps.size());
  }
}
