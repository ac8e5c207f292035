package io.infermark.perturbation;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.perturbation.operator.Confusables;
import io.infermark.perturbation.operator.Edit;
import io.infermark.perturbation.operator.Lexicon;
import io.infermark.perturbation.operator.Noise;
import io.infermark.perturbation.operator.Padding;
import io.infermark.perturbation.operator.Reorder;
import io.infermark.perturbation.operator.Synonyms;
import io.infermark.perturbation.operator.Typos;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Seeded outputs are part of the contract (a variant must be reproducible from its seed across
 * versions): 1,458 variants of six texts with rule edge cases, through all six text operators at
 * every level vector of a 3^6 factorial, hash to the value recorded before the operators' fast paths
 * were rewritten. A change here means variants changed, which a speed-up must never do.
 */
class SeededOutputsTest {

  private static final Lexicon LEXICON = Lexicon.parse("""
      river: stream, creek
      old: ancient, aged
      small: little, tiny
      keeps: holds, retains
      main: key, principal
      risk: hazard, danger
      """);

  private static final List<String> TEXTS = List.of(
      longText(),
      "Read the \"old river\" notes. Then list the main risk. Keep ORDER-123456 and 3.14 as they are! "
          + "The small river keeps rising? It does.\n\n- first item\n- second item\n\nAlso check `make test` now.",
      "```\ncode block with river words\n```\nThe old river keeps its small main risk. Another sentence here. "
          + "And one more. However, this one is glued. Finally we stop",
      "\u201CQuoted old river\u201D stays. \u00C9t\u00E9 caf\u00E9 r\u00E9sum\u00E9 na\u00EFve words keep going. "
          + "x_y river_2 abc123 don't won't it's fine. \u0130stanbul \u212Aelvin old.",
      "Short.",
      "One two three four five six seven eight nine ten. Eleven twelve. Thirteen fourteen fifteen.\n\n"
          + "Sixteen seventeen. Eighteen nineteen twenty.\t\tTabs   and  spaces \n\n\n  Trailing words  ");

  private static String longText() {
    StringBuilder text = new StringBuilder("Read the report below and list the main risk for order ORDER-123456. ");
    List<String> sentences = Padding.bundledDistractors();
    for (int i = 0; i < 60; i++) {
      text.append(sentences.get(i % sentences.size())).append(' ');
      if (i % 7 == 6) {
        text.append("The total was 3.14 units and the code `make test` said \"all clear\".\n\n");
      }
    }
    return text.toString().strip();
  }

  private static PerturbationSpace space(String text, TokenCounter counter, Padding.Placement placement) {
    int base = counter.count(text);
    return PerturbationSpace.builder(Prompt.user(text))
        .dimension("typos", Typos.budgets(0, 3, 16))
        .dimension("noise", Noise.rates(0, 0.05, 0.3))
        .dimension("synonyms", Synonyms.of(LEXICON, 0, 0.3, 1))
        .dimension("confusables", Confusables.rates(0, 0.02, 0.3))
        .dimension("reorder", Reorder.swaps(0, 2, 6))
        .dimension("padding", Padding.toTokens(counter, 0, base + 5, base + 60).placement(placement))
        .build();
  }

  @Test
  void variantsOfEdgeCaseTextsHashAsBeforeTheFastPaths() throws Exception {
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    int variants = 0;
    for (int t = 0; t < TEXTS.size(); t++) {
      TokenCounter counter = t % 2 == 0 ? TokenCounter.estimate() : TokenCounter.estimate(2.0);
      Padding.Placement placement = t % 3 == 0 ? Padding.Placement.AFTER : Padding.Placement.BEFORE;
      PerturbationSpace space = space(TEXTS.get(t), counter, placement);
      for (int i = 0; i < 243; i++) {
        int[] point = new int[6];
        for (int d = 0, x = i; d < 6; d++, x /= 3) {
          point[d] = x % 3;
        }
        point[5] = (i + t) % 3;
        Variant v = space.apply(point, 1000L * t + i);
        sha.update(v.prompt().text().getBytes(StandardCharsets.UTF_8));
        for (Edit e : v.edits()) {
          sha.update(e.toString().getBytes(StandardCharsets.UTF_8));
        }
        variants++;
      }
    }
    assertThat(variants).isEqualTo(1458);
    assertThat(HexFormat.of().formatHex(sha.digest())).isEqualTo("219c5e719f753cc952eb76bc3fd5c5d85fb8b020b91d7b5c0ba2b7e0f517c6e2");
  }
}
