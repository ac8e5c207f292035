package io.infermark.perturbation.operator;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.infermark.core.tokens.TokenCounter;
import java.util.ArrayList;
import java.util.Arrays;
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
  /** Scratch space reused by every splice of this draft (a draft lives for one application). */
  private final StringBuilder buffer = new StringBuilder();
  /** A mask array this draft owns and no longer uses, to write the next moved mask into; or null. */
  private boolean[] spareMask;
  /** Whether {@link #mask} is this draft's own (else it may be a prepared text's shared one). */
  private boolean ownsMask;
  /** A word index this draft owns and no longer uses, to build the next moved index in; or null. */
  private WordIndex spareWords;
  /** Whether {@link #words} is this draft's own. */
  private boolean ownsWords;
  /**
   * The prepared text this draft started from, while the text is that text changed only by splices
   * (each recorded in {@link #windows}); null otherwise. Lets {@link #tokens} adjust a cached count.
   */
  private Prepared origin;
  /** The stretches splices changed since {@link #origin}, for {@link #tokens}. */
  private List<Window> windows;

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
    this.origin = text;
  }

  /** Scans {@code text} once for protected spans and words, so that many drafts can start from it. */
  public static Prepared prepare(String text) {
    Objects.requireNonNull(text, "text");
    boolean[] mask = ProtectedSpans.mask(text);
    return new Prepared(text, mask, WordIndex.scan(text, mask).countAllEligible());
  }

  /**
   * A text with its protected-span mask and word index, computed once (a space applies every level
   * vector to the same base text). Immutable and thread-safe: drafts never write to it.
   */
  public static final class Prepared {
    private final String text;
    private final boolean[] mask;
    private final WordIndex words;
    /** The last count asked for, with its counter (racing threads store equal values). */
    private volatile Count count;

    private Prepared(String text, boolean[] mask, WordIndex words) {
      this.text = text;
      this.mask = mask;
      this.words = words;
    }

    /** The text. */
    public String text() {
      return text;
    }

    int tokens(TokenCounter counter) {
      Count c = count;
      if (c == null || c.counter != counter) {
        c = new Count(counter, counter.count(text));
        count = c;
      }
      return c.tokens;
    }

    private record Count(TokenCounter counter, int tokens) {}

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
    dropMask();
    dropWords();
    this.pending = null;
    this.origin = null;
    this.windows = null;
  }

  /** Drops the word index; an owned one becomes the spare for the next update. */
  private void dropWords() {
    if (ownsWords) {
      spareWords = words;
    }
    words = null;
    ownsWords = false;
  }

  /** Drops the mask; an owned one becomes the spare for the next splice. */
  private void dropMask() {
    if (ownsMask) {
      spareMask = mask;
    }
    mask = null;
    ownsMask = false;
  }

  /**
   * Applies a splice of the current text made by a meaning-preserving operator that edited only
   * unprotected characters and inserted no digits, quotes or backticks: the protected mask moves
   * with the text instead of being recomputed, so the original protected spans stay protected.
   */
  void splice(Splicer splicer) {
    foldPending();
    boolean[] before = mask();
    boolean[] spare = spareMask;
    String out = splicer.apply(before, buffer, spare);
    if (words != null) {
      pending = splicer;
    }
    record(text, out, splicer);
    this.text = out;
    boolean[] moved = splicer.movedMask();
    if (moved != before) {
      if (moved == spare) {
        spareMask = null;
      }
      if (ownsMask) {
        spareMask = before;
      }
      this.mask = moved;
      this.ownsMask = true;
    }
  }

  /**
   * Applies a splice that may move or change protected characters (a reordering): the protected
   * mask and word index are recomputed from the new text when next needed.
   */
  void replace(Splicer splicer) {
    String out = splicer.apply(null, buffer, null);
    record(text, out, splicer);
    this.text = out;
    dropMask();
    dropWords();
    this.pending = null;
  }

  /**
   * The token count of the current text by {@code counter}, equal to {@code counter.count(text())}.
   * For an {@linkplain TokenCounter#isAdditive() additive} counter and a draft changed only by
   * splices since it was prepared, the prepared text's count (counted once per space) is adjusted by
   * the whitespace-bounded stretches the splices changed, instead of counting the whole text.
   */
  int tokens(TokenCounter counter) {
    if (origin == null || !counter.isAdditive()) {
      return counter.count(text);
    }
    int n = origin.tokens(counter);
    if (windows != null) {
      for (Window w : windows) {
        n += counter.countRange(w.after, w.afterStart, w.afterEnd) - counter.countRange(w.before, w.beforeStart, w.beforeEnd);
      }
    }
    return n;
  }

  /** A stretch of text a splice changed, bounded by whitespace or the text's ends on both sides. */
  private record Window(String before, int beforeStart, int beforeEnd, String after, int afterStart, int afterEnd) {}

  /**
   * Records the stretches {@code splicer} changed from {@code old} to {@code out}: each replaced range
   * widened to whitespace (or the text's ends) on both sides, overlapping ones merged, so the kept text
   * between windows starts and ends with whitespace and an additive count splits there exactly.
   */
  private void record(String old, String out, Splicer splicer) {
    if (origin == null) {
      return;
    }
    if (windows == null) {
      windows = new ArrayList<>();
    }
    int edits = splicer.size();
    int n = old.length();
    int shift = 0;
    int k = 0;
    while (k < edits) {
      int ws = splicer.from(k);
      while (ws > 0 && !Chars.isWhitespace(old.charAt(ws - 1))) {
        ws--;
      }
      int m = k;
      int we = splicer.to(m);
      int shiftEnd = shift + splicer.length(m) - (splicer.to(m) - splicer.from(m));
      while (true) {
        while (we < n && !Chars.isWhitespace(old.charAt(we)) && !(m + 1 < edits && splicer.from(m + 1) <= we)) {
          we++;
        }
        if (m + 1 < edits && splicer.from(m + 1) <= we) {
          m++;
          we = Math.max(we, splicer.to(m));
          shiftEnd += splicer.length(m) - (splicer.to(m) - splicer.from(m));
          continue;
        }
        break;
      }
      windows.add(new Window(old, ws, we, out, ws + shift, we + shiftEnd));
      shift = shiftEnd;
      k = m + 1;
    }
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
      ownsWords = true;
    }
    foldPending();
    return words;
  }

  private void foldPending() {
    if (pending != null) {
      WordIndex moved = words.update(text, mask, pending, spareWords);
      if (moved != words) {
        spareWords = ownsWords ? words : null;
        words = moved;
        ownsWords = true;
      }
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
    return Arrays.copyOf(mask(), text.length());
  }

  /** The protected mask itself, computed once per text; read-only (it may be shared). */
  boolean[] mask() {
    if (mask == null) {
      mask = ProtectedSpans.mask(text);
      ownsMask = true;
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
