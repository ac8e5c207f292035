package io.infermark.cli;

import io.infermark.core.load.LoadProfile;
import io.infermark.core.session.FanOut;
import io.infermark.core.session.Latency;
import io.infermark.core.session.RetryPolicy;
import io.infermark.core.session.SessionSource;
import io.infermark.core.session.SessionTrace;
import io.infermark.core.session.SessionWorkload;
import io.infermark.core.session.SyntheticSessions;
import io.infermark.core.session.ToolCall;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.core.workload.Trace;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Option;

/**
 * Session workloads for {@code bench} (docs/sessions.md): sessions from a trace ({@code --session-trace}: the
 * infermark session format, Mooncake traces or ShareGPT conversations) or the synthetic agent dataset
 * ({@code --session-dataset agent}), run as {@code --sessions N} concurrent sessions or an open loop of
 * {@code --session-rate} session arrivals (or a trace's own starts, {@code --session-replay-speed}).
 */
final class SessionOptions {

  @Option(names = "--session-trace", paramLabel = "FILE",
      description = "Run sessions from FILE: infermark session JSONL, a Mooncake trace or ShareGPT JSON (see "
          + "--session-format).")
  Path sessionTrace;

  @Option(names = "--session-format", paramLabel = "FORMAT", defaultValue = "auto",
      description = "Format of --session-trace: auto, infermark, mooncake, sharegpt (default: ${DEFAULT-VALUE}).")
  String sessionFormat;

  @Option(names = "--session-dataset", paramLabel = "NAME",
      description = "A generated sessions dataset: agent (--session-turns turns, tools, fan-out).")
  String sessionDataset;

  @Option(names = "--session-turns", defaultValue = "5", description = "Turns per agent session (default: ${DEFAULT-VALUE}).")
  int turns;

  @Option(names = "--session-user-tokens", defaultValue = "128",
      description = "New user tokens per agent turn (default: ${DEFAULT-VALUE}).")
  int userTokens;

  @Option(names = "--session-output-tokens", paramLabel = "N",
      description = "Output tokens every agent call asks for exactly (default: the run's parameters).")
  Integer outputTokens;

  @Option(names = "--tool-latency-ms", paramLabel = "MS",
      description = "Each agent turn calls a tool taking MS (log-normal median, sigma 0.5) before its second call.")
  Double toolLatencyMs;

  @Option(names = "--tool-failure-probability", defaultValue = "0",
      description = "Chance one tool attempt fails (default: ${DEFAULT-VALUE}).")
  double toolFailure;

  @Option(names = "--fan-out", paramLabel = "N", defaultValue = "0",
      description = "Each agent turn fans out to N parallel sub-agent calls and joins them (default: none).")
  int fanOut;

  @Option(names = "--planted-fact-at", paramLabel = "TURN", split = ",",
      description = "Plant a fact at turn 0 and ask for it at these turns (memory decay), e.g. 4 or 2,4.")
  List<Integer> probeTurns = new ArrayList<>();

  @Option(names = "--sessions", paramLabel = "N", description = "Concurrent sessions (a closed loop of sessions).")
  Integer concurrent;

  @Option(names = "--session-rate", paramLabel = "PER_S", description = "Session arrivals per second, Poisson.")
  Double rate;

  @Option(names = "--session-replay-speed", paramLabel = "X",
      description = "Start the trace's sessions at their own times divided by X.")
  Double replaySpeed;

  @Option(names = "--max-sessions", paramLabel = "N",
      description = "Start at most N sessions (default: a trace's sessions, or 100 generated ones).")
  Long maxSessions;

  @Option(names = "--session-max-attempts", defaultValue = "1",
      description = "Attempts per failed call or tool (default: ${DEFAULT-VALUE}: no retries).")
  int maxAttempts;

  @Option(names = "--session-retry-backoff-ms", defaultValue = "100",
      description = "Backoff before a retry, doubling each time (default: ${DEFAULT-VALUE}).")
  long backoffMs;

  @Option(names = "--session-think-ms", defaultValue = "0",
      description = "Think time before each turn after the first, exponential with this mean (default: ${DEFAULT-VALUE}).")
  long thinkMs;

  /** True when the run is a session workload. */
  boolean given() {
    return sessionTrace != null || sessionDataset != null;
  }

  /** A line describing the sessions and their load. */
  String describe() {
    String what = sessionTrace != null ? "sessions from " + sessionTrace : sessionDataset + " sessions";
    String load = concurrent != null ? concurrent + " concurrent sessions"
        : rate != null ? rate + " session arrivals/s" : "the trace's session starts x" + replaySpeed;
    return what + ", " + load;
  }

