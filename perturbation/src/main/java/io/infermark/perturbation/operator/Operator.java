package io.infermark.perturbation.operator;

import java.util.SplittableRandom;

/**
 * One way to perturb a prompt, with ordered levels of intensity: level 0 is the mildest (usually
 * no change), level {@code levelCount() - 1} the strongest allowed by the operator's bound.
 *
 * <p>Implementations are immutable. {@link #apply} must be deterministic given the random source,
 * must log every change to the draft, and, when {@link #preservesMeaning()} is true, must leave the
 * draft's {@linkplain ProtectedSpans protected spans} unchanged unless the operator was explicitly
 * told otherwise.
 */
public interface Operator {

  /** A short name, e.g. {@code "typos"}. */
  String name();

  /** How many levels the operator has (at least 1). */
  int levelCount();

  /** What a level means, e.g. {@code "3 edits"}. */
  String describeLevel(int level);

  /** True when variants it makes must mean the same as their input (so belong to its equivalence class). */
  boolean preservesMeaning();

  /** How the operator divides its edits between text and structure. */
  default ChannelWeights channels() {
    return ChannelWeights.TEXT_ONLY;
  }

  /** True when the operator needs an output schema to work on. */
  default boolean needsSchema() {
    return false;
  }

  /**
   * Applies one level to the draft.
   *
   * @param draft the text and schema to change; changes are logged on it
   * @param level the level, {@code 0 <= level < levelCount()}
   * @param random the operator's own random source, seeded by the space
   */
  void apply(Draft draft, int level, SplittableRandom random);
}
