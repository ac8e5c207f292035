package io.infermark.perturbation.operator;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The text and output schema being perturbed, handed from one operator to the next while a
 * {@code PerturbationSpace} applies a level vector. Operators read it, replace the text or the
 * schema, and log each change. Not thread-safe; lives for one application.
 */
public final class Draft {

  private String text;
  private ObjectNode schema;
  private String dimension = "";
  private boolean[] mask;
  private WordIndex words;
  /** A splice applied to the text but not yet to {@link #words} (folded in when next needed). */
  private Splicer pending;
  private final List<Edit> edits = new ArrayList<>();

  /**
   * A draft of a text and an optional output schema (which the draft owns: pass a copy).
   *
   * @param text the text to perturb
   * @param schema the output JSON schema, or empty
   */
  public Draft(String text, Optional<ObjectNode> schema) {
    this.text = Objects.requireNonNull(text, "text");
    this.schema = schema.orElse(null);
  }

  /**
   * A draft of a {@linkplain #prepare(String) prepared} text and an optional output schema (which the
   * draft owns: pass a copy); the text's protected spans and words are not scanned again.
   *
   * @param text the prepared text to perturb
   * @param schema the output JSON schema, or empty
   */
  public Draft(Prepared text, Optional<ObjectNode> schema) {
    Objects.requireNonNull(text, "text");
    this.text = text.text;
    this.mask = text.mask;
    this.words = text.words;
    this.schema = schema.orElse(null);
  }

  /** Scans {@code text} once for protected spans and words, so that many drafts can start from it. */
  public static Prepared prepare(String text) {
    Objects.requireNonNull(text, "text");
    boolean[] mask = ProtectedSpans.mask(text);
    return new Prepared(text, mask, WordIndex.scan(text, mask));
  }

  /**
   * A text with its protected-span mask and word index, computed once (a space applies every level
   * vector to the same base text). Immutable and thread-safe: drafts never write to it.
   */
  public static final class Prepared {
    private final String text;
    private final boolean[] mask;
    private final WordIndex words;

    private Prepared(String text, boolean[] mask, WordIndex words) {
      this.text = text;
      this.mask = mask;
      this.words = words;
    }

    /** The text. */
    public String text() {
      return text;
    }

    @Override
    public String toString() {
      return "Draft.Prepared[" + text.length() + " chars, " + words.count() + " words]";
    }
  }

  /** The current text. */
  public String text() {
    return text;
  }

  /** Replaces the text. */
  public void text(String text) {
    this.text = Objects.requireNonNull(text, "text");
    this.mask = null;
    this.words = null;
    this.pending = null;
  }

  /**
   * Applies a splice of the current text made by a meaning-preserving operator that edited only
   * unprotected characters and inserted no digits, quotes or backticks: the protected mask moves
   * with the text instead of being recomputed, so the original protected spans stay protected.
   */
  void splice(Splicer splicer) {
    foldPending();
    String out = splicer.apply(mask());
    if (words != null) {
      pending = splicer;
    }
    this.text = out;
    this.mask = splicer.movedMask();
  }

  /**
   * The unprotected words of at least {@code minLength} letters of the current text (see
   * {@link Words}), from an index built once per text and moved along with splices.
   */
  Words words(int minLength) {
    return wordIndex().eligible(minLength);
  }

  WordIndex wordIndex() {
    if (words == null) {
      words = WordIndex.scan(text, mask());
    }
    foldPending();
    return words;
  }

  private void foldPending() {
    if (pending != null) {
      words = words.update(text, mask, pending);
      pending = null;
    }
  }

  /** The current output schema, if there is one; operators may change it in place. */
  public Optional<ObjectNode> schema() {
    return Optional.ofNullable(schema);
  }

  /** Replaces the output schema. */
  public void schema(ObjectNode schema) {
    this.schema = Objects.requireNonNull(schema, "schema");
  }

  /**
   * Which characters of the current text are protected (a copy): {@link ProtectedSpans#mask(String)}
   * of the text, except that after an operator's splice the original protected characters stay
   * protected where they moved.
   */
  public boolean[] protectedMask() {
    return mask().clone();
  }

  /** The protected mask itself, computed once per text; read-only (it may be shared). */
  boolean[] mask() {
    if (mask == null) {
      mask = ProtectedSpans.mask(text);
    }
    return mask;
  }

  /** Names the dimension whose operator acts next, for the change log. */
  public void dimension(String name) {
    this.dimension = Objects.requireNonNull(name, "name");
  }

  /** Logs a change made by the current dimension's operator. */
  public void log(Channel channel, String kind, int position, String before, String after) {
    edits.add(new Edit(dimension, channel, kind, position, before, after));
  }

  /** Every change logged so far, in order. */
  public List<Edit> edits() {
    return Collections.unmodifiableList(edits);
  }

  @Override
  public String toString() {
    return "Draft[" + text.length() + " chars" + (schema == null ? "" : ", schema") + ", " + edits.size() + " edits]";
  }
}
