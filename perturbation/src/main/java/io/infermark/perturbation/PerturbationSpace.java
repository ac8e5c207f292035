package io.infermark.perturbation;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import io.infermark.perturbation.design.Design;
import io.infermark.perturbation.design.DesignComparison;
import io.infermark.perturbation.design.DesignQuality;
import io.infermark.perturbation.operator.Channel;
import io.infermark.perturbation.operator.Draft;
import io.infermark.perturbation.operator.Edit;
import io.infermark.perturbation.operator.Operator;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A base prompt (text or chat) and named dimensions, each an operator with ordered levels. A point
 * of the space is a level vector; {@link #apply(int[], long)} turns it into a {@link Variant},
 * deterministically given the seed.
 *
 * <pre>{@code
 * PerturbationSpace space = PerturbationSpace.builder(Prompt.user("Summarise the order ORDER-123456."))
 *     .dimension("typos", Typos.budgets(0, 1, 3))
 *     .dimension("noise", Noise.rates(0, 0.05, 0.1))
 *     .dimension("paraphrase", Paraphrase.templates("{text}", "Please: {text}", "{text} Thanks."))
 *     .build();
 * List<Variant> variants = space.variants(Designs.orthogonalArray(space.levelCounts()), 42);
 * }</pre>
 *
 * <p>Operators run in the order the dimensions were added, each on the previous one's output, each
 * with its own random stream derived from the seed and its position (SplitMix64), so changing one
 * dimension's level leaves the others' random draws as they were. In a chat prompt one message is
 * perturbed: by default the last {@code user} message.
 */
public final class PerturbationSpace {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final Prompt base;
  private final ObjectNode schema;
  private final List<Dimension> dimensions;
  private final int message;
  /** The perturbed text scanned once for protected spans and words; every application starts from it. */
  private final Draft.Prepared prepared;

  private PerturbationSpace(Builder b) {
    this.base = b.base;
    this.schema = b.schema;
    this.dimensions = List.copyOf(b.dimensions);
    this.message = b.message;
    this.prepared = Draft.prepare(message < 0 ? base.text() : base.messages().get(message).content());
  }

  /** Starts a space around a base prompt. */
  public static Builder builder(Prompt base) {
    return new Builder(Objects.requireNonNull(base, "base"));
  }

  /** The base prompt. */
  public Prompt base() {
    return base;
  }

  /** The output schema variants start from, if any (a copy). */
  public Optional<JsonNode> outputSchema() {
    return schema == null ? Optional.empty() : Optional.of(schema.deepCopy());
  }

  /** The dimensions, in application order. */
  public List<Dimension> dimensions() {
    return dimensions;
  }

  /** The number of levels of each dimension: the shape a design of this space must have. */
  public int[] levelCounts() {
    int[] counts = new int[dimensions.size()];
    for (int i = 0; i < counts.length; i++) {
      counts[i] = dimensions.get(i).levels();
    }
    return counts;
  }

  /** The number of points in the space (the full factorial's size), saturating at {@code Long.MAX_VALUE}. */
  public long size() {
    long n = 1;
    for (Dimension d : dimensions) {
      try {
        n = Math.multiplyExact(n, d.levels());
      } catch (ArithmeticException e) {
        return Long.MAX_VALUE;
      }
    }
    return n;
  }

  /** The variant at {@code levels}, made with {@code seed}; its index is 0. */
  public Variant apply(int[] levels, long seed) {
    return apply(0, levels, seed);
  }

  /**
   * One variant per run of the design, run {@code i} made with a seed derived from {@code seed}
   * and {@code i}, indexed {@code i}.
   */
  public List<Variant> variants(Design design, long seed) {
    checkShape(design);
    List<Variant> out = new ArrayList<>(design.runs());
    for (int i = 0; i < design.runs(); i++) {
      out.add(apply(i, design.row(i), Seeds.mix(seed, i)));
    }
    return List.copyOf(out);
  }

  /** The prompts of {@link #variants(Design, long)}, ready for {@code Benchmark.prompts(...)}. */
  public List<Prompt> prompts(Design design, long seed) {
    return variants(design, seed).stream().map(Variant::prompt).toList();
  }

  /** Quality numbers of a design on this space, variant-text diversity included. */
  public DesignQuality quality(Design design, long seed) {
    checkShape(design);
    List<String> texts = variants(design, seed).stream().map(v -> v.prompt().text()).toList();
    return DesignQuality.of(design, texts);
  }

  /** A comparison table of designs on this space (normally of the same size). */
  public DesignComparison compare(long seed, List<Design> designs) {
    List<DesignQuality> rows = new ArrayList<>();
    for (Design d : designs) {
      rows.add(quality(d, seed));
    }
    return new DesignComparison(rows);
  }

  private void checkShape(Design design) {
    if (!Arrays.equals(design.levelCounts(), levelCounts())) {
      throw new IllegalArgumentException("design levels " + Arrays.toString(design.levelCounts())
          + " do not match the space's " + Arrays.toString(levelCounts()));
    }
  }

  private Variant apply(int index, int[] levels, long seed) {
    if (levels.length != dimensions.size()) {
      throw new IllegalArgumentException("level vector has " + levels.length + " entries, the space has "
          + dimensions.size() + " dimensions");
    }
    for (int d = 0; d < levels.length; d++) {
      int n = dimensions.get(d).levels();
      if (levels[d] < 0 || levels[d] >= n) {
        throw new IllegalArgumentException("level of dimension '" + dimensions.get(d).name() + "' must be in [0, "
            + (n - 1) + "], was " + levels[d]);
      }
    }
    Draft draft = new Draft(prepared, Optional.ofNullable(schema == null ? null : schema.deepCopy()));
    double textIntensity = 0;
    double structureIntensity = 0;
    Set<String> changedMeaning = new LinkedHashSet<>();
    for (int d = 0; d < levels.length; d++) {
      Dimension dim = dimensions.get(d);
      Operator op = dim.operator();
      draft.dimension(dim.name());
      int before = draft.edits().size();
      op.apply(draft, levels[d], new SplittableRandom(Seeds.mix(seed, d)));
      if (!op.preservesMeaning() && draft.edits().size() > before) {
        changedMeaning.add(dim.name() + "=" + levels[d]);
      }
      if (dim.levels() > 1) {
        double x = levels[d] / (double) (dim.levels() - 1);
        textIntensity += x * op.channels().weight(Channel.TEXT);
        structureIntensity += x * op.channels().weight(Channel.STRUCTURE);
      }
    }
    Prompt prompt;
    if (message < 0) {
      prompt = Prompt.text(draft.text());
    } else {
      List<Message> messages = new ArrayList<>(base.messages());
      messages.set(message, new Message(messages.get(message).role(), draft.text()));
      prompt = Prompt.chat(messages);
    }
    for (Map.Entry<String, String> t : base.tags().entrySet()) {
      prompt = prompt.withTag(t.getKey(), t.getValue());
    }
    String baseClass = base.tags().getOrDefault(Variant.CLASS_TAG, "base");
    String classId = changedMeaning.isEmpty() ? baseClass : baseClass + "[" + String.join(";", changedMeaning) + "]";
    prompt = prompt.withTag(Variant.VARIANT_TAG, Integer.toString(index)).withTag(Variant.CLASS_TAG, classId);
    for (int d = 0; d < levels.length; d++) {
      prompt = prompt.withTag(dimensions.get(d).tag(), Integer.toString(levels[d]));
    }
    List<Edit> edits = draft.edits();
    return new Variant(index, levels.clone(), prompt, draft.schema().orElse(null), edits, changedMeaning.isEmpty(),
        classId, textIntensity, structureIntensity, seed);
  }

  @Override
  public String toString() {
    return "PerturbationSpace[" + dimensions.size() + " dimensions " + Arrays.toString(levelCounts()) + ", "
        + size() + " points, base " + base + "]";
  }

  /** Builds a {@link PerturbationSpace}. */
  public static final class Builder {
    private final Prompt base;
    private ObjectNode schema;
    private final List<Dimension> dimensions = new ArrayList<>();
    private int message = Integer.MIN_VALUE;

    private Builder(Prompt base) {
      this.base = base;
    }

    /** Adds a dimension; names must be unique. */
    public Builder dimension(String name, Operator operator) {
      Dimension d = new Dimension(name, operator);
      for (Dimension existing : dimensions) {
        if (existing.name().equals(name)) {
          throw new IllegalArgumentException("dimension '" + name + "' is already in the space");
        }
      }
      dimensions.add(d);
      return this;
    }

    /** The output schema variants start from (a JSON object; copied). */
    public Builder outputSchema(JsonNode schema) {
      Objects.requireNonNull(schema, "schema");
      if (!(schema instanceof ObjectNode obj)) {
        throw new IllegalArgumentException("output schema must be a JSON object, was " + schema.getNodeType());
      }
      this.schema = obj.deepCopy();
      return this;
    }

    /** The output schema variants start from, as JSON text. */
    public Builder outputSchema(String json) {
      try {
        return outputSchema(MAPPER.readTree(json));
      } catch (JsonProcessingException e) {
        throw new IllegalArgumentException("output schema is not valid JSON: " + e.getOriginalMessage(), e);
      }
    }

    /** In a chat prompt, perturb message {@code index} instead of the last user message. */
    public Builder perturbMessage(int index) {
      if (!base.isChat()) {
        throw new IllegalArgumentException("perturbMessage applies to chat prompts; this base prompt is text");
      }
      if (index < 0 || index >= base.messages().size()) {
        throw new IllegalArgumentException("message index must be in [0, " + (base.messages().size() - 1)
            + "], was " + index);
      }
      this.message = index;
      return this;
    }

    /** Returns the space. */
    public PerturbationSpace build() {
      for (Dimension d : dimensions) {
        if (d.operator().needsSchema() && schema == null) {
          throw new IllegalArgumentException("dimension '" + d.name() + "' (" + d.operator().name()
              + ") needs an output schema: call outputSchema(...)");
        }
      }
      if (!base.isChat()) {
        message = -1;
      } else if (message == Integer.MIN_VALUE) {
        message = base.messages().size() - 1;
        for (int i = base.messages().size() - 1; i >= 0; i--) {
          if (base.messages().get(i).role().equals("user")) {
            message = i;
            break;
          }
        }
      }
      return new PerturbationSpace(this);
    }
  }
}
