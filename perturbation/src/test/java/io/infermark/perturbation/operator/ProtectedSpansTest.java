package io.infermark.perturbation.operator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ProtectedSpansTest {

  private static List<String> spans(String text) {
    return ProtectedSpans.spans(text).stream().map(s -> text.substring(s[0], s[1])).toList();
  }

  @Test
  void numbersIdentifiersCodeAndDoubleQuotesAreProtected() {
    String text = "Pay 3.14 or 1,000 for ORDER-123456 on 2024-05-01. Run `ls -la` and say \"hello there\"."
        + "\n```\nx = 1\n```\nDon't stop.";
    assertThat(spans(text)).containsExactly("3.14", "1,000", "ORDER-123456", "2024-05-01", "`ls -la`",
        "\"hello there\"", "```\nx = 1\n```");
  }

  @Test
  void apostrophesAndUnclosedQuotesProtectNothing() {
    assertThat(spans("Don't say \"never")).isEmpty();
    assertThat(spans("a `b")).isEmpty();
  }

  @Test
  void curlyQuotesAndAnUnclosedFenceAreProtected() {
    assertThat(spans("He said \u201Cstay\u201D then ```code")).containsExactly("\u201Cstay\u201D", "```code");
  }

  @Test
  void sentenceEndAfterANumberIsNotPartOfIt() {
    assertThat(spans("It costs 5. Then stop.")).containsExactly("5");
  }
}
