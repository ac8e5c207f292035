package io.infermark.perturbation.operator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Synonym substitution from a supplied {@link Lexicon}. At a level with fraction {@code f}, of the
 * {@code c} word occurrences that have synonyms, {@code round(f × c)} (at least one when
 * {@code f > 0}) are replaced by a synonym drawn uniformly, keeping the word's case pattern.
 *
 * <p>Candidates are the eligible words of the text and the words of the output schema's
 * {@code description} and {@code title} strings (the structure channel: property names are never
 * renamed, so the contract does not change). Default weights: text 0.7 / structure 0.3 — of 10
 * replacements 7 are made in the prompt's text and 3 in the schema's descriptions, shares moving
 * to the other channel when one runs out of candidates.
 *
 * <p>Meaning-preserving; protected spans are left alone.
 */
public final class Synonyms implements Operator {

  /** The default split: text 0.7 / structure 0.3. */
  public static final ChannelWeights DEFAULT_CHANNELS = new ChannelWeights(0.7, 0.3);

  private final Lexicon lexicon;
  private final double[] fractions;
  private final ChannelWeights channels;

  private Synonyms(Lexicon lexicon, double[] fractions, ChannelWeights channels) {
    this.lexicon = lexicon;
    this.fractions = fractions;
    this.channels = channels;
  }

  /**
   * Substitution from {@code lexicon} with one level per fraction of candidate words replaced
   * (strictly increasing, in [0, 1]), e.g. {@code Synonyms.of(lexicon, 0, 0.25, 0.5, 1)}.
   */
  public static Synonyms of(Lexicon lexicon, double... fractions) {
    java.util.Objects.requireNonNull(lexicon, "lexicon");
    return new Synonyms(lexicon, Levels.checkRates("synonyms", fractions, 1.0), DEFAULT_CHANNELS);
  }

  /** The same operator with other channel weights. */
  public Synonyms channels(ChannelWeights weights) {
    return new Synonyms(lexicon, fractions, java.util.Objects.requireNonNull(weights, "weights"));
  }

  @Override
  public String name() {
    return "synonyms";
  }

  @Override
  public int levelCount() {
    return fractions.length;
  }

  @Override
  public String describeLevel(int level) {
    Levels.checkLevel(this, level);
    return fractions[level] + " of candidates";
  }

  @Override
  public boolean preservesMeaning() {
    return true;
  }

  @Override
  public ChannelWeights channels() {
    return channels;
  }

  /** A schema string holding a candidate word. */
  private record Slot(ObjectNode owner, String field, String pointer, int start, int end) {}

  @Override
  public void apply(Draft draft, int level, SplittableRandom random) {
    Levels.checkLevel(this, level);
    double f = fractions[level];
    if (f == 0) {
      return;
    }
    String text = draft.text();
    Words words = draft.words(1);
    int[] textCandidates = words.withSynonyms(text, lexicon);
    int t = textCandidates.length;
    List<Slot> slots = new ArrayList<>();
    draft.schema().ifPresent(s -> collect(s, "", slots));
    int total = t + slots.size();
    int edits = Levels.editsForRate(f, total);
    int[] split = channels.split(edits);
    int inText = split[0];
    int inSchema = split[1];
    if (inText > t) {
      inSchema += inText - t;
      inText = t;
    }
    if (inSchema > slots.size()) {
      inText = Math.min(t, inText + inSchema - slots.size());
      inSchema = slots.size();
    }
    Splicer splicer = new Splicer(text);
    for (int i : Levels.sample(t, inText, random)) {
      int k = textCandidates[i];
      String w = words.word(text, k);
      String alt = choose(w, random);
      splicer.replace(words.start(k), words.end(k), alt);
      draft.log(Channel.TEXT, "synonym", words.start(k), w, alt);
    }
    draft.splice(splicer);
    // Replace schema words from the last to the first so earlier offsets in a shared string stay valid.
    int[] chosen = Levels.sample(slots.size(), inSchema, random);
    for (int c = chosen.length - 1; c >= 0; c--) {
      Slot slot = slots.get(chosen[c]);
      String value = slot.owner.get(slot.field).asText();
      String w = value.substring(slot.start, slot.end);
      String alt = choose(w, random);
      slot.owner.put(slot.field, value.substring(0, slot.start) + alt + value.substring(slot.end));
      draft.log(Channel.STRUCTURE, "synonym", -1, slot.pointer + ": " + w, alt);
    }
  }

  private String choose(String word, SplittableRandom random) {
    List<String> alts = lexicon.synonyms(word).orElseThrow();
    return Levels.matchCase(word, alts.get(random.nextInt(alts.size())));
  }

  private void collect(JsonNode node, String pointer, List<Slot> slots) {
    if (node instanceof ObjectNode obj) {
      for (Map.Entry<String, JsonNode> e : obj.properties()) {
        String p = pointer + "/" + e.getKey().replace("~", "~0").replace("/", "~1");
        JsonNode v = e.getValue();
        if ((e.getKey().equals("description") || e.getKey().equals("title")) && v.isTextual()) {
          String s = v.asText();
          Words w = Words.eligible(s, ProtectedSpans.mask(s), 1);
          for (int id : w.ids()) {
            if (lexicon.lookup(s, w.start(id), w.end(id)) != null) {
              slots.add(new Slot(obj, e.getKey(), p, w.start(id), w.end(id)));
            }
          }
        } else {
          collect(v, p, slots);
        }
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        collect(node.get(i), pointer + "/" + i, slots);
      }
    }
  }

  @Override
  public String toString() {
    return "Synonyms[" + lexicon + ", fractions " + Levels.list(fractions) + ", " + channels + "]";
  }
}
