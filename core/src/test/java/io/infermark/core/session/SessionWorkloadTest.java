package io.infermark.core.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.Message;
import io.infermark.core.workload.WorkloadTags;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class SessionWorkloadTest {

  private static RunResult run(ScriptedTarget target, SessionWorkload w, LoadProfile load) {
    return Benchmark.target(target).workload(w).load(load).run();
  }

  private static int tag(RequestRecord r, String name) {
    return Integer.parseInt(r.tags().get(name));
  }

  private static long endNanos(RequestRecord r) {
    return r.sendNanos() + r.endOffsetNanos();
  }

  @Test
  void contextOfTurnKIsEveryEarlierPromptAndReplyThenTheNewMessage() {
    SyntheticSessions source = SyntheticSessions.builder().turns(4).userTokens(12).build();
    try (ScriptedTarget target = new ScriptedTarget(r -> 1, r -> false)) {
      RunResult run = run(target, SessionWorkload.builder(source).maxSessions(3).build(),
          LoadProfile.concurrency(2).requests(1000));

      assertThat(run.records()).hasSize(12).allMatch(RequestRecord::succeeded);
      Map<String, List<RequestRecord>> bySession = run.records().stream()
          .collect(Collectors.groupingBy(r -> r.tags().get(SessionTags.SESSION)));
      assertThat(bySession).containsOnlyKeys("s0", "s1", "s2");
      bySession.forEach((id, records) -> {
        records.sort(Comparator.comparingInt(r -> tag(r, SessionTags.TURN)));
        Session planned = source.session(Long.parseLong(id.substring(1)));
        List<Message> expected = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
          RequestRecord r = records.get(k);
          assertThat(tag(r, SessionTags.TURN)).isEqualTo(k);
          expected.add(Message.user(planned.turns().get(k).message()));
          assertThat(target.sent.get(r.requestId())).as("context of %s turn %d", id, k).isEqualTo(expected);
          assertThat(r.text()).contains(ScriptedTarget.replyTo(r.requestId()));
          expected.add(Message.assistant(ScriptedTarget.replyTo(r.requestId())));
          assertThat(r.tags()).containsEntry(SessionTags.TOOL_CALL_DEPTH, "0").containsEntry(SessionTags.RETRY_COUNT, "0")
              .containsEntry(SessionTags.SESSION_TURNS, "4");
        }
      });
    }
  }

  @Test
  void failedCallIsRetriedUnderThePolicyAndTheConversationGoesOnFromTheRetrysReply() {
    SyntheticSessions source = SyntheticSessions.builder().turns(3).userTokens(8).build();
    // the first two attempts of turn 1 fail
    try (ScriptedTarget target = new ScriptedTarget(r -> 1, r -> r.prompt().tags().get(SessionTags.TURN).equals("1")
        && Integer.parseInt(r.prompt().tags().get(SessionTags.RETRY_COUNT)) < 2)) {
      RunResult run = run(target, SessionWorkload.builder(source).maxSessions(1)
          .retry(RetryPolicy.of(3, Duration.ofMillis(5))).build(), LoadProfile.concurrency(1).requests(1000));

      List<RequestRecord> turn1 = run.records().stream().filter(r -> r.tags().get(SessionTags.TURN).equals("1"))
          .toList();
      assertThat(turn1).extracting(r -> tag(r, SessionTags.RETRY_COUNT)).containsExactly(0, 1, 2);
      assertThat(turn1).extracting(RequestRecord::succeeded).containsExactly(false, false, true);
      assertThat(turn1.get(1).tags()).containsEntry(WorkloadTags.RETRY_OF, Long.toString(turn1.get(0).index()));
      assertThat(turn1.get(2).tags()).containsEntry(WorkloadTags.RETRY_OF, Long.toString(turn1.get(0).index()));
      // every attempt resends the same context, after its backoff
      assertThat(target.sent.get(turn1.get(2).requestId())).isEqualTo(target.sent.get(turn1.get(0).requestId()));
      assertThat(turn1.get(1).sendNanos()).isGreaterThanOrEqualTo(endNanos(turn1.get(0)) + 5_000_000);
      RequestRecord turn2 = run.records().stream().filter(r -> r.tags().get(SessionTags.TURN).equals("2"))
          .findFirst().orElseThrow();
      assertThat(target.sent.get(turn2.requestId())).contains(
          Message.assistant(ScriptedTarget.replyTo(turn1.get(2).requestId())));
      assertThat(run.records()).hasSize(5);
    }
  }

  @Test
  void callFailingEveryAttemptEndsItsSession() {
    SyntheticSessions source = SyntheticSessions.builder().turns(4).userTokens(8).build();
    try (ScriptedTarget target = new ScriptedTarget(r -> 1, r -> r.prompt().tags().get(SessionTags.TURN).equals("1"))) {
      RunResult run = run(target, SessionWorkload.builder(source).maxSessions(1)
          .retry(RetryPolicy.of(2, Duration.ZERO)).build(), LoadProfile.concurrency(1).requests(1000));

      assertThat(run.records()).extracting(r -> r.tags().get(SessionTags.TURN) + "/" + r.tags().get(SessionTags.RETRY_COUNT))
          .containsExactly("0/0", "1/0", "1/1");
    }
  }

  @Test
  void fanOutJoinWaitsForItsSlowestBranch() {
    SyntheticSessions source = SyntheticSessions.builder().turns(1).userTokens(8).fanOut(FanOut.of(3).taskTokens(4))
        .build();
    // branch b answers after 10 + 30 b ms, so branch 2 is the slowest
    try (ScriptedTarget target = new ScriptedTarget(r -> {
      String b = r.prompt().tags().get(SessionTags.BRANCH);
      return b == null ? 1 : 10 + 30L * Integer.parseInt(b);
    }, r -> false)) {
      RunResult run = run(target, SessionWorkload.builder(source).maxSessions(1).build(),
          LoadProfile.concurrency(1).requests(1000));

      List<RequestRecord> records = run.records();
      assertThat(records).hasSize(5).allMatch(RequestRecord::succeeded);
      List<RequestRecord> branches = records.stream().filter(r -> r.tags().containsKey(SessionTags.BRANCH)).toList();
      assertThat(branches).extracting(r -> r.tags().get(SessionTags.BRANCH)).containsExactlyInAnyOrder("0", "1", "2");
      assertThat(branches).allMatch(r -> r.tags().get(SessionTags.TOOL_CALL_DEPTH).equals("1")
          && r.tags().get(SessionTags.BRANCHES).equals("3"));
      RequestRecord join = records.get(4);
      assertThat(join.tags()).doesNotContainKey(SessionTags.BRANCH).containsEntry(SessionTags.TOOL_CALL_DEPTH, "1");
      long slowestEnd = branches.stream().mapToLong(SessionWorkloadTest::endNanos).max().orElseThrow();
      assertThat(join.sendNanos()).isGreaterThanOrEqualTo(slowestEnd);
      // the branches ran in parallel: all were sent before the fastest one ended
      long fastestEnd = branches.stream().mapToLong(SessionWorkloadTest::endNanos).min().orElseThrow();
      assertThat(branches).allMatch(r -> r.sendNanos() <= fastestEnd);
      // each branch has a fresh context of its task; the join's context carries every branch's reply
      List<Message> joinContext = target.sent.get(join.requestId());
      String joined = joinContext.get(joinContext.size() - 1).content();
      branches.forEach(b -> {
        assertThat(target.sent.get(b.requestId())).hasSize(1);
        assertThat(joined).contains(ScriptedTarget.replyTo(b.requestId()));
      });
    }
  }

  @Test
  void toolTimeIsMeasuredWithItsRetriedAttempts() {
    ToolCall tool = ToolCall.of("search", Latency.fixed(Duration.ofMillis(20))).failing(0.5);
    SyntheticSessions source = SyntheticSessions.builder().turns(2).userTokens(8).tool(tool).build();
    try (ScriptedTarget target = new ScriptedTarget(r -> 1, r -> false)) {
      RunResult run = run(target, SessionWorkload.builder(source).maxSessions(6).seed(3)
          .retry(RetryPolicy.of(4, Duration.ofMillis(10))).build(), LoadProfile.concurrency(3).requests(1000));

      List<RequestRecord> afterTool = run.records().stream()
          .filter(r -> r.tags().containsKey(SessionTags.TOOL_NANOS)).toList();
      assertThat(afterTool).hasSize(12).allMatch(r -> r.tags().get(SessionTags.TOOL_CALL_DEPTH).equals("1"));
      int retried = 0;
      for (RequestRecord r : afterTool) {
        int retries = tag(r, SessionTags.TOOL_RETRIES);
        retried += retries;
        long toolNanos = Long.parseLong(r.tags().get(SessionTags.TOOL_NANOS));
        // each attempt takes 20 ms and each retry waits 10 ms first
        assertThat(toolNanos).isGreaterThanOrEqualTo((retries + 1) * 20_000_000L + retries * 10_000_000L);
        RequestRecord before = run.records().stream().filter(p -> p.tags().get(SessionTags.SESSION)
            .equals(r.tags().get(SessionTags.SESSION)) && p.tags().get(SessionTags.TURN).equals(r.tags().get(
            SessionTags.TURN)) && p.tags().get(SessionTags.STEP).equals("0")).findFirst().orElseThrow();
        assertThat(r.sendNanos() - endNanos(before)).isGreaterThanOrEqualTo(toolNanos);
        List<Message> context = target.sent.get(r.requestId());
        String last = context.get(context.size() - 1).content();
        assertThat(last).startsWith(r.tags().containsKey(SessionTags.TOOL_FAILED) ? "Tool search failed"
            : "Result of tool search");
      }
      assertThat(retried).as("tool attempts retried at failure probability 0.5").isPositive();
    }
  }

  @Test
  void openLoopStartsSessionsAtTheirArrivalTimes() {
    SyntheticSessions source = SyntheticSessions.builder().turns(2).userTokens(8).build();
    try (ScriptedTarget target = new ScriptedTarget(r -> 1, r -> false)) {
      RunResult run = run(target, SessionWorkload.builder(source).maxSessions(4).build(),
          LoadProfile.constantRate(50).requests(1000));

      assertThat(run.records()).hasSize(8).allMatch(RequestRecord::succeeded);
      List<RequestRecord> firsts = run.records().stream().filter(r -> r.tags().get(SessionTags.TURN).equals("0"))
          .sorted(Comparator.comparing(r -> r.tags().get(SessionTags.SESSION))).toList();
      assertThat(firsts).extracting(RequestRecord::intendedNanos).containsExactly(0L, 20_000_000L, 40_000_000L,
          60_000_000L);
    }
  }

  @Test
  void openLoopOfSessionsWithoutAnyEndIsRefused() {
    SyntheticSessions source = SyntheticSessions.builder().build();
    try (ScriptedTarget target = new ScriptedTarget(r -> 1, r -> false)) {
      assertThatThrownBy(() -> run(target, SessionWorkload.builder(source).build(),
          LoadProfile.constantRate(50).requests(10)))
          .hasMessageContaining("needs a duration or a session limit");
    }
  }
}
