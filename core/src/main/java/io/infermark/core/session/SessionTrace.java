package io.infermark.core.session;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.load.ArrivalProcess;
import io.infermark.core.load.Randoms;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.core.workload.SyntheticText;
import io.infermark.core.workload.Trace;
import io.infermark.core.workload.TraceEntry;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Sessions read from a file, in time order of their starts: infermark's own session-trace format
 * ({@link #readJsonl(Path)}, documented in {@code docs/sessions.md}), Mooncake-style request traces grouped
 * into sessions by their prefix-block hashes ({@link #mooncake(Trace)}), or ShareGPT multi-turn
 * conversations ({@link #shareGpt(Path, TokenCounter)}). A {@link SessionSource} (session {@code i} is the {@code i}-th to
 * start) with {@link #arrivals(double)} replaying the starts.
 *
 * <p>The infermark format: one JSON object per line (or one JSON array of them), each a session:
 *
 * <pre>{@code
 * {"id": "s1", "start_ms": 0, "turns": [
 *   {"message": "Find flights to Lisbon", "output_tokens": 64, "think_ms": 0,
 *    "steps": [{"tool": "search", "latency_ms": 180, "failure_probability": 0.01, "result_tokens": 120},
 *              {"fan_out": 3, "task_tokens": 48, "output_tokens": 32}]},
 *   {"input_tokens": 40, "at_ms": 9000}]}
 * }</pre>
 *
 * <p>A turn has {@code message} (its text) or {@code input_tokens} (synthetic text of that length); optional
 * {@code output_tokens} (asked for exactly), {@code think_ms} (think time before it), {@code at_ms} (not
 * before this offset from the session's start) and {@code steps}. A session's {@code id} defaults to its
 * line number and {@code start_ms} to 0.
 */
public final class SessionTrace implements SessionSource {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<Session> sessions;
  private final String source;

  private SessionTrace(List<Session> sessions, String source) {
    if (sessions.isEmpty()) {
      throw new IllegalArgumentException(source + " has no sessions");
    }
    List<Session> sorted = new ArrayList<>(sessions);
    sorted.sort(Comparator.comparing(s -> s.start().orElse(Duration.ZERO)));
    this.sessions = List.copyOf(sorted);
    this.source = source;
  }

  /** Sessions given in code. */
  public static SessionTrace of(List<Session> sessions) {
    return new SessionTrace(List.copyOf(sessions), "the session list");
  }

  /** Reads infermark session-trace JSONL (or a JSON array of sessions) with the estimate counter, seed 0. */
  public static SessionTrace readJsonl(Path path) {
    return readJsonl(path, TokenCounter.estimate(), 0);
  }

  /**
   * Reads infermark session-trace JSONL (or a JSON array); {@code counter} sizes {@code input_tokens} turns,
   * whose text is seeded by {@code seed}.
   *
   * @throws IllegalArgumentException naming the line and field of anything malformed
   * @throws UncheckedIOException if the file cannot be read
   */
  public static SessionTrace readJsonl(Path path, TokenCounter counter, long seed) {
    try {
      return parse(Files.readString(path, StandardCharsets.UTF_8), path.toString(), counter, seed);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read session trace " + path + ": " + e.getMessage(), e);
    }
  }

  /** Parses infermark session-trace text (JSONL or a JSON array); {@code source} names it in errors. */
  public static SessionTrace parse(String text, String source, TokenCounter counter, long seed) {
    Objects.requireNonNull(counter, "counter");
    List<Session> sessions = new ArrayList<>();
    String trimmed = text.stripLeading();
    try {
      if (trimmed.startsWith("[")) {
        JsonNode array = JSON.readTree(trimmed);
        for (int i = 0; i < array.size(); i++) {
          sessions.add(session(array.get(i), source + " element " + (i + 1), Integer.toString(i + 1), counter, seed));
        }
      } else {
        BufferedReader in = new BufferedReader(new StringReader(text));
        String line;
        int number = 0;
        while ((line = in.readLine()) != null) {
          number++;
          if (line.isBlank()) {
            continue;
          }
          JsonNode n;
          try {
            n = JSON.readTree(line);
          } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalArgumentException(source + " line " + number + " is not valid JSON: "
                + e.getOriginalMessage());
          }
          sessions.add(session(n, source + " line " + number, Integer.toString(number), counter, seed));
        }
      }
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(source + " is not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new SessionTrace(sessions, source);
  }

  private static Session session(JsonNode n, String where, String defaultId, TokenCounter counter, long seed) {
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException(where + " is not a JSON object");
    }
    String id = n.hasNonNull("id") ? n.get("id").asText() : defaultId;
    JsonNode turns = n.get("turns");
    if (turns == null || !turns.isArray() || turns.isEmpty()) {
      throw new IllegalArgumentException(where + ": 'turns' must be a non-empty array");
    }
    List<Turn> list = new ArrayList<>();
    for (int t = 0; t < turns.size(); t++) {
      list.add(turn(turns.get(t), where + " turn " + (t + 1), counter, Randoms.mix(seed, (id.hashCode() * 131L) + t)));
    }
    Session s = Session.of(id, list);
    OptionalLong start = optionalLong(n, "start_ms", where);
    return start.isPresent() ? s.startingAt(Duration.ofMillis(start.getAsLong())) : s;
  }

  private static Turn turn(JsonNode n, String where, TokenCounter counter, long seed) {
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException(where + " is not a JSON object");
    }
    String message;
    if (n.hasNonNull("message")) {
      message = n.get("message").asText();
    } else {
      OptionalLong tokens = optionalLong(n, "input_tokens", where);
      if (tokens.isEmpty() || tokens.getAsLong() < 1) {
        throw new IllegalArgumentException(where + ": a turn needs 'message' or 'input_tokens' >= 1");
      }
      message = SyntheticText.exactly(counter, (int) tokens.getAsLong(), seed);
    }
    Turn.Builder b = Turn.builder(message);
    OptionalLong out = optionalLong(n, "output_tokens", where);
    if (out.isPresent()) {
      b.maxTokens(positive(out.getAsLong(), where, "output_tokens"));
    }
    OptionalLong think = optionalLong(n, "think_ms", where);
    if (think.isPresent()) {
      b.thinkBefore(Latency.fixed(Duration.ofMillis(nonNegative(think.getAsLong(), where, "think_ms"))));
    }
    OptionalLong at = optionalLong(n, "at_ms", where);
    if (at.isPresent()) {
      b.notBefore(Duration.ofMillis(nonNegative(at.getAsLong(), where, "at_ms")));
    }
    JsonNode steps = n.get("steps");
    if (steps != null && !steps.isNull()) {
      if (!steps.isArray()) {
        throw new IllegalArgumentException(where + ": 'steps' must be an array");
      }
      for (int i = 0; i < steps.size(); i++) {
        b.step(step(steps.get(i), where + " step " + (i + 1)));
      }
    }
    return b.build();
  }

  private static Step step(JsonNode n, String where) {
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException(where + " is not a JSON object");
    }
    try {
      if (n.hasNonNull("tool")) {
        long latency = nonNegative(optionalLong(n, "latency_ms", where).orElse(0), where, "latency_ms");
        double p = n.hasNonNull("failure_probability") ? n.get("failure_probability").asDouble() : 0;
        int result = (int) nonNegative(optionalLong(n, "result_tokens", where).orElse(32), where, "result_tokens");
        return new ToolCall(n.get("tool").asText(), Latency.fixed(Duration.ofMillis(latency)), p, result);
      }
      if (n.hasNonNull("fan_out")) {
        int branches = positive(optionalLong(n, "fan_out", where).orElse(0), where, "fan_out");
        int task = positive(optionalLong(n, "task_tokens", where).orElse(64), where, "task_tokens");
        OptionalLong out = optionalLong(n, "output_tokens", where);
        return new FanOut(branches, task, out.isPresent() ? OptionalInt.of(positive(out.getAsLong(), where,
            "output_tokens")) : OptionalInt.empty());
      }
    } catch (IllegalArgumentException e) {
      throw e.getMessage().startsWith(where) ? e : new IllegalArgumentException(where + ": " + e.getMessage());
    }
    throw new IllegalArgumentException(where + ": a step needs 'tool' or 'fan_out'");
  }

  private static OptionalLong optionalLong(JsonNode n, String field, String where) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return OptionalLong.empty();
    }
    if (!v.canConvertToLong() || !v.isIntegralNumber()) {
      throw new IllegalArgumentException(where + ": '" + field + "' must be an integer, was " + v);
    }
    return OptionalLong.of(v.asLong());
  }

  private static int positive(long v, String where, String field) {
    if (v < 1 || v > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(where + ": '" + field + "' must be >= 1, was " + v);
    }
    return (int) v;
  }

  private static long nonNegative(long v, String where, String field) {
    if (v < 0) {
      throw new IllegalArgumentException(where + ": '" + field + "' must be >= 0, was " + v);
    }
    return v;
  }

  /**
   * Groups a Mooncake-style trace into sessions. A request continues the session of an earlier request when
   * that request's full blocks (every hash id but its last, at least two) are a prefix of its own hash ids,
   * the longest such prefix winning; otherwise it starts a session. Each request becomes a turn sent at its
   * timestamp's offset from its session's first (never before the previous turn ended) and asking for its
   * output length exactly. A session's first turn is the request's whole input built from its hash blocks
   * (block {@code j} of {@link Trace#blockTokens()} words is the text of hash id {@code j}'s stream: the same
   * id, the same text, so sessions share real prefixes); a later turn's new message is the input the trace
   * adds beyond the previous turn's input and output, taken from the request's blocks past their shared
   * prefix, since the session's history already holds the rest.
   */
  public static SessionTrace mooncake(Trace trace) {
    return mooncake(trace, 0);
  }

  /** {@link #mooncake(Trace)} with the block text seeded by {@code seed} (the trace's own workload uses its seed). */
  public static SessionTrace mooncake(Trace trace, long seed) {
    List<TraceEntry> entries = trace.entries();
    int blockTokens = trace.blockTokens();
    long first = entries.get(0).timestampMs();
    Map<List<Long>, Integer> frontier = new HashMap<>();
    List<List<TraceEntry>> groups = new ArrayList<>();
    List<Integer> sharedBlocks = new ArrayList<>();
    for (TraceEntry e : entries) {
      List<Long> ids = e.hashIds();
      int group = -1;
      int shared = 0;
      for (int p = ids.size() - 1; p >= 2 && group < 0; p--) {
        Integer g = frontier.get(ids.subList(0, p));
        if (g != null) {
          group = g;
          shared = p;
        }
      }
      if (group < 0) {
        group = groups.size();
        groups.add(new ArrayList<>());
      } else {
        List<TraceEntry> previous = groups.get(group);
        frontier.remove(previous.get(previous.size() - 1).hashIds().subList(0,
            previous.get(previous.size() - 1).hashIds().size() - 1));
      }
      groups.get(group).add(e);
      sharedBlocks.add(shared);
      if (ids.size() >= 3) {
        frontier.put(List.copyOf(ids.subList(0, ids.size() - 1)), group);
      }
    }
    Map<TraceEntry, Integer> sharedOf = new HashMap<>();
    for (int i = 0; i < entries.size(); i++) {
      sharedOf.put(entries.get(i), sharedBlocks.get(i));
    }
    List<Session> sessions = new ArrayList<>();
    for (List<TraceEntry> g : groups) {
      TraceEntry head = g.get(0);
      List<Turn> turns = new ArrayList<>();
      for (int k = 0; k < g.size(); k++) {
        TraceEntry e = g.get(k);
        String text;
        if (k == 0) {
          text = blocks(e, 0, e.inputLength(), blockTokens, seed);
        } else {
          TraceEntry prev = g.get(k - 1);
          int fresh = Math.max(1, e.inputLength() - prev.inputLength() - prev.outputLength());
          text = blocks(e, sharedOf.get(e), fresh, blockTokens, seed);
        }
        turns.add(Turn.builder(text).maxTokens(Math.max(1, e.outputLength()))
            .notBefore(Duration.ofMillis(e.timestampMs() - head.timestampMs()))
            .tag(io.infermark.core.workload.WorkloadTags.TRACE_LINE, Integer.toString(e.line())).build());
      }
      sessions.add(new Session("m" + head.line(), turns, java.util.Optional.of(Duration.ofMillis(
          head.timestampMs() - first))));
    }
    return new SessionTrace(sessions, "mooncake trace");
  }

  /** {@code tokens} words of an entry's blocks from block {@code from} on, as {@link Trace#prompt} builds them. */
  private static String blocks(TraceEntry e, int from, int tokens, int blockTokens, long seed) {
    StringBuilder text = new StringBuilder();
    int left = tokens;
    for (int block = from; left > 0; block++) {
      int n = Math.min(blockTokens, left);
      long stream = block < e.hashIds().size() ? Randoms.mix(seed, e.hashIds().get(block))
          : Randoms.mix(seed ^ 0x7E1EL, ((long) e.line() << 20) + block);
      if (text.length() > 0) {
        text.append(' ');
      }
      text.append(SyntheticText.words(stream, n));
      left -= n;
    }
    return text.toString();
  }

  /**
   * Reads ShareGPT conversations (a JSON array of {@code {"id", "conversations": [{"from", "value"}]}}): each
   * {@code human} (or {@code user}) message is a turn's message, asking for as many output tokens as the
   * {@code gpt} reply after it has by {@code counter}; conversations without a human message are skipped.
   */
  public static SessionTrace shareGpt(Path path, TokenCounter counter) {
    JsonNode root;
    try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      root = JSON.readTree(r);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(path + " is not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + path + ": " + e.getMessage(), e);
    }
    if (root == null || !root.isArray()) {
      throw new IllegalArgumentException(path + " is not a ShareGPT file: expected a JSON array of conversations");
    }
    List<Session> sessions = new ArrayList<>();
    for (int i = 0; i < root.size(); i++) {
      JsonNode c = root.get(i);
      JsonNode messages = c.get("conversations");
      if (messages == null || !messages.isArray()) {
        throw new IllegalArgumentException(path + " conversation " + (i + 1) + ": 'conversations' must be an array");
      }
      List<Turn> turns = new ArrayList<>();
      for (int m = 0; m < messages.size(); m++) {
        String from = messages.get(m).path("from").asText("");
        if (!from.equals("human") && !from.equals("user")) {
          continue;
        }
        Turn.Builder b = Turn.builder(messages.get(m).path("value").asText(""));
        if (m + 1 < messages.size() && Arrays.asList("gpt", "assistant", "chatgpt", "bard")
            .contains(messages.get(m + 1).path("from").asText(""))) {
          b.maxTokens(Math.max(1, counter.count(messages.get(m + 1).path("value").asText(""))));
        }
        turns.add(b.build());
      }
      if (!turns.isEmpty()) {
        sessions.add(Session.of(c.hasNonNull("id") ? c.get("id").asText() : Integer.toString(i + 1), turns));
      }
    }
    return new SessionTrace(sessions, path.toString());
  }

  /** The sessions, in order of their starts. */
  public List<Session> sessions() {
    return sessions;
  }

  @Override
  public Session session(long index) {
    return sessions.get((int) (index % sessions.size()));
  }

  @Override
  public OptionalLong size() {
    return OptionalLong.of(sessions.size());
  }

  @Override
  public int maxParallelCalls() {
    return sessions.stream().flatMap(s -> s.turns().stream()).flatMap(t -> t.steps().stream())
        .mapToInt(s -> s instanceof FanOut f ? f.branches() : 1).max().orElse(1);
  }

  /** Total turns over every session. */
  public long turns() {
    return sessions.stream().mapToLong(s -> s.turns().size()).sum();
  }

  /** Session {@code i} arrives at its start divided by {@code speed} (sessions without a start at 0). */
  public ArrivalProcess arrivals(double speed) {
    if (!(speed > 0) || Double.isInfinite(speed)) {
      throw new IllegalArgumentException("speed must be finite and > 0, was " + speed);
    }
    long[] starts = sessions.stream().mapToLong(s -> s.start().orElse(Duration.ZERO).toNanos()).toArray();
    return new ArrivalProcess() {
      @Override
      public long[] schedule(int maxCount, long limitNanos, long ignoredSeed) {
        int n = Math.min(maxCount, starts.length);
        int count = 0;
        long[] t = new long[n];
        for (int i = 0; i < n; i++) {
          long at = Math.round(starts[i] / speed);
          if (at >= limitNanos) {
            break;
          }
          t[count++] = at;
        }
        return count == n ? t : Arrays.copyOf(t, count);
      }

      @Override
      public OptionalDouble nominalRate() {
        long span = starts[starts.length - 1] - starts[0];
        return span <= 0 ? OptionalDouble.empty() : OptionalDouble.of((starts.length - 1) * 1e9 / span * speed);
      }

      @Override
      public String toString() {
        return String.format(Locale.ROOT, "session starts(%d sessions, speed %s)", starts.length, speed);
      }
    };
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "SessionTrace[%s: %d sessions, %d turns]", source, sessions.size(), turns());
  }
}
