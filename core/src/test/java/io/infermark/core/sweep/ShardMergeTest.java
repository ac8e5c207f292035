package io.infermark.core.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.ArrivalProcess;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.Prompt;
import io.infermark.core.time.Clock;
import io.infermark.core.workload.Mix;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShardMergeTest {

  private static final Target INSTANT = (request, observer, cancellation) -> {
    observer.onChunk(Clock.system().nanoTime(), ChunkKind.CONTENT, 1);
    observer.onComplete(Clock.system().nanoTime());
  };

  @Test
  void shardsOfOneScheduleAndWorkloadUnionToTheSingleMachineRun() {
    LoadProfile whole = LoadProfile.arrivals(ArrivalProcess.gamma(5_000, 0.5)).requests(60).warmupRequests(6).seed(3);
    Benchmark bench = Benchmark.target(INSTANT).workload(Mix.singleTurn());
    RunResult single = bench.load(whole).run();
    List<RunResult> shards = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      shards.add(bench.load(whole.shard(i, 4)).run());
    }
    assertThat(shards.get(1).records()).hasSize(17).allMatch(r -> r.index() % 4 == 1);

    RunResult merged = ShardMerge.merge(List.of(shards.get(2), shards.get(0), shards.get(3), shards.get(1)));

    assertThat(merged.records()).hasSize(66);
    for (int i = 0; i < 66; i++) {
      RequestRecord m = merged.records().get(i);
      RequestRecord s = single.records().get(i);
      assertThat(m.index()).isEqualTo(i);
      assertThat(m.intendedNanos()).isEqualTo(s.intendedNanos());
      assertThat(m.tags()).isEqualTo(s.tags()); // the same prompt (and retry links) on either layout
      assertThat(m.warmup()).isEqualTo(s.warmup());
    }
    assertThat(merged.load().shardCount()).isEqualTo(1);
    assertThat(merged.schedule().sent()).isEqualTo(60);
    assertThat(merged.schedule().requestedRate()).hasValue(5_000.0);
    assertThat(merged.schedule().scheduledRate()).isEqualTo(single.schedule().scheduledRate());
  }

  @Test
  void aShardThatStartedLaterShowsItAsLag() {
    LoadProfile whole = LoadProfile.constantRate(1000).requests(4);
    RunResult a = Benchmark.target(INSTANT).prompts(Prompt.user("x")).load(whole.shard(0, 2)).run();
    RunResult b = Benchmark.target(INSTANT).prompts(Prompt.user("x")).load(whole.shard(1, 2)).run();
    RunResult late = RunResult.builder()
        .records(b.records())
        .startedAt(a.startedAt().plus(Duration.ofMillis(50)))
        .durationNanos(b.durationNanos())
        .target(b.target())
        .load(b.load())
        .params(b.params())
        .promptCount(b.promptCount())
        .environment(b.environment())
        .schedule(b.schedule())
        .build();

    RunResult merged = ShardMerge.merge(List.of(a, late));

    RequestRecord r1 = merged.records().get(1);
    assertThat(r1.sendNanos()).isEqualTo(b.records().get(0).sendNanos() + 50_000_000L);
    assertThat(r1.scheduleLagNanos()).isGreaterThanOrEqualTo(50_000_000L);
    assertThat(merged.durationNanos()).isGreaterThanOrEqualTo(50_000_000L + b.durationNanos());
  }

  @Test
  void incompleteOrInconsistentShardsAreRejected() {
    LoadProfile whole = LoadProfile.constantRate(1000).requests(6);
    RunResult s0 = Benchmark.target(INSTANT).prompts(Prompt.user("x")).load(whole.shard(0, 3)).run();
    RunResult s1 = Benchmark.target(INSTANT).prompts(Prompt.user("x")).load(whole.shard(1, 3)).run();
    assertThatThrownBy(() -> ShardMerge.merge(List.of(s0, s1))).hasMessageContaining("expected 3 shards")
        .hasMessageContaining("missing [2]");
    assertThatThrownBy(() -> ShardMerge.merge(List.of(s0, s0))).hasMessageContaining("shard 0 appears twice");
    assertThatThrownBy(() -> ShardMerge.merge(List.of())).hasMessageContaining("no shard results");
  }
}
