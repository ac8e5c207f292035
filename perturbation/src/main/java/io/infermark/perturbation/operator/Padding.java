package io.infermark.perturbation.operator;

import io.infermark.core.tokens.TokenCounter;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Distractor padding to a target token length: at a level with target {@code t}, neutral
 * distractor sentences are added as a separate paragraph before (or after) the text until the
 * text's count plus the padding's reaches at least {@code t} tokens with the given
 * {@link TokenCounter}; the last sentence is cut at a word, so the result exceeds {@code t} by less
 * than one word's tokens. Counting text and padding apart assumes the counter is additive across
 * the blank line between them, which {@link TokenCounter#estimate()} is exactly and BPE
 * vocabularies are nearly. With an {@linkplain TokenCounter#isAdditive() additive} counter the text is
 * not recounted: the space's base text is counted once and adjusted by the stretches earlier
 * operators changed (the same number a full count gives). A text already at or above
 * the target is left alone. Sentences come from the bundled, documented {@code distractors.txt}
 * unless others are given; the seed picks where in the list to start.
 *
 * <p>Meaning-preserving: distractors add irrelevant context, not a different request. The text
 * itself is not edited, so protected spans stay as they were.
 */
public final class Padding implements Operator {

  /** Where the distractor paragraph goes. */
  public enum Placement {
    /** Before the text (the request comes last, as in long-context retrieval prompts). */
    BEFORE,
    /** After the text. */
    AFTER
  }

  private static final List<String> BUNDLED = load();

  private final TokenCounter counter;
  private final int[] targets;
  private final Placement placement;
  private final List<String> sentences;
  private final int[] sentenceTokens;

  private Padding(TokenCounter counter, int[] targets, Placement placement, List<String> sentences) {
    this.counter = counter;
    this.targets = targets;
    this.placement = placement;
    this.sentences = sentences;
    this.sentenceTokens = new int[sentences.size()];
    for (int i = 0; i < sentenceTokens.length; i++) {
      sentenceTokens[i] = counter.count(sentences.get(i));
      if (sentenceTokens[i] == 0) {
        throw new IllegalArgumentException("distractor sentence " + i + " counts no tokens: '" + sentences.get(i) + "'");
      }
    }
  }

  /**
   * Padding with one level per target length in tokens (strictly increasing, >= 0; a target of 0
   * adds nothing), counted by {@code counter}, with the bundled distractors placed before the text.
   */
  public static Padding toTokens(TokenCounter counter, int... targets) {
    Objects.requireNonNull(counter, "counter");
    return new Padding(counter, Levels.checkCounts("padding", targets), Placement.BEFORE, BUNDLED);
  }

  /** The same padding placed elsewhere. */
  public Padding placement(Placement placement) {
    return new Padding(counter, targets, Objects.requireNonNull(placement, "placement"), sentences);
  }

  /** The same padding drawn from other distractor sentences (at least one, none blank). */
  public Padding distractors(List<String> sentences) {
    if (sentences.isEmpty()) {
      throw new IllegalArgumentException("padding needs at least one distractor sentence");
    }
    for (int i = 0; i < sentences.size(); i++) {
      if (sentences.get(i).isBlank()) {
        throw new IllegalArgumentException("distractor sentence " + i + " is blank");
      }
    }
    return new Padding(counter, targets, placement, List.copyOf(sentences));
  }

  /** The bundled distractor sentences. */
  public static List<String> bundledDistractors() {
    return BUNDLED;
  }

  @Override
  public String name() {
    return "padding";
  }

  @Override
  public int levelCount() {
    return targets.length;
  }

  @Override
  public String describeLevel(int level) {
    Levels.checkLevel(this, level);
    return "to " + targets[level] + " tokens (" + counter.name() + ")";
  }

  @Override
  public boolean preservesMeaning() {
    return true;
  }

  @Override
  public void apply(Draft draft, int level, SplittableRandom random) {
    Levels.checkLevel(this, level);
    int target = targets[level];
    if (target == 0) {
      return; // any text has at least 0 tokens: no need to count it
    }
    String text = draft.text();
    int tokens = draft.tokens(counter);
    if (tokens >= target) {
      return;
    }
    StringBuilder pad = new StringBuilder();
    int next = random.nextInt(sentences.size());
    int textTokens = tokens;
    while (tokens < target) {
      next = fill(pad, tokens, target, next);
      // Counted as a whole, the padding may differ from the sum of its words: check, and go on if short.
      tokens = textTokens + counter.count(pad.toString());
    }
    String result = placement == Placement.BEFORE ? pad + "\n\n" + text : text + "\n\n" + pad;
    draft.text(result);
    draft.log(Channel.TEXT, "padding", placement == Placement.BEFORE ? 0 : text.length(), "", pad.toString());
  }

  /** Appends sentences, the last one cut at a word, until {@code tokens} reaches {@code target}. */
  private int fill(StringBuilder pad, int tokens, int target, int next) {
    while (tokens < target) {
      int i = next % sentences.size();
      String sentence = sentences.get(i);
      if (tokens + sentenceTokens[i] <= target) {
        if (pad.length() > 0) {
          pad.append(' ');
        }
        pad.append(sentence);
        tokens += sentenceTokens[i];
        next++;
        continue;
      }
      int at = 0;
      while (tokens < target && at < sentence.length()) {
        int space = sentence.indexOf(' ', at);
        int end = space < 0 ? sentence.length() : space;
        if (pad.length() > 0) {
          pad.append(' ');
        }
        String word = sentence.substring(at, end);
        pad.append(word);
        tokens += counter.count(word);
        at = end + 1;
      }
      next++;
    }
    return next;
  }

  private static List<String> load() {
    try (InputStream in = Padding.class.getResourceAsStream("distractors.txt")) {
      if (in == null) {
        throw new IllegalStateException("bundled distractors.txt is missing from the jar");
      }
      List<String> out = new ArrayList<>();
      for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
        String t = line.strip();
        if (!t.isEmpty() && !t.startsWith("#")) {
          out.add(t);
        }
      }
      return List.copyOf(out);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read bundled distractors.txt", e);
    }
  }

  @Override
  public String toString() {
    return "Padding[targets " + Levels.list(targets) + " tokens, " + counter.name() + ", " + placement + "]";
  }
}
