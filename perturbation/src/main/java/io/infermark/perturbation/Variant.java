package io.infermark.perturbation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.perturbation.operator.Channel;
import io.infermark.perturbation.operator.Edit;
import io.infermark.perturbation.validate.ResponseFormat;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * One point of a {@link PerturbationSpace} applied: its level vector, the perturbed prompt (tagged
 * with {@code variant}, {@code class} and {@code level.<dimension>}), the perturbed output schema,
 * and every change made, in order. Immutable.
 */
public final class Variant {

  /** The tag holding the variant's index. */
  public static final String VARIANT_TAG = "variant";
  /** The tag holding the variant's equivalence class. */
  public static final String CLASS_TAG = "class";

  private final int index;
  private final int[] levels;
  private final Prompt prompt;
  private final ObjectNode schema;
  private final List<Edit> edits;
  private final boolean preservesMeaning;
  private final String classId;
  private final double textIntensity;
  private final double structureIntensity;
  private final long seed;

  Variant(int index, int[] levels, Prompt prompt, ObjectNode schema, List<Edit> edits, boolean preservesMeaning,
      String classId, double textIntensity, double structureIntensity, long seed) {
    this.index = index;
    this.levels = levels;
    this.prompt = prompt;
    this.schema = schema;
    this.edits = List.copyOf(edits);
    this.preservesMeaning = preservesMeaning;
    this.classId = classId;
    this.textIntensity = textIntensity;
    this.structureIntensity = structureIntensity;
    this.seed = seed;
  }

  /** The variant's index in its design (0 for a single application). */
  public int index() {
    return index;
  }

  /** The level of each dimension, in the space's order (a copy). */
  public int[] levels() {
    return levels.clone();
  }

  /** The level of dimension {@code d}. */
  public int level(int d) {
    if (d < 0 || d >= levels.length) {
      throw new IllegalArgumentException("dimension index must be in [0, " + (levels.length - 1) + "], was " + d);
    }
    return levels[d];
  }

  /** The perturbed, tagged prompt. */
  public Prompt prompt() {
    return prompt;
  }

  /** The perturbed output schema, if the space has one (a copy). */
  public Optional<JsonNode> outputSchema() {
    return schema == null ? Optional.empty() : Optional.of(schema.deepCopy());
  }

  /** Every change made, in the order made. */
  public List<Edit> edits() {
    return edits;
  }

  /**
   * True when every dimension whose operator does not preserve meaning sits at a level that made no
   * change, so this variant must mean what the base prompt means.
   */
  public boolean preservesMeaning() {
    return preservesMeaning;
  }

  /**
   * The equivalence class: variants with the same class differ only by meaning-preserving
   * operators. It is the base prompt's {@code class} tag (or {@code base}) followed by the levels of
   * the non-meaning-preserving dimensions, e.g. {@code base[injection=2]}.
   */
  public String classId() {
    return classId;
  }

  /**
   * The variant's intensity on one channel: {@code Σ level/(levels-1) × weight(channel)} over the
   * space's dimensions (a one-level dimension contributes 0).
   */
  public double intensity(Channel channel) {
    return channel == Channel.TEXT ? textIntensity : structureIntensity;
  }

  /** The seed this variant was made with. */
  public long seed() {
    return seed;
  }

  /**
   * {@code base} plus a strict {@code response_format} built from this variant's output schema
   * (named {@code output}); {@code base} unchanged when the space has no schema.
   */
  public GenerationParams params(GenerationParams base) {
    return schema == null ? base : ResponseFormat.apply(base, "output", schema);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "Variant[#%d levels %s, class %s, %d edits%s]", index, Arrays.toString(levels),
        classId, edits.size(), preservesMeaning ? ", meaning-preserving" : "");
  }
}