  /**
   * The workload: sessions from the trace or dataset, the retry policy, think time and session limit.
   *
   * @throws IllegalArgumentException naming the flag that is wrong
   */
  SessionWorkload workload(TokenCounter counter, long seed) {
    if (sessionTrace != null && sessionDataset != null) {
      throw new IllegalArgumentException("give --session-trace or --session-dataset, not both");
    }
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("--session-max-attempts must be >= 1, was " + maxAttempts);
    }
    SessionSource source = sessionTrace != null ? trace(counter, seed) : dataset(counter, seed);
    SessionWorkload.Builder b = SessionWorkload.builder(source).counter(counter).seed(seed)
        .retry(maxAttempts == 1 ? RetryPolicy.none() : RetryPolicy.exponential(maxAttempts,
            Duration.ofMillis(backoffMs), 2, Duration.ofMillis(backoffMs).multipliedBy(64)));
    if (thinkMs < 0) {
      throw new IllegalArgumentException("--session-think-ms must be >= 0, was " + thinkMs);
    }
    if (thinkMs > 0) {
      b.thinkTime(Latency.exponential(Duration.ofMillis(thinkMs)));
    }
    if (maxSessions != null) {
      b.maxSessions(maxSessions);
    } else if (source.size().isEmpty()) {
      b.maxSessions(100);
    }
    return b.build();
  }

  /**
   * The load: concurrent sessions, session arrivals or the trace's starts; {@code calls} bounds the requests.
   *
   * @throws IllegalArgumentException when none or several are given
   */
  LoadProfile load(SessionWorkload workload, int calls, long seed) {
    int given = (concurrent != null ? 1 : 0) + (rate != null ? 1 : 0) + (replaySpeed != null ? 1 : 0);
    if (given != 1) {
      throw new IllegalArgumentException("a session run needs exactly one of --sessions N, --session-rate PER_S or "
          + "--session-replay-speed X");
    }
    LoadProfile p;
    if (concurrent != null) {
      if (concurrent < 1) {
        throw new IllegalArgumentException("--sessions must be >= 1, was " + concurrent);
      }
      p = LoadProfile.concurrency(concurrent);
    } else if (rate != null) {
      if (!(rate > 0) || rate.isInfinite()) {
        throw new IllegalArgumentException("--session-rate must be finite and > 0, was " + rate);
      }
      p = LoadProfile.poisson(rate);
    } else {
      if (!(workload.source() instanceof SessionTrace t)) {
        throw new IllegalArgumentException("--session-replay-speed replays a --session-trace's starts");
      }
      p = LoadProfile.arrivals(t.arrivals(replaySpeed));
    }
    return p.requests(calls).seed(seed);
  }

  private SessionSource dataset(TokenCounter counter, long seed) {
    if (!"agent".equals(sessionDataset)) {
      throw new IllegalArgumentException("--session-dataset must be agent, was '" + sessionDataset + "'");
    }
    SyntheticSessions.Builder b = SyntheticSessions.builder().turns(turns).userTokens(userTokens).counter(counter)
        .seed(seed);
    if (outputTokens != null) {
      b.maxTokens(outputTokens);
    }
    if (toolLatencyMs != null) {
      if (!(toolLatencyMs >= 0)) {
        throw new IllegalArgumentException("--tool-latency-ms must be >= 0, was " + toolLatencyMs);
      }
      b.tool(ToolCall.of("tool", Latency.logNormal(Duration.ofNanos(Math.round(toolLatencyMs * 1e6)), 0.5))
          .failing(toolFailure));
    }
    if (fanOut < 0) {
      throw new IllegalArgumentException("--fan-out must be >= 0, was " + fanOut);
    }
    if (fanOut > 0) {
      b.fanOut(outputTokens != null ? FanOut.of(fanOut).maxTokens(outputTokens) : FanOut.of(fanOut));
    }
    if (!probeTurns.isEmpty()) {
      b.plantedFact(probeTurns.stream().mapToInt(Integer::intValue).toArray());
    }
    return b.build();
  }

  private SessionTrace trace(TokenCounter counter, long seed) {
    if (!Files.isRegularFile(sessionTrace)) {
      throw new IllegalArgumentException("--session-trace " + sessionTrace + " is not a readable file");
    }
    String format = sessionFormat.toLowerCase(Locale.ROOT);
    if (format.equals("auto")) {
      format = detect(sessionTrace);
    }
    switch (format) {
      case "infermark":
        return SessionTrace.readJsonl(sessionTrace, counter, seed);
      case "mooncake":
        return SessionTrace.mooncake(Trace.readJsonl(sessionTrace), seed);
      case "sharegpt":
        return SessionTrace.shareGpt(sessionTrace, counter);
      default:
        throw new IllegalArgumentException("--session-format must be auto, infermark, mooncake or sharegpt, was '"
            + sessionFormat + "'");
    }
  }

  /** sharegpt for a JSON array of conversations, mooncake for JSONL of hash_ids/input_length, else infermark. */
  static String detect(Path file) {
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      while ((line = in.readLine()) != null) {
        String s = line.strip();
        if (s.isEmpty()) {
          continue;
        }
        if (s.startsWith("[")) {
          char[] head = new char[4096];
          int n = in.read(head);
          String start = s + (n > 0 ? new String(head, 0, n) : "");
          return start.contains("\"conversations\"") ? "sharegpt" : "infermark";
        }
        return s.contains("\"input_length\"") || s.contains("\"hash_ids\"") ? "mooncake" : "infermark";
      }
      return "infermark";
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read --session-trace " + file + ": " + e.getMessage(), e);
    }
  }
}
