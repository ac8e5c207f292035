// infermark's JShell start-up script: imports and a few helpers for a quick look.
//   jshell --class-path cli/target/infermark.jar infermark.jsh
// Then, against the embedded simulator:
//   var sim = simulator();
//   var run = bench(sim.baseUrl(), sim.config().model(), 50, 8);
//   show(run);
// Continuation lines end with a trailing dot, so every snippet pastes into JShell as it is.

import io.infermark.core.*;
import io.infermark.core.capture.*;
import io.infermark.core.load.*;
import io.infermark.core.request.*;
import io.infermark.core.session.*;
import io.infermark.core.sweep.*;
import io.infermark.core.protocol.*;
import io.infermark.core.workload.*;
import io.infermark.metrics.*;
import io.infermark.metrics.report.*;
import io.infermark.metrics.session.*;
import io.infermark.metrics.slo.*;
import io.infermark.testkit.simulator.*;
import java.nio.file.*;
import java.time.Duration;
import java.util.*;

/** An embedded LLM serving simulator on a free port (an 8B model on one H200); close it when done. */
Simulator simulator() {
    return Simulator.start(SimulatorConfig.builder().port(0).build());
}

/** A chat-completions target; baseUrl like http://127.0.0.1:8000 or .../v1. */
Target chat(String baseUrl, String model) {
    return OpenAiTarget.chat(baseUrl, model).build();
}

/** A closed loop of {@code concurrency} streams sending {@code requests} short chat prompts (64 output tokens). */
RunResult bench(String baseUrl, String model, int requests, int concurrency) {
    try (Target t = chat(baseUrl, model)) {
        return Benchmark.target(t).
            prompts(Prompt.user("Write a haiku about latency.")).
            params(GenerationParams.builder().maxTokens(64).ignoreEos(true).build()).
            load(LoadProfile.concurrency(concurrency).requests(requests)).
            run();
    }
}

/** The run's summary: percentiles, throughput, failures, client health. */
RunSummary summary(RunResult run) {
    return RunSummary.of(run);
}

/** Prints the run's summary table. */
void show(RunResult run) {
    System.out.println(ConsoleTable.render(RunSummary.of(run)));
}

/** P99 of a metric in ms (NaN when no request produced it). */
double p99(RunResult run, LatencyMetric metric) {
    return RunSummary.of(run).distribution(metric).p99().orElse(Double.NaN);
}

/**
 * {@code sessions} agent sessions, {@code concurrent} at a time: 3 turns, each calling a 10 ms tool and fanning
 * out to 2 sub-agents (16 output tokens per call), every turn carrying the session's real history.
 */
RunResult agents(String baseUrl, String model, int sessions, int concurrent) {
    SessionWorkload w = SessionWorkload.builder(SyntheticSessions.builder().turns(3).userTokens(64).maxTokens(16).
            tool(ToolCall.of("search", Latency.fixed(Duration.ofMillis(10)))).fanOut(FanOut.of(2)).build()).
        maxSessions(sessions).build();
    try (Target t = chat(baseUrl, model)) {
        return Benchmark.target(t).workload(w).load(LoadProfile.concurrency(concurrent).duration(Duration.ofMinutes(10))).run();
    }
}

/** Prints a session run's per-session metrics (completion, agent_turn_latency_ms, retries, TTFT by turn). */
void showSessions(RunResult run) {
    RunSummary.of(run).sessions().lines().forEach(System.out::println);
}
