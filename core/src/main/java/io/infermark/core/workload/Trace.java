package io.infermark.core.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.load.ArrivalProcess;
import io.infermark.core.load.Randoms;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * A timestamped request trace to replay: Mooncake-style JSONL, one object per line with
 * {@code timestamp} (ms), {@code input_length}, {@code output_length} and optional
 * {@code hash_ids}.
 *
 * <pre>{@code
 * Trace trace = Trace.readJsonl(Path.of("mooncake_trace.jsonl"));
 * Benchmark.target(t).workload(trace.workload())
 *     .load(LoadProfile.arrivals(trace.arrivals(2.0)).requests(trace.size())).run();   // twice as fast
 * }</pre>
 *
 * <p>{@link #arrivals(double)} sends entry {@code i} at {@code (timestampᵢ − timestamp₀) / speed}.
 * {@link #workload()} builds entry {@code i}'s prompt from its hash blocks: block {@code j} of
 * {@link #blockTokens()} tokens (512, Mooncake's block size) is the synthetic text of the stream
 * seeded by its hash id, so entries sharing a hash id share that text (and, from the first block on,
 * a prefix the server can cache); the last block is cut to the input length, and blocks beyond the
 * listed ids are text unique to the entry. Requests ask for exactly {@code output_length} tokens
 * ({@code max_tokens} with {@code ignore_eos}). Request {@code i} replays entry {@code i mod size}.
 */
public final class Trace {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<TraceEntry> entries;
  private final int blockTokens;
  private final TokenCounter counter;
  private final long seed;

  private Trace(List<TraceEntry> entries, int blockTokens, TokenCounter counter, long seed) {
    this.entries = entries;
    this.blockTokens = blockTokens;
    this.counter = counter;
    this.seed = seed;
  }

  /**
   * Reads a JSONL trace file.
   *
   * @throws IllegalArgumentException for an empty trace, a malformed line, a missing field or a
   *     timestamp earlier than the one before it (the message names the line)
   * @throws UncheckedIOException if the file cannot be read
   */
  public static Trace readJsonl(Path path) {
    try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      return parse(r, path.toString());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read trace " + path, e);
    }
  }

  /** Parses JSONL from a reader; {@code source} names it in error messages. */
  public static Trace parse(Reader reader, String source) {
    List<TraceEntry> entries = new ArrayList<>();
    BufferedReader in = reader instanceof BufferedReader b ? b : new BufferedReader(reader);
    try {
      String line;
      int number = 0;
      long previous = Long.MIN_VALUE;
      while ((line = in.readLine()) != null) {
        number++;
        if (line.isBlank()) {
          continue;
        }
        TraceEntry e = entry(line, number, source);
        if (e.timestampMs() < previous) {
          throw new IllegalArgumentException(source + " line " + number + ": timestamp " + e.timestampMs()
              + " is earlier than the previous line's " + previous + "; a trace must be in time order");
        }
        previous = e.timestampMs();
        entries.add(e);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read trace " + source, e);
    }
    return of(entries, source);
  }

  /**
   * A trace of the given entries, in time order.
   *
   * @throws IllegalArgumentException if there are none or timestamps decrease
   */
  public static Trace of(List<TraceEntry> entries) {
    for (int i = 1; i < entries.size(); i++) {
      if (entries.get(i).timestampMs() < entries.get(i - 1).timestampMs()) {
        throw new IllegalArgumentException("trace entry " + i + " (line " + entries.get(i).line() + ") has timestamp "
            + entries.get(i).timestampMs() + ", earlier than the one before it; a trace must be in time order");
      }
    }
    return of(entries, "the trace");
  }

  private static Trace of(List<TraceEntry> entries, String source) {
    if (entries.isEmpty()) {
      throw new IllegalArgumentException(source + " has no requests");
    }
    return new Trace(List.copyOf(entries), 512, TokenCounter.estimate(), 0);
  }

  private static TraceEntry entry(String line, int number, String source) {
    JsonNode n;
    try {
      n = JSON.readTree(line);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(source + " line " + number + " is not valid JSON: " + e.getOriginalMessage());
    }
    if (n == null || !n.isObject()) {
      throw new IllegalArgumentException(source + " line " + number + " is not a JSON object");
    }
    List<Long> ids = new ArrayList<>();
    JsonNode hash = n.get("hash_ids");
    if (hash != null && !hash.isNull()) {
      if (!hash.isArray()) {
        throw new IllegalArgumentException(source + " line " + number + ": hash_ids must be an array of integers");
      }
      for (JsonNode id : hash) {
        if (!id.canConvertToLong()) {
          throw new IllegalArgumentException(source + " line " + number + ": hash id " + id + " is not an integer");
        }
        ids.add(id.asLong());
      }
    }
    try {
      return new TraceEntry(number(n, "timestamp", number, source), (int) number(n, "input_length", number, source),
          (int) number(n, "output_length", number, source), ids, number);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(source + " " + e.getMessage());
    }
  }

  private static long number(JsonNode n, String field, int line, String source) {
    JsonNode v = n.get(field);
    if (v == null || !v.canConvertToLong()) {
      throw new IllegalArgumentException(source + " line " + line + ": '" + field + "' is missing or not an integer");
    }
    return v.asLong();
  }

  /** The same trace with another block size (tokens per hash id, default 512). */
  public Trace blockTokens(int tokens) {
    if (tokens < 1) {
      throw new IllegalArgumentException("blockTokens must be >= 1, was " + tokens);
    }
    return new Trace(entries, tokens, counter, seed);
  }

  /** The same trace whose prompts' achieved length is counted with {@code counter} (default the estimate). */
  public Trace counter(TokenCounter counter) {
    return new Trace(entries, blockTokens, Objects.requireNonNull(counter, "counter"), seed);
  }

  /** The same trace with another text seed (default 0): other words, the same sharing. */
  public Trace seed(long seed) {
    return new Trace(entries, blockTokens, counter, seed);
  }

  /** Tokens per hash block. */
  public int blockTokens() {
    return blockTokens;
  }

  /** The entries, in time order. */
  public List<TraceEntry> entries() {
    return entries;
  }

  /** Number of entries. */
  public int size() {
    return entries.size();
  }

  /**
   * Arrivals at the trace's timestamps relative to the first, divided by {@code speed}
   * (2 = twice as fast); the seed is not used.
   *
   * @throws IllegalArgumentException unless speed is finite and > 0
   */
  public ArrivalProcess arrivals(double speed) {
    if (!(speed > 0) || Double.isInfinite(speed)) {
      throw new IllegalArgumentException("speed must be finite and > 0, was " + speed);
    }
    long first = entries.get(0).timestampMs();
    return new ArrivalProcess() {
      @Override
      public long[] schedule(int maxCount, long limitNanos, long ignoredSeed) {
        int n = Math.min(maxCount, entries.size());
        long[] t = new long[n];
        int count = 0;
        for (int i = 0; i < n; i++) {
          long at = Math.round((entries.get(i).timestampMs() - first) * 1e6 / speed);
          if (at >= limitNanos) {
            break;
          }
          t[count++] = at;
        }
        return count == n ? t : java.util.Arrays.copyOf(t, count);
      }

      @Override
      public OptionalDouble nominalRate() {
        long span = entries.get(entries.size() - 1).timestampMs() - first;
        return span <= 0 ? OptionalDouble.empty() : OptionalDouble.of((entries.size() - 1) * 1000.0 / span * speed);
      }

      @Override
      public String toString() {
        return String.format(Locale.ROOT, "trace(%d requests, speed %s)", entries.size(), speed);
      }
    };
  }

  /** The workload replaying each entry's input (by hash blocks) and output length. */
  public Workload workload() {
    return new Workload() {
      @Override
      public RequestSpec request(long index, long intendedNanos, GenerationParams defaults) {
        TraceEntry e = entries.get((int) (index % entries.size()));
        Prompt p = prompt(e).withTag(WorkloadTags.OUTPUT_TOKENS_REQUESTED, Integer.toString(e.outputLength()))
            .withTag(WorkloadTags.TRACE_LINE, Integer.toString(e.line()));
        return new RequestSpec(p, RequestSpec.exactOutput(defaults, e.outputLength()));
      }

      @Override
      public int distinctPrompts() {
        return entries.size();
      }

      @Override
      public String toString() {
        return "trace prompts(" + entries.size() + " requests, " + blockTokens + "-token blocks)";
      }
    };
  }

  /** The prompt of an entry: its hash blocks' text, cut to its input length. */
  public Prompt prompt(TraceEntry e) {
    StringBuilder text = new StringBuilder();
    int left = e.inputLength();
    for (int block = 0; left > 0; block++) {
      int tokens = Math.min(blockTokens, left);
      long stream = block < e.hashIds().size() ? Randoms.mix(seed, e.hashIds().get(block))
          : Randoms.mix(seed ^ 0x7E1EL, ((long) e.line() << 20) + block); // no id: text of this entry only
      SyntheticText.appendWords(text, stream, 0, tokens);
      left -= tokens;
    }
    return ExactLength.tag(Prompt.user(text.toString()), counter, e.inputLength());
  }

  @Override
  public String toString() {
    return "Trace[" + entries.size() + " requests over "
        + (entries.get(entries.size() - 1).timestampMs() - entries.get(0).timestampMs()) + " ms]";
  }
}
