package io.infermark.perturbation.operator;

import java.util.Locale;

/**
 * How an operator divides its edit budget between the {@linkplain Channel#TEXT text} and the
 * {@linkplain Channel#STRUCTURE structure} channel. Weights are in [0, 1] and sum to 1.
 *
 * <p>Concretely, an operator that makes {@code n} edits at a level makes
 * {@code round(n * text)} of them in the text and the rest in the structure ({@link #split(int)});
 * when one channel has nothing left to edit (no output schema, no candidate words), its share moves
 * to the other. A variant's per-channel intensity is {@code Σ level/maxLevel × weight} over its
 * dimensions ({@code Variant#intensity(Channel)}), a number attribution can use as a factor.
 *
 * @param text the share of edits made in the prompt's text
 * @param structure the share of edits made in the output schema
 */
public record ChannelWeights(double text, double structure) {

  /** Everything in the text: the default of operators that never touch the schema. */
  public static final ChannelWeights TEXT_ONLY = new ChannelWeights(1.0, 0.0);

  /** Validates. */
  public ChannelWeights {
    if (!(text >= 0 && text <= 1) || !(structure >= 0 && structure <= 1)) {
      throw new IllegalArgumentException("channel weights must be in [0, 1], were text=" + text
          + ", structure=" + structure);
    }
    if (Math.abs(text + structure - 1.0) > 1e-9) {
      throw new IllegalArgumentException("channel weights must sum to 1, were text=" + text
          + " + structure=" + structure + " = " + (text + structure));
    }
  }

  /** Weights with the given text share; the structure share is the rest. */
  public static ChannelWeights text(double text) {
    return new ChannelWeights(text, 1.0 - text);
  }

  /** The weight of one channel. */
  public double weight(Channel channel) {
    return channel == Channel.TEXT ? text : structure;
  }

  /**
   * Splits {@code edits} between the channels: {@code [round(edits * text), edits - that]}, with
   * halves rounded up towards the text.
   */
  public int[] split(int edits) {
    if (edits < 0) {
      throw new IllegalArgumentException("edits must be >= 0, was " + edits);
    }
    int inText = (int) Math.floor(edits * text + 0.5);
    return new int[] {inText, edits - inText};
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "text %.2f / structure %.2f", text, structure);
  }
}
