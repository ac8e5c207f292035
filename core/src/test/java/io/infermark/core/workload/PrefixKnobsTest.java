package io.infermark.core.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.request.ContentPart;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The prefix-cache workload knobs: shared-prefix ratio, cache-bust marker, a prefix shared across sessions. */
class PrefixKnobsTest {

  private static final GenerationParams P = GenerationParams.defaults();
  private static final TokenCounter COUNTER = TokenCounter.estimate();

  @Test
  void aSharedPrefixRatioSplitsEachPromptIntoPrefixAndOwnTokens() {
    SharedPrefix w = SharedPrefix.ofRatio(2, 100, 0.75);
    String a = w.request(0, 0, P).prompt().text();
    String b = w.request(2, 0, P).prompt().text();
    String c = w.request(1, 0, P).prompt().text();
    assertThat(w.toString()).contains("75 + 25 tokens");
    int common = 0;
    while (a.charAt(common) == b.charAt(common)) {
      common++;
    }
    // the same group's prompts share the 75-token prefix text and differ after it; another group's differ at once
    assertThat(COUNTER.count(a.substring(0, a.lastIndexOf(' ', common) + 1))).isBetween(74, 75);
    assertThat(a.charAt(0) == c.charAt(0) && a.startsWith(c.substring(0, 20))).isFalse();
    assertThat(w.request(0, 0, P).prompt().tags()).containsEntry(WorkloadTags.INPUT_TOKENS_REQUESTED, "100");
    assertThat(SharedPrefix.ofRatio(1, 10, 0).toString()).contains("0 + 10 tokens");
    assertThat(SharedPrefix.ofRatio(1, 10, 1).toString()).contains("10 + 0 tokens");
    assertThatThrownBy(() -> SharedPrefix.ofRatio(1, 10, 1.5)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[0, 1]");
    assertThatThrownBy(() -> SharedPrefix.ofRatio(1, 0, 0.5)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void cacheBustPutsAUniqueMarkerFirstAndKeepsTags() {
    CacheBust w = CacheBust.of(SharedPrefix.of(1, 50, 5), 42);
    Set<String> starts = new HashSet<>();
    for (long i = 0; i < 50; i++) {
      Prompt p = w.request(i, 0, P).prompt();
      String content = p.messages().get(0).content();
      assertThat(content).startsWith(w.marker(i));
      assertThat(w.marker(i)).matches("\\[[0-9a-f]{16}\\] ");
      assertThat(p.tags()).containsEntry(WorkloadTags.PREFIX_GROUP, "0")
          .containsEntry(WorkloadTags.CACHE_BUST, w.marker(i).substring(1, 17));
      starts.add(content.substring(0, 18));
    }
    assertThat(starts).as("every request's leading segment is its own").hasSize(50);
    assertThat(CacheBust.of(SharedPrefix.of(1, 50, 5), 43).marker(0)).isNotEqualTo(w.marker(0));
  }

  @Test
  void aRepeatedIndexGetsANewMarker() {
    // a CLI's test request and warm-ups restart the schedule's indexes: each prompt handed out is busted anew
    CacheBust w = CacheBust.of(SharedPrefix.of(1, 20, 0), 9);
    String first = w.request(0, 0, P).prompt().text();
    String again = w.request(0, 0, P).prompt().text();
    assertThat(first).startsWith(w.marker(0));
    assertThat(again).startsWith(w.marker(1)).isNotEqualTo(first);
  }

  @Test
  void cacheBustOfATextPromptAndOfMediaPrefixesThem() {
    Workload text = (i, t, d) -> new RequestSpec(Prompt.text("hello world"), d);
    assertThat(CacheBust.of(text, 1).request(3, 0, P).prompt().text())
        .isEqualTo(CacheBust.of(text, 1).marker(0) + "hello world");
    Workload media = (i, t, d) -> new RequestSpec(Prompt.chat(Message.user(ContentPart.text("look"),
        ContentPart.imageUrl("https://example.com/a.png"))), d);
    List<Message> m = CacheBust.of(media, 1).request(0, 0, P).prompt().messages();
    assertThat(m).hasSize(2);
    assertThat(m.get(0).role()).isEqualTo("system");
    assertThat(m.get(0).content()).isEqualTo(CacheBust.of(media, 1).marker(0).strip());
  }

  @Test
  void cacheBustWrapsClosedLoopStreamsEveryTurn() {
    CacheBust w = CacheBust.of(Sessions.builder().turns(2).userTokens(8).retryProbability(0).build(), 7);
    StreamSource s = w.stream(0);
    Prompt first = s.next(0, 0, P).prompt();
    assertThat(first.messages().get(0).content()).startsWith(w.marker(0));
    assertThat(first.tags()).containsKey(WorkloadTags.SESSION).containsKey(WorkloadTags.CACHE_BUST);
    assertThat(w.needsText()).isTrue();
  }

  @Test
  void sessionsCanShareASystemPrefixAcrossSessions() {
    Sessions w = Sessions.builder().turns(2).userTokens(8).retryProbability(0).sharedPrefixTokens(40).build();
    Prompt s0 = w.stream(0).next(0, 0, P).prompt();
    Prompt s1 = w.stream(1).next(1, 0, P).prompt();
    assertThat(s0.messages().get(0).role()).isEqualTo("system");
    assertThat(s0.messages().get(0)).isEqualTo(s1.messages().get(0));
    assertThat(COUNTER.count(s0.messages().get(0).content())).isEqualTo(40);
    assertThat(s0.messages().get(1)).isNotEqualTo(s1.messages().get(1));
    Prompt open = w.request(5, 0, P).prompt();
    assertThat(open.messages().get(0)).isEqualTo(s0.messages().get(0));
    assertThat(Sessions.builder().build().request(0, 0, P).prompt().messages().get(0).role()).isEqualTo("user");
    assertThatThrownBy(() -> Sessions.builder().sharedPrefixTokens(-1)).isInstanceOf(IllegalArgumentException.class);
  }
}
