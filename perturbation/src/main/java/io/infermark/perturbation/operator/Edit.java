package io.infermark.perturbation.operator;

import java.util.Objects;

/**
 * One change an operator made, for the variant's change log.
 *
 * @param dimension the space dimension whose operator made it
 * @param channel where it was made
 * @param kind what kind of change, e.g. {@code "swap"}, {@code "synonym"}, {@code "rename"}
 * @param position the character offset in the text the operator received (text edits; every
 *     operator sees the output of the one before it), or -1 for structure edits
 * @param before what was there ({@code ""} for an insertion); for structure edits a JSON pointer
 *     and old value
 * @param after what is there now ({@code ""} for a deletion)
 */
public record Edit(String dimension, Channel channel, String kind, int position, String before, String after) {

  /** Validates. */
  public Edit {
    Objects.requireNonNull(dimension, "dimension");
    Objects.requireNonNull(channel, "channel");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(before, "before");
    Objects.requireNonNull(after, "after");
    if (position < -1) {
      throw new IllegalArgumentException("position must be >= -1, was " + position);
    }
  }

  @Override
  public String toString() {
    return dimension + " " + kind + (position >= 0 ? "@" + position : "") + ": '" + before + "' -> '" + after + "'";
  }
}
