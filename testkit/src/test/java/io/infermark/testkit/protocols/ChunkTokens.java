package io.infermark.testkit.protocols;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.TokenCountSource;
import io.infermark.testkit.simulator.ServerTimeline;
import io.infermark.testkit.simulator.Simulator;

/**
 * A server that sends several tokens in one chunk (an event, a gRPC response), against the simulator's ground truth:
 * every record's count is the server's, each chunk carries its tokens, stamped together at the read that completed
 * it and no sooner than the server wrote the last of them.
 */
final class ChunkTokens {

  private ChunkTokens() {}

  /**
   * Checks every record of {@code run} against {@code sim}, which sent {@code perChunk} tokens a chunk and between
   * 17 and 30 a request; {@code chunk} names a chunk in the messages ("event", "response").
   */
  static void assertCountedAsTheServerSentThem(RunResult run, Simulator sim, int perChunk, String chunk) {
    for (RequestRecord r : run.records()) {
      ServerTimeline server = sim.timeline(r.requestId()).orElseThrow();
      int tokens = server.tokenCount();
      assertThat(tokens).isBetween(17, 30);
      assertThat(r.outputTokens()).as("output tokens of %s", r).isEqualTo(tokens);
      assertThat(r.outputTokensSource()).isEqualTo(TokenCountSource.CHUNK_TOKENS);
      assertThat(r.chunks().tokenChunkCount()).isEqualTo((tokens + perChunk - 1) / perChunk);
      long send = run.originNanos() + r.sendNanos();
      ChunkTimeline.Cursor c = r.chunks().cursor();
      int first = 0;
      while (c.next()) {
        if (c.kind().isTokenBearing()) {
          assertThat(c.tokens()).as("tokens of the %s from token %d", chunk, first)
              .isEqualTo(Math.min(perChunk, tokens - first));
          assertThat(send + c.offsetNanos()).isGreaterThanOrEqualTo(server.tokenNanos(first + c.tokens() - 1));
          first += c.tokens();
        }
      }
      assertThat(first).isEqualTo(tokens);
      // per-token timing divides each gap by the tokens that arrived together at its end
      ChunkTimeline.TokenGaps gaps = r.chunks().gaps();
      while (gaps.next()) {
        assertThat(gaps.tokens()).isBetween(1, perChunk);
      }
    }
  }
}
