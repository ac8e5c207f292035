package io.infermark.core.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class UsageTest {

  @Test
  void knownCountsKeepWhatWasReadAndLeaveNegativeOnesAbsent() {
    Usage u = Usage.ofKnownCounts(42, 7, -1, 0, -5);

    assertThat(u.promptTokens()).hasValue(42);
    assertThat(u.completionTokens()).hasValue(7);
    assertThat(u.totalTokens()).isEmpty();
    assertThat(u.reasoningTokens()).hasValue(0);
    assertThat(u.cachedPromptTokens()).isEmpty();
    assertThat(u).isEqualTo(Usage.builder().promptTokens(42).completionTokens(7).reasoningTokens(0).build());
  }

  @Test
  void noKnownCountIsNone() {
    assertThat(Usage.ofKnownCounts(-1, -1, -1, -1, -1)).isSameAs(Usage.NONE);
    assertThat(Usage.builder().build()).isSameAs(Usage.NONE);
    assertThat(Usage.NONE.isEmpty()).isTrue();
  }

  @Test
  void theBuilderRejectsANegativeCount() {
    assertThatThrownBy(() -> Usage.builder().promptTokens(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("promptTokens");
  }
}
