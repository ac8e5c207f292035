package io.infermark.core.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.tokens.TokenCounter;
import io.infermark.core.workload.Trace;
import io.infermark.core.workload.TraceEntry;
import io.infermark.core.workload.WorkloadTags;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SessionTraceTest {

  private static Trace mooncakeSample() throws URISyntaxException {
    return Trace.readJsonl(Path.of(SessionTraceTest.class.getResource("/traces/mooncake-conversation-first300.jsonl")
        .toURI()));
  }

  @Test
  void mooncakeRequestsBecomeOneTurnEachGroupedByTheirPrefixBlocks() throws Exception {
    Trace trace = mooncakeSample();
    SessionTrace sessions = SessionTrace.mooncake(trace);
    Map<Integer, TraceEntry> byLine = new HashMap<>();
    trace.entries().forEach(e -> byLine.put(e.line(), e));

    assertThat(sessions.turns()).isEqualTo(300);
    assertThat(sessions.sessions().stream().filter(s -> s.turns().size() > 1).count()).isPositive();
    long first = trace.entries().get(0).timestampMs();
    for (Session s : sessions.sessions()) {
      TraceEntry head = byLine.get(Integer.parseInt(s.turns().get(0).tags().get(WorkloadTags.TRACE_LINE)));
      assertThat(s.start()).contains(Duration.ofMillis(head.timestampMs() - first));
      for (int k = 0; k < s.turns().size(); k++) {
        Turn t = s.turns().get(k);
        TraceEntry e = byLine.get(Integer.parseInt(t.tags().get(WorkloadTags.TRACE_LINE)));
        assertThat(t.maxTokens()).hasValue(Math.max(1, e.outputLength()));
        assertThat(t.notBefore()).contains(Duration.ofMillis(e.timestampMs() - head.timestampMs()));
        if (k > 0) {
          TraceEntry prev = byLine.get(Integer.parseInt(s.turns().get(k - 1).tags().get(WorkloadTags.TRACE_LINE)));
          // the previous request's full blocks are a prefix of this one's
          List<Long> full = prev.hashIds().subList(0, prev.hashIds().size() - 1);
          assertThat(e.hashIds().subList(0, full.size())).isEqualTo(full);
          // the new message is what the trace adds beyond the previous input and output
          assertThat(t.message().split(" ")).hasSize(Math.max(1, e.inputLength() - prev.inputLength()
              - prev.outputLength()));
        } else {
          assertThat(t.message().split(" ")).hasSize(e.inputLength());
        }
      }
    }
  }

  @Test
  void sameHashIdSameTextSoFirstTurnsShareRealPrefixes() throws Exception {
    Trace trace = mooncakeSample();
    List<Session> sessions = SessionTrace.mooncake(trace).sessions();
    // every request of the sample starts with hash id 0: the first 512 words of every first turn are equal
    assertThat(trace.entries()).allMatch(e -> e.hashIds().get(0) == 0L);
    String block0 = String.join(" ", List.of(sessions.get(0).turns().get(0).message().split(" ")).subList(0, 512));
    assertThat(sessions).allSatisfy(s -> assertThat(s.turns().get(0).message()).startsWith(block0));
    // and the text is the trace workload's own, block for block
    TraceEntry e0 = trace.entries().get(0);
    assertThat(sessions.get(0).turns().get(0).message()).isEqualTo(trace.prompt(e0).text());
  }

  @Test
  void sessionArrivalsReplayTheStarts() throws Exception {
    SessionTrace sessions = SessionTrace.mooncake(mooncakeSample());
    long[] at = sessions.arrivals(2.0).schedule(Integer.MAX_VALUE, Long.MAX_VALUE, 0);
    assertThat(at).hasSize(sessions.sessions().size());
    for (int i = 0; i < at.length; i++) {
      assertThat(at[i]).isEqualTo(sessions.sessions().get(i).start().orElseThrow().toNanos() / 2);
    }
  }

  @Test
  void infermarkFormatReadsTurnsStepsAndTimes(@TempDir Path dir) throws IOException {
    Path f = dir.resolve("s.jsonl");
    Files.writeString(f, """
        {"id": "b", "start_ms": 500, "turns": [{"message": "hello", "output_tokens": 8}]}
        {"id": "a", "turns": [{"message": "Find flights", "output_tokens": 64, "steps": [
          {"tool": "search", "latency_ms": 180, "failure_probability": 0.01, "result_tokens": 120},
          {"fan_out": 3, "task_tokens": 48, "output_tokens": 32}]},
          {"input_tokens": 40, "at_ms": 9000, "think_ms": 250}]}
        """.replace("\n  ", " ").replace("\n          {\"input", " {\"input"));
    SessionTrace t = SessionTrace.readJsonl(f);
    assertThat(t.sessions()).extracting(Session::id).containsExactly("a", "b"); // in order of start
    Session a = t.sessions().get(0);
    assertThat(a.turns()).hasSize(2);
    Turn first = a.turns().get(0);
    assertThat(first.message()).isEqualTo("Find flights");
    assertThat(first.maxTokens()).hasValue(64);
    assertThat(first.steps()).hasSize(2);
    assertThat(first.steps().get(1)).isEqualTo(new FanOut(3, 48, java.util.OptionalInt.of(32)));
    ToolCall tool = (ToolCall) first.steps().get(0);
    assertThat(tool.name()).isEqualTo("search");
    assertThat(tool.latency().meanNanos()).isEqualTo(180e6);
    assertThat(tool.failureProbability()).isEqualTo(0.01);
    assertThat(tool.resultTokens()).isEqualTo(120);
    Turn second = a.turns().get(1);
    assertThat(TokenCounter.estimate().count(second.message())).isEqualTo(40);
    assertThat(second.notBefore()).contains(Duration.ofMillis(9000));
    assertThat(second.thinkBefore().orElseThrow().meanNanos()).isEqualTo(250e6);
    assertThat(t.sessions().get(1).start()).contains(Duration.ofMillis(500));
    // the widest fan-out sizes the transport for concurrent sessions
    assertThat(t.maxParallelCalls()).isEqualTo(3);
    assertThat(SyntheticSessions.builder().fanOut(FanOut.of(4)).build().maxParallelCalls()).isEqualTo(4);
    assertThat(SyntheticSessions.builder().build().maxParallelCalls()).isEqualTo(1);
  }

  @Test
  void malformedSessionTraceNamesTheLineAndField(@TempDir Path dir) throws IOException {
    Path f = dir.resolve("bad.jsonl");
    Files.writeString(f, "{\"turns\": [{\"message\": \"x\"}]}\n{\"turns\": [{\"message\": \"x\", \"output_tokens\": \"many\"}]}\n");
    assertThatThrownBy(() -> SessionTrace.readJsonl(f)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("line 2 turn 1: 'output_tokens' must be an integer");
    Files.writeString(f, "{\"turns\": []}\n");
    assertThatThrownBy(() -> SessionTrace.readJsonl(f)).hasMessageContaining("line 1: 'turns' must be a non-empty array");
    Files.writeString(f, "{\"turns\": [{\"steps\": [{\"tool\": \"t\"}]}]}\n");
    assertThatThrownBy(() -> SessionTrace.readJsonl(f)).hasMessageContaining("needs 'message' or 'input_tokens'");
    Files.writeString(f, "");
    assertThatThrownBy(() -> SessionTrace.readJsonl(f)).hasMessageContaining("has no sessions");
  }

  @Test
  void shareGptHumanMessagesBecomeTurnsAskingForTheRepliesLength(@TempDir Path dir) throws IOException {
    Path f = dir.resolve("sharegpt.json");
    Files.writeString(f, """
        [{"id": "c1", "conversations": [
           {"from": "human", "value": "What is a KV cache?"},
           {"from": "gpt", "value": "It keeps attention keys and values of earlier tokens."},
           {"from": "human", "value": "Why does it help?"},
           {"from": "gpt", "value": "Prefill is skipped."}]},
         {"id": "c2", "conversations": [{"from": "gpt", "value": "orphan"}]}]
        """);
    SessionTrace t = SessionTrace.shareGpt(f, TokenCounter.estimate());
    assertThat(t.sessions()).hasSize(1);
    Session c1 = t.sessions().get(0);
    assertThat(c1.id()).isEqualTo("c1");
    assertThat(c1.turns()).extracting(Turn::message).containsExactly("What is a KV cache?", "Why does it help?");
    assertThat(c1.turns().get(0).maxTokens()).hasValue(TokenCounter.estimate().count(
        "It keeps attention keys and values of earlier tokens."));
  }
}
