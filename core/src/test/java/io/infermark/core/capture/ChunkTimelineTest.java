package io.infermark.core.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ChunkTimelineTest {

  @Test
  void cursorReturnsExactOffsetsKindsAndTokens() {
    ChunkTimeline t = ChunkTimeline.builder()
        .add(1_000, ChunkKind.ROLE, 0)
        .add(25_000_123, ChunkKind.CONTENT, 1)
        .add(25_000_123, ChunkKind.CONTENT, ChunkTimeline.UNKNOWN_TOKENS)
        .add(7_300_000_000_001L, ChunkKind.REASONING, 3) // a gap of two hours survives exactly
        .add(7_300_000_000_002L, ChunkKind.USAGE, 0)
        .build();

    ChunkTimeline.Cursor c = t.cursor();
    assertThat(c.next()).isTrue();
    assertThat(c.offsetNanos()).isEqualTo(1_000);
    assertThat(c.kind()).isEqualTo(ChunkKind.ROLE);
    assertThat(c.tokens()).isZero();
    assertThat(c.next()).isTrue();
    assertThat(c.offsetNanos()).isEqualTo(25_000_123);
    assertThat(c.tokens()).isEqualTo(1);
    assertThat(c.next()).isTrue();
    assertThat(c.offsetNanos()).isEqualTo(25_000_123);
    assertThat(c.tokens()).isEqualTo(ChunkTimeline.UNKNOWN_TOKENS);
    assertThat(c.next()).isTrue();
    assertThat(c.offsetNanos()).isEqualTo(7_300_000_000_001L);
    assertThat(c.kind()).isEqualTo(ChunkKind.REASONING);
    assertThat(c.tokens()).isEqualTo(3);
    assertThat(c.next()).isTrue();
    assertThat(c.index()).isEqualTo(4);
    assertThat(c.next()).isFalse();
  }

  @Test
  void aggregatesCountOnlyTokenBearingChunks() {
    ChunkTimeline t = ChunkTimeline.builder()
        .add(10, ChunkKind.ROLE, 0)
        .add(20, ChunkKind.REASONING, 1)
        .add(30, ChunkKind.CONTENT, 1)
        .add(40, ChunkKind.EMPTY, 0)
        .add(50, ChunkKind.USAGE, 0)
        .build();

    assertThat(t.size()).isEqualTo(5);
    assertThat(t.tokenChunkCount()).isEqualTo(2);
    assertThat(t.firstTokenOffsetNanos()).hasValue(20);
    assertThat(t.lastTokenOffsetNanos()).hasValue(30);
    assertThat(t.firstOffsetNanos(ChunkKind.CONTENT)).hasValue(30);
    assertThat(t.firstOffsetNanos(ChunkKind.TOOL_CALL)).isEmpty();
    assertThat(t.lastOffsetNanos()).isEqualTo(50);
    assertThat(t.knownTokenSum()).isEqualTo(2);
  }

  @Test
  void knownTokenSumIsUnknownWhenAnyTokenChunkIsUnknown() {
    ChunkTimeline t = ChunkTimeline.builder().add(1, ChunkKind.CONTENT, 2)
        .add(2, ChunkKind.CONTENT, ChunkTimeline.UNKNOWN_TOKENS).build();
    assertThat(t.knownTokenSum()).isEqualTo(-1);
  }

  @Test
  void aTypicalChunkCostsAboutSixBytes() {
    ChunkTimeline.Builder b = ChunkTimeline.builder();
    for (int i = 1; i <= 128; i++) {
      b.add(i * 20_000_000L, ChunkKind.CONTENT, 1); // 20 ms apart
    }
    assertThat(b.build().encodedBytes()).isLessThanOrEqualTo(128 * 6);
  }

  @Test
  void offsetsMustNotGoBackwards() {
    ChunkTimeline.Builder b = ChunkTimeline.builder().add(100, ChunkKind.CONTENT, 1);
    assertThatThrownBy(() -> b.add(99, ChunkKind.CONTENT, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("non-decreasing");
    assertThatThrownBy(() -> ChunkTimeline.builder().add(-1, ChunkKind.CONTENT, 1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ChunkTimeline.builder().add(1, ChunkKind.CONTENT, -2))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void equalTimelinesAreEqual() {
    ChunkTimeline a = ChunkTimeline.builder().add(5, ChunkKind.CONTENT, 1).build();
    ChunkTimeline b = ChunkTimeline.builder().add(5, ChunkKind.CONTENT, 1).build();
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(ChunkTimeline.builder().build()).isSameAs(ChunkTimeline.empty());
    assertThat(a.toString()).contains("1 chunks").contains("first token 0.000 ms");
  }
}
