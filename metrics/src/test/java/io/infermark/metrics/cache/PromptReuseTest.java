package io.infermark.metrics.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import org.junit.jupiter.api.Test;

/**
 * The ideal reuse on hand-computed cases. The counter is a word counter (one token per whitespace-separated word), so
 * every expected count below can be read off the prompts.
 */
class PromptReuseTest {

  private static final TokenCounter WORDS = new TokenCounter() {
    @Override
    public int count(String text) {
      String t = text.strip();
      return t.isEmpty() ? 0 : t.split("\\s+").length;
    }

    @Override
    public String name() {
      return "words";
    }
  };

  private final PromptReuse reuse = PromptReuse.counting(WORDS);

  @Test
  void theFirstPromptSharesNothing() {
    assertThat(reuse.record("a", Prompt.user("one two three"))).isEqualTo(new PromptReuse.Reuse(0, 3));
  }

  @Test
  void aRepeatedPromptIsSharedWhole() {
    reuse.record("a", Prompt.user("one two three"));
    assertThat(reuse.record("b", Prompt.user("one two three"))).isEqualTo(new PromptReuse.Reuse(3, 3));
  }

  @Test
  void aPartlySharedWordDoesNotCount() {
    reuse.record("a", Prompt.user("alpha beta gamma delta"));
    // common characters "alpha beta gam": cut back to "alpha beta " = 2 words
    assertThat(reuse.record("b", Prompt.user("alpha beta gamut epsilon zeta"))).isEqualTo(new PromptReuse.Reuse(2, 5));
    // "alpha beta gamma" is a whole-word prefix of the first prompt's text, but the next character differs
    // (end of message vs ' '): cut back to "alpha beta " too
    assertThat(reuse.record("c", Prompt.user("alpha beta gamma"))).isEqualTo(new PromptReuse.Reuse(2, 3));
  }

  @Test
  void theLongestPrefixOverEveryEarlierPromptCounts() {
    reuse.record("a", Prompt.user("x y z"));
    reuse.record("b", Prompt.user("p q r s t"));
    reuse.record("c", Prompt.user("p q u v"));
    // shares "p q r " with b (3 words), "p q " with c (2): the longest wins
    assertThat(reuse.record("d", Prompt.user("p q r w"))).isEqualTo(new PromptReuse.Reuse(3, 4));
  }

  @Test
  void aGrowingConversationSharesEveryEarlierMessage() {
    Message system = Message.system("you are terse");
    reuse.record("t0", Prompt.chat(system, Message.user("hello there")));
    Prompt turn1 = Prompt.chat(system, Message.user("hello there"), Message.assistant("hi"), Message.user("bye now"));
    // system 3 + user 2 shared; assistant 1 + user 2 new
    assertThat(reuse.record("t1", turn1)).isEqualTo(new PromptReuse.Reuse(5, 8));
  }

  @Test
  void anotherRoleWithTheSameTextIsNotShared() {
    reuse.record("a", Prompt.chat(Message.system("same words here")));
    assertThat(reuse.record("b", Prompt.chat(Message.user("same words here")))).isEqualTo(new PromptReuse.Reuse(0, 3));
  }

  @Test
  void aUniqueLeadingSegmentBustsEveryPrefix() {
    reuse.record("a", Prompt.user("[bust 0] the long shared document"));
    assertThat(reuse.record("b", Prompt.user("[bust 1] the long shared document")))
        .isEqualTo(new PromptReuse.Reuse(1, 6)); // only "[bust " is common: one word
  }

  @Test
  void beforeSendRecordsUnderTheRequestIdInSendOrder() {
    InferenceRequest first = InferenceRequest.of("r1", Prompt.user("a b c"));
    assertThat(reuse.beforeSend(first)).isSameAs(first);
    reuse.beforeSend(InferenceRequest.of("r2", Prompt.user("a b d")));
    assertThat(reuse.of("r1")).contains(new PromptReuse.Reuse(0, 3));
    assertThat(reuse.of("r2")).contains(new PromptReuse.Reuse(2, 3));
    assertThat(reuse.of("r3")).isEmpty();
    assertThat(reuse.size()).isEqualTo(2);
    assertThat(reuse.tokenizer()).isEqualTo("words");
  }

  @Test
  void theThreadThatSendsCountsNoTokensTheyAreCountedOnceWhenAsked() {
    java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();
    TokenCounter counting = new TokenCounter() {
      @Override
      public int count(String text) {
        calls.incrementAndGet();
        return WORDS.count(text);
      }

      @Override
      public String name() {
        return "counted words";
      }
    };
    PromptReuse lazy = PromptReuse.counting(counting);
    lazy.beforeSend(InferenceRequest.of("r1", Prompt.user("a b c")));
    lazy.beforeSend(InferenceRequest.of("r2", Prompt.user("a b d")));
    assertThat(calls).hasValue(0);
    assertThat(lazy.of("r2")).contains(new PromptReuse.Reuse(2, 3));
    int counted = calls.get();
    assertThat(counted).isPositive();
    assertThat(lazy.of("r2")).contains(new PromptReuse.Reuse(2, 3));
    assertThat(calls).hasValue(counted);
  }

  @Test
  void aSharedPartOfAMessageEndsAtItsLastWholeWordNotAtTheSpaceAfterIt() {
    // cl100k: "the cat sat" is [the][ cat][ sat]; the prompts share [the][ cat], not a token for "the cat "
    PromptReuse bpe = PromptReuse.counting(TokenCounter.openAi("cl100k_base"));
    bpe.record("a", Prompt.user("the cat sat on the mat"));
    assertThat(bpe.record("b", Prompt.user("the cat ran"))).isEqualTo(new PromptReuse.Reuse(2, 3));
  }

  @Test
  void negativeCountsAreRejected() {
    assertThatThrownBy(() -> new PromptReuse.Reuse(-1, 3)).isInstanceOf(IllegalArgumentException.class);
  }
}
