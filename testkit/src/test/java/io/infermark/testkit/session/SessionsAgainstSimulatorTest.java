package io.infermark.testkit.session;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunListener;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Message;
import io.infermark.core.session.FanOut;
import io.infermark.core.session.Latency;
import io.infermark.core.session.SessionTags;
import io.infermark.core.session.SessionWorkload;
import io.infermark.core.session.SyntheticSessions;
import io.infermark.core.session.ToolCall;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.testkit.junit.WithSimulator;
import io.infermark.metrics.session.SessionSummary;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Sessions end to end against the simulator, whose replies are deterministic per seed. */
@WithSimulator(timeToFirstTokenMillis = 2, interTokenIntervalMillis = 1, defaultOutputTokens = 12, seed = 11)
class SessionsAgainstSimulatorTest {

  /** Keeps every request's messages as they were sent. */
  private static final class Sent implements RunListener {
    final Map<String, List<Message>> messages = new ConcurrentHashMap<>();

    @Override
    public InferenceRequest beforeSend(InferenceRequest request) {
      messages.put(request.id(), request.prompt().messages());
      return request;
    }
  }

  private static RunResult run(OpenAiTarget target, SessionWorkload w, Sent sent, int concurrency) {
    return Benchmark.target(target).workload(w).listener(sent)
        .params(GenerationParams.builder().maxTokens(12).build())
        .load(LoadProfile.concurrency(concurrency).duration(Duration.ofMinutes(2))).run();
  }

  private static Map<String, List<RequestRecord>> bySession(RunResult run) {
    Map<String, List<RequestRecord>> m = run.records().stream()
        .collect(Collectors.groupingBy(r -> r.tags().get(SessionTags.SESSION)));
    m.values().forEach(l -> l.sort(Comparator.comparingLong(RequestRecord::index)));
    return m;
  }

  @Test
  void contextOfTurnKIsExactlyThePromptsAndServerRepliesOfTurnsBeforeIt(OpenAiTarget target) {
    SyntheticSessions source = SyntheticSessions.builder().turns(5).userTokens(20).seed(4).build();
    Sent sent = new Sent();
    RunResult run = run(target, SessionWorkload.builder(source).maxSessions(4).build(), sent, 2);

    assertThat(run.records()).hasSize(20).allMatch(RequestRecord::succeeded);
    Map<String, List<RequestRecord>> sessions = bySession(run);
    assertThat(sessions).hasSize(4);
    sessions.forEach((id, records) -> {
      List<Message> expected = new ArrayList<>();
      for (int k = 0; k < 5; k++) {
        RequestRecord r = records.get(k);
        assertThat(r.tags()).containsEntry(SessionTags.TURN, Integer.toString(k));
        expected.add(Message.user(source.session(Long.parseLong(id.substring(1))).turns().get(k).message()));
        assertThat(sent.messages.get(r.requestId())).as("context of session %s turn %d", id, k).isEqualTo(expected);
        String reply = r.text().orElseThrow();
        assertThat(reply).as("the simulator's reply").isNotBlank();
        expected.add(Message.assistant(reply));
      }
    });

    // the simulator's replies are deterministic per seed: the same sessions again see the same contexts
    Sent again = new Sent();
    RunResult second = run(target, SessionWorkload.builder(source).maxSessions(4).build(), again, 2);
    Map<String, List<RequestRecord>> secondSessions = bySession(second);
    sessions.forEach((id, records) -> {
      List<RequestRecord> other = secondSessions.get(id);
      for (int k = 0; k < 5; k++) {
        assertThat(again.messages.get(other.get(k).requestId())).isEqualTo(sent.messages.get(records.get(k).requestId()));
      }
    });
  }

  @Test
  void plantedFactProbesAndContextGrowthAreJudgedOnEverySession(OpenAiTarget target) {
    SyntheticSessions source = SyntheticSessions.builder().turns(4).userTokens(16).plantedFact(2, 3).build();
    RunResult run = run(target, SessionWorkload.builder(source).maxSessions(3).build(), new Sent(), 3);

    SessionSummary s = SessionSummary.of(run.records());
    assertThat(s.sessions()).isEqualTo(3);
    assertThat(run.records().stream().filter(r -> r.tags().containsKey(SessionTags.PROBE_EXPECTED)))
        .hasSize(6).allMatch(r -> r.tags().get(SessionTags.PROBE_EXPECTED).equals(source.fact(Long.parseLong(
            r.tags().get(SessionTags.SESSION).substring(1)))));
    // the simulator's replies come from its vocabulary and never repeat a code word: every probe decays
    assertThat(s.fidelity().probes()).isEqualTo(6);
    assertThat(s.fidelity().memoryDecayRate()).hasValue(1.0);
    // a judge that finds the fact everywhere recalls all of them
    assertThat(SessionSummary.of(run.records(), (reply, fact) -> true).fidelity().memoryDecayRate()).hasValue(0.0);
    // the simulator counts every prompt token it was sent: context grows by each reply, nothing is truncated
    assertThat(s.fidelity().checkedCalls()).isEqualTo(3 * 3);
    assertThat(s.fidelity().truncatedCalls()).isZero();
    assertThat(s.fidelity().contextTruncationRate()).hasValue(0.0);
  }

  @Test
  void agentTurnsWithToolsAndFanOutAreTaggedOnEveryRecord(OpenAiTarget target) {
    SyntheticSessions source = SyntheticSessions.builder().turns(3).userTokens(16)
        .tool(ToolCall.of("lookup", Latency.fixed(Duration.ofMillis(3)))).fanOut(FanOut.of(3).maxTokens(6)).build();
    Sent sent = new Sent();
    RunResult run = run(target, SessionWorkload.builder(source).maxSessions(6).build(), sent, 3);

    // per turn: first call, after the tool, 3 branches, the join
    assertThat(run.records()).hasSize(6 * 3 * 6).allMatch(RequestRecord::succeeded);
    assertThat(run.records()).allSatisfy(r -> assertThat(r.tags()).containsKeys(SessionTags.SESSION, SessionTags.TURN,
        SessionTags.TOOL_CALL_DEPTH, SessionTags.RETRY_COUNT, SessionTags.STEP, SessionTags.SESSION_TURNS));
    Map<String, Long> byDepth = run.records().stream().collect(Collectors.groupingBy(
        r -> r.tags().get(SessionTags.TOOL_CALL_DEPTH) + (r.tags().containsKey(SessionTags.BRANCH) ? "b" : ""),
        Collectors.counting()));
    assertThat(byDepth).containsExactlyInAnyOrderEntriesOf(Map.of("0", 18L, "1", 18L, "2b", 54L, "2", 18L));
    assertThat(run.records().stream().filter(r -> r.tags().containsKey(SessionTags.BRANCH)))
        .allMatch(r -> r.outputTokens() == 6);
  }
}
