package io.infermark.examples;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.session.FanOut;
import io.infermark.core.session.Latency;
import io.infermark.core.session.RetryPolicy;
import io.infermark.core.session.SessionWorkload;
import io.infermark.core.session.SyntheticSessions;
import io.infermark.core.session.ToolCall;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.session.SessionSummary;
import io.infermark.testkit.simulator.EngineProfile;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;

/**
 * Example 09, agent sessions: load injected at the agent layer as whole sessions, not single requests.
 * Each of 16 concurrent sessions runs 5 turns; a turn sends the session's real history (the server's
 * replies included) plus a new message, calls a client-side tool (log-normal, median 40 ms, failing 2 %
 * of attempts), fans out to 3 sub-agents and joins them when the slowest is done, and retries failed
 * calls up to 3 attempts. A fact planted at turn 0 is asked for at turn 4 (memory decay). The server
 * is the 8B-on-H200 simulator with prefix caching, answering 3 % of requests with HTTP 500.
 *
 * <p>The lesson: per-session metrics say what per-request ones cannot: how many sessions completed
 * every step ({@code tool_chain_completion_rate}), how long an agent turn takes by tool-call depth and
 * retries ({@code agent_turn_latency_ms}), where the session's time went (model, tools, think and
 * backoff), how retries converged, and how TTFT moves as the context grows.
 *
 * <p>Run: {@code E09AgentSessions}.
 */
public final class E09AgentSessions {

  private E09AgentSessions() {}

  /** Runs against the embedded simulator and prints the run's per-session metrics. */
  public static void main(String[] args) {
    SimulatorConfig config = SimulatorConfig.builder().port(0).engine(EngineProfile.llama8bH200())
        .serverErrors(0.03).build();
    try (Simulator simulator = Simulator.start(config)) {
      RunResult run = run(simulator.baseUrl() + "/v1", config.model(), 32);
      SessionSummary sessions = RunSummary.of(run).sessions();
      System.out.println(run.records().size() + " calls");
      sessions.lines().forEach(System.out::println);
    }
  }

  /** The agent workload: 5 turns, a tool, a 3-way fan-out, a planted fact asked for at turn 4. */
  public static SessionWorkload agents(int sessions) {
    SyntheticSessions shape = SyntheticSessions.builder().turns(5).userTokens(96)
        .tool(ToolCall.of("search", Latency.logNormal(Duration.ofMillis(40), 0.5)).failing(0.02).resultTokens(64))
        .fanOut(FanOut.of(3).taskTokens(48).maxTokens(12)).plantedFact(4).seed(9).build();
    return SessionWorkload.builder(shape).retry(RetryPolicy.exponential(3, Duration.ofMillis(20), 2,
        Duration.ofMillis(200))).thinkTime(Latency.exponential(Duration.ofMillis(50))).maxSessions(sessions).seed(9)
        .build();
  }

  /** Runs {@code sessions} agent sessions, 16 at a time, against an OpenAI-compatible {@code /v1} base URL. */
  public static RunResult run(String baseUrl, String model, int sessions) {
    try (OpenAiTarget target = OpenAiTarget.chat(baseUrl, model).build()) {
      return Benchmark.target(target).workload(agents(sessions))
          .params(GenerationParams.builder().maxTokens(24).build())
          .load(LoadProfile.concurrency(16).duration(Duration.ofMinutes(5))).run();
    }
  }
}
