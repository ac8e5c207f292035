package io.infermark.perturbation.operator;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Template paraphrase: level {@code i} wraps the text in template {@code i}, whose one
 * {@code {text}} placeholder receives it. Level 0 of {@link #defaults()} is the bare text. The
 * templates are the user's; a template must not change what is asked, only how it is framed.
 *
 * <p>Meaning-preserving; the text itself is not edited, so protected spans stay as they were.
 */
public final class Paraphrase implements Operator {

  /** The placeholder a template puts the text in. */
  public static final String PLACEHOLDER = "{text}";

  private static final List<String> DEFAULTS = List.of(
      "{text}",
      "Please help me with the following.\n\n{text}",
      "{text}\n\nThank you.",
      "I have a request for you:\n{text}",
      "Task:\n{text}\n\nAnswer carefully.");

  private final List<String> templates;

  private Paraphrase(List<String> templates) {
    this.templates = templates;
  }

  /** One level per template, in order; each has exactly one {@value #PLACEHOLDER}. */
  public static Paraphrase templates(String... templates) {
    if (templates.length == 0) {
      throw new IllegalArgumentException("paraphrase needs at least one template");
    }
    List<String> list = new ArrayList<>();
    for (int i = 0; i < templates.length; i++) {
      String t = templates[i];
      int at = t.indexOf(PLACEHOLDER);
      if (at < 0 || t.indexOf(PLACEHOLDER, at + 1) >= 0) {
        throw new IllegalArgumentException("paraphrase template " + i + " must contain " + PLACEHOLDER
            + " exactly once, was: " + t);
      }
      list.add(t);
    }
    return new Paraphrase(List.copyOf(list));
  }

  /** Five neutral framings, the first of them the bare text. */
  public static Paraphrase defaults() {
    return new Paraphrase(DEFAULTS);
  }

  /** The templates. */
  public List<String> templates() {
    return templates;
  }

  @Override
  public String name() {
    return "paraphrase";
  }

  @Override
  public int levelCount() {
    return templates.size();
  }

  @Override
  public String describeLevel(int level) {
    Levels.checkLevel(this, level);
    return "template " + level;
  }

  @Override
  public boolean preservesMeaning() {
    return true;
  }

  @Override
  public void apply(Draft draft, int level, SplittableRandom random) {
    Levels.checkLevel(this, level);
    String template = templates.get(level);
    if (template.equals(PLACEHOLDER)) {
      return;
    }
    int at = template.indexOf(PLACEHOLDER);
    String before = template.substring(0, at);
    String after = template.substring(at + PLACEHOLDER.length());
    String text = draft.text();
    draft.text(before + text + after);
    if (!before.isEmpty()) {
      draft.log(Channel.TEXT, "template", 0, "", before);
    }
    if (!after.isEmpty()) {
      draft.log(Channel.TEXT, "template", text.length(), "", after);
    }
  }

  @Override
  public String toString() {
    return "Paraphrase[" + templates.size() + " templates]";
  }
}
