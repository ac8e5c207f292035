package io.infermark.core.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.Usage;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import io.infermark.core.time.Clock;
import io.infermark.core.tokens.TokenCounter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class SessionsAndMixesTest {

  @Test
  void singleTurnMixHasItsLengthRetryShareAndSloTags() {
    Mix mix = Mix.singleTurn();
    int n = 20_000;
    int retries = 0;
    for (long i = 0; i < n; i++) {
      if (mix.isRetry(i)) {
        retries++;
      }
    }
    // 9.2 % of 20,000 = 1840, standard deviation 41.
    assertThat(retries / (double) n).isCloseTo(0.092, within(0.006));
    Prompt p = mix.request(0, 0, GenerationParams.defaults()).prompt();
    assertThat(TokenCounter.estimate().count(p)).isEqualTo(87);
    assertThat(p.tags()).containsEntry(WorkloadTags.MIX, "single-turn").containsEntry(WorkloadTags.TTFT_SLO_MS, "320")
        .containsEntry(WorkloadTags.INPUT_TOKENS_ACHIEVED, "87");
  }

  @Test
  void aMixRetryRepeatsTheNearestOriginalAndLinksToIt() {
    Mix mix = Mix.singleTurn();
    long retry = 1;
    while (!mix.isRetry(retry)) {
      retry++;
    }
    long original = retry - 1;
    while (mix.isRetry(original)) {
      original--;
    }
    Prompt r = mix.request(retry, 0, GenerationParams.defaults()).prompt();
    Prompt o = mix.request(original, 0, GenerationParams.defaults()).prompt();
    assertThat(r.messages()).isEqualTo(o.messages());
    assertThat(r.tags()).containsEntry(WorkloadTags.RETRY_OF, Long.toString(original));
    assertThat(o.tags()).doesNotContainKey(WorkloadTags.RETRY_OF);
  }

  @Test
  void multiTurnMixContextGrowsTurnByTurn() {
    Mix mix = Mix.multiTurn();
    assertThat(mix.ttftSlo().toMillis()).isEqualTo(580);
    assertThat(mix.retryFraction()).isEqualTo(0.147);
    for (long i = 0; i < 8; i++) {
      if (mix.isRetry(i)) {
        continue;
      }
      Prompt p = mix.request(i, 0, GenerationParams.defaults()).prompt();
      int turn = (int) (i % 4);
      assertThat(p.messages()).hasSize(2 * turn + 1);
      // Each earlier turn carries 312 user + 64 reply tokens; the new turn adds 312.
      assertThat(TokenCounter.estimate().count(p)).isEqualTo(turn * (312 + 64) + 312);
      assertThat(p.tags()).containsEntry(WorkloadTags.TURN, Integer.toString(turn));
    }
  }

  @Test
  void multiTurnMixAverages876InputTokensAndTheSeedsMeanOf312TakesShorterTurns() {
    // Seed 003 §2.1: "多轮对话 | 312 | 14.7% | 580" (mean length 312 tokens). multiTurn() sends 312 new tokens per
    // turn, so its requests average 312 + 1.5 x (312 + 64) = 876; 87 per turn with 63-token replies average 312.
    assertThat(Mix.multiTurn().meanInputTokens()).isEqualTo(876.0);
    assertThat(Mix.singleTurn().meanInputTokens()).isEqualTo(87.0);
    Mix seedMean = Mix.of("multi-turn", 87, 0.147, java.time.Duration.ofMillis(580)).turns(4, 63);
    assertThat(seedMean.meanInputTokens()).isEqualTo(312.0);
    // A conversation sent without retries (the first seed whose requests 1-3 are originals): 87, 237, 387, 537.
    long seed = 0;
    while (seedMean.seed(seed).isRetry(1) || seedMean.seed(seed).isRetry(2) || seedMean.seed(seed).isRetry(3)) {
      seed++;
    }
    long sum = 0;
    for (long i = 0; i < 4; i++) {
      Prompt p = seedMean.seed(seed).request(i, 0, GenerationParams.defaults()).prompt();
      assertThat(TokenCounter.estimate().count(p)).isEqualTo(i * (87 + 63) + 87);
      sum += TokenCounter.estimate().count(p);
    }
    assertThat(sum).isEqualTo(4 * 312);
  }

  @Test
  void badMixesFailFast() {
    assertThatThrownBy(() -> Mix.of("x", 0, 0.1, java.time.Duration.ofMillis(1))).hasMessageContaining("inputTokens");
    assertThatThrownBy(() -> Mix.of("x", 5, 1.0, java.time.Duration.ofMillis(1))).hasMessageContaining("retryFraction");
    assertThatThrownBy(() -> Sessions.builder().retryProbability(-0.1)).hasMessageContaining("retryProbability");
    assertThatThrownBy(() -> Sessions.builder().turns(0)).hasMessageContaining("turns");
  }

  /** A server that answers every request with "reply to <id>", one content chunk, and counts 3 output tokens. */
  private static final Map<String, Prompt> RECEIVED = new ConcurrentHashMap<>();
  private static final Target ECHO = (request, observer, cancellation) -> {
    RECEIVED.put(request.id(), request.prompt());
    observer.onResponseHeaders(200, Clock.system().nanoTime());
    observer.onChunk(Clock.system().nanoTime(), ChunkKind.CONTENT, 3);
    observer.onText(ChunkKind.CONTENT, "reply to " + request.id());
    observer.onUsage(Usage.of(10, 3));
    observer.onComplete(Clock.system().nanoTime());
  };

  @Test
  void sessionsCarryEachReplyIntoTheNextTurnAndLinkRetries() {
    Sessions sessions = Sessions.builder().turns(3).userTokens(20).retryProbability(0.3).seed(4).build();
    RunResult run = Benchmark.target(ECHO).workload(sessions).load(LoadProfile.concurrency(1).requests(30)).run();

    List<RequestRecord> records = run.records();
    assertThat(records).hasSize(30).allMatch(RequestRecord::succeeded);
    int retries = 0;
    for (int i = 1; i < records.size(); i++) {
      RequestRecord r = records.get(i);
      Prompt sent = RECEIVED.get(r.requestId());
      RequestRecord before = records.get(i - 1);
      Prompt previous = RECEIVED.get(before.requestId());
      if (r.tags().containsKey(WorkloadTags.RETRY_OF)) {
        retries++;
        // A retry resends the request it names, which is the one just before it on this stream.
        assertThat(r.tags().get(WorkloadTags.RETRY_OF)).isEqualTo(Long.toString(before.index()));
        assertThat(sent.messages()).isEqualTo(previous.messages());
        continue;
      }
      int turn = Integer.parseInt(r.tags().get(WorkloadTags.TURN));
      assertThat(sent.messages()).hasSize(2 * turn + 1);
      if (turn > 0) {
        // History carried forward: the previous request's messages, then its actual reply, then a new user turn.
        assertThat(sent.messages().subList(0, sent.messages().size() - 2)).isEqualTo(previous.messages());
        assertThat(sent.messages().get(sent.messages().size() - 2))
            .isEqualTo(Message.assistant("reply to " + before.requestId()));
        assertThat(r.tags().get(WorkloadTags.SESSION)).isEqualTo(before.tags().get(WorkloadTags.SESSION));
      } else {
        assertThat(r.tags().get(WorkloadTags.SESSION)).isNotEqualTo(before.tags().get(WorkloadTags.SESSION));
      }
      assertThat(Integer.parseInt(r.tags().get(WorkloadTags.INPUT_TOKENS_ACHIEVED)))
          .isEqualTo(TokenCounter.estimate().count(sent));
    }
    assertThat(retries).isBetween(2, 12);
  }

  @Test
  void sessionsStandInForRepliesWithoutText() {
    Target silent = (request, observer, cancellation) -> {
      RECEIVED.put(request.id(), request.prompt());
      observer.onChunk(Clock.system().nanoTime(), ChunkKind.CONTENT, 5);
      observer.onUsage(Usage.of(10, 5));
      observer.onComplete(Clock.system().nanoTime());
    };
    Sessions sessions = Sessions.builder().turns(2).userTokens(10).retryProbability(0).build();
    RunResult run = Benchmark.target(silent).workload(sessions).load(LoadProfile.concurrency(1).requests(2)).run();
    Prompt second = RECEIVED.get(run.records().get(1).requestId());
    // The stand-in has as many words (estimate tokens) as the response's 5 output tokens.
    assertThat(TokenCounter.estimate().count(second.messages().get(1).content())).isEqualTo(5);
  }
}
