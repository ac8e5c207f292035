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
  void knownTokenSumCountsAStatedTokenOnAChunkThatShowsNothing() {
    ChunkTimeline t = ChunkTimeline.builder().add(1, ChunkKind.CONTENT, 1).add(2, ChunkKind.CONTENT, 1)
        .add(3, ChunkKind.EMPTY, 1).add(4, ChunkKind.USAGE, ChunkTimeline.UNKNOWN_TOKENS).build();
    assertThat(t.tokenChunkCount()).isEqualTo(2);
    assertThat(t.knownTokenSum()).isEqualTo(3);
  }

  @Test
  void knownTokenSumIsUnknownWhenAnyTokenChunkIsUnknown() {
    ChunkTimeline t = ChunkTimeline.builder().add(1, ChunkKind.CONTENT, 2)
        .add(2, ChunkKind.CONTENT, ChunkTimeline.UNKNOWN_TOKENS).build();
    assertThat(t.knownTokenSum()).isEqualTo(-1);
  }

  @Test
  void aTypicalChunkCostsFiveBytes() {
    ChunkTimeline.Builder b = ChunkTimeline.builder();
    for (int i = 1; i <= 128; i++) {
      b.add(i * 20_000_000L, ChunkKind.CONTENT, 1); // 20 ms apart: one header byte + a 4-byte gap
    }
    assertThat(b.build().encodedBytes()).isEqualTo(128 * 5);
  }

  @Test
  void everyKindAndTokenCountRoundTripsIncludingLargeAndUnknownCounts() {
    int[] counts = {ChunkTimeline.UNKNOWN_TOKENS, 0, 1, 28, 29, 30, 31, 127, 128, 100_000, Integer.MAX_VALUE - 1};
    ChunkTimeline.Builder b = ChunkTimeline.builder();
    long at = 0;
    int n = 0;
    for (ChunkKind kind : ChunkKind.values()) {
      for (int tokens : counts) {
        at += 1L << (n % 40); // gaps from 1 ns to ~9 minutes
        b.add(at, kind, tokens);
        n++;
      }
    }
    ChunkTimeline t = b.build();
    ChunkTimeline.Cursor c = t.cursor();
    long expectedAt = 0;
    int i = 0;
    for (ChunkKind kind : ChunkKind.values()) {
      for (int tokens : counts) {
        expectedAt += 1L << (i % 40);
        assertThat(c.next()).isTrue();
        assertThat(c.kind()).isEqualTo(kind);
        assertThat(c.tokens()).isEqualTo(tokens);
        assertThat(c.offsetNanos()).isEqualTo(expectedAt);
        i++;
      }
    }
    assertThat(c.next()).isFalse();
    assertThat(t.size()).isEqualTo(n);
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

  @Test
  void gapsOfEveryVarintLengthDecodeExactly() {
    // Each side of every 7-bit boundary up to Long.MAX_VALUE: the decoder unrolls the first four
    // bytes and loops for the rest.
    for (int bits = 7; bits <= 63; bits += 7) {
      for (long gap : new long[] {(1L << Math.min(bits, 63)) - 1, 1L << Math.min(bits, 62)}) {
        ChunkTimeline.Cursor c = ChunkTimeline.builder().add(0, ChunkKind.ROLE, -1).add(gap, ChunkKind.CONTENT, 40)
            .add(gap, ChunkKind.USAGE, -1).build().cursor();
        assertThat(c.next()).isTrue();
        assertThat(c.next()).isTrue();
        assertThat(c.offsetNanos()).as("gap of %d ns", gap).isEqualTo(gap);
        assertThat(c.tokens()).isEqualTo(40);
        assertThat(c.next()).isTrue();
        assertThat(c.offsetNanos()).isEqualTo(gap);
        assertThat(c.kind()).isEqualTo(ChunkKind.USAGE);
        assertThat(c.next()).isFalse();
      }
    }
  }
}
