package io.infermark.core.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TokenGapsTest {

  private static List<long[]> gaps(ChunkTimeline t) {
    List<long[]> out = new ArrayList<>();
    ChunkTimeline.TokenGaps g = t.gaps();
    while (g.next()) {
      out.add(new long[] {g.gapNanos(), g.endOffsetNanos(), g.tokens()});
    }
    return out;
  }

  @Test
  void gapsRunBetweenConsecutiveTokenBearingChunksOnly() {
    ChunkTimeline t = ChunkTimeline.builder()
        .add(5, ChunkKind.ROLE, 0)          // never starts the clock
        .add(10, ChunkKind.CONTENT, 1)
        .add(12, ChunkKind.EMPTY, 0)        // neither ends nor starts a gap
        .add(25, ChunkKind.REASONING, 3)
        .add(30, ChunkKind.USAGE, 0)
        .add(40, ChunkKind.CONTENT, ChunkTimeline.UNKNOWN_TOKENS)
        .build();

    assertThat(gaps(t)).containsExactly(new long[] {15, 25, 3}, new long[] {15, 40, ChunkTimeline.UNKNOWN_TOKENS});
  }

  @Test
  void aTimelineWithFewerThanTwoTokenChunksHasNoGap() {
    assertThat(gaps(ChunkTimeline.empty())).isEmpty();
    assertThat(gaps(ChunkTimeline.builder().add(3, ChunkKind.ROLE, 0).add(9, ChunkKind.CONTENT, 2).build())).isEmpty();
  }
}
