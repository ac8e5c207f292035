package io.infermark.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.load.ArrivalProcess;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.core.workload.DatasetEntry;
import io.infermark.core.workload.Trace;
import io.infermark.core.workload.TraceEntry;
import io.infermark.core.workload.WorkloadTags;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.RandomAccess;

/**
 * vLLM's {@code --dataset-name timed_trace} ({@code TimedTrace} in {@code vllm/benchmarks/datasets}): a JSONL
 * trace, one request a line, with a timestamp, an input and an output length and the hash ids of the prompt's
 * blocks, under the field names the {@code --timed-trace-label-*} flags give. The first {@code --num-prompts}
 * lines are read, in file order; line {@code i} is request {@code i}.
 *
 * <p>Its prompt: block {@code j} of {@code --timed-trace-chunk-hash-size} tokens is the text of hash id {@code j}
 * (infermark's {@link Trace} blocks: the same id gives the same words, a block cut short at the end of the input is
 * the beginning of the id's full block), so requests that share their leading ids share that much of their prompt,
 * and a server's prefix cache sees the prefix. vLLM sends token ids; infermark sends the text. Where the ids cover
 * fewer tokens than the input length vLLM's prompt ends with the ids, infermark's goes on with text of the line's
 * own up to the input length (the run says so). The output length is asked for exactly ({@code max_tokens} with
 * {@code ignore_eos}, as vLLM forces for this dataset).
 *
 * <p>Self-timed (vLLM's default for this dataset): line {@code i} is sent at its timestamp times
 * {@code --timed-trace-sec-multiplier} seconds after the run's start, as vLLM's client sleeps until
 * {@code start + timestamp} (not from the first line's timestamp).
 */
final class VllmTimedTrace {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path file;
  private final List<TraceEntry> entries;
  private final long[] offsetsNanos;
  private final int chunk;
  private final double multiplier;

  private VllmTimedTrace(Path file, List<TraceEntry> entries, long[] offsetsNanos, int chunk, double multiplier) {
    this.file = file;
    this.entries = entries;
    this.offsetsNanos = offsetsNanos;
    this.chunk = chunk;
    this.multiplier = multiplier;
  }

  /**
   * The first {@code limit} lines of {@code file} under the labels, block size and multiplier of {@code o}.
   *
   * @throws IllegalArgumentException (exit 2) naming the line and the flag for a missing or malformed field, a
   *     negative or decreasing timestamp, or a bad flag value
   * @throws CliException (exit 3) when the file cannot be read
   */
  static VllmTimedTrace read(Path file, VllmDatasetOptions o, int limit) {
    if (o.timedTraceChunkHashSize < 1) {
      throw new IllegalArgumentException("--timed-trace-chunk-hash-size must be >= 1, was " + o.timedTraceChunkHashSize);
    }
    if (!(o.timedTraceSecMultiplier > 0) || Double.isInfinite(o.timedTraceSecMultiplier)) {
      throw new IllegalArgumentException("--timed-trace-sec-multiplier must be finite and > 0, was "
          + o.timedTraceSecMultiplier);
    }
    List<TraceEntry> entries = new ArrayList<>();
    List<Long> offsets = new ArrayList<>();
    double previous = 0;
    int previousLine = 0;
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String text;
      int line = 0;
      while (entries.size() < limit && (text = in.readLine()) != null) {
        line++;
        if (text.isBlank()) {
          continue;
        }
        String where = file + " line " + line;
        JsonNode n;
        try {
          n = JSON.readTree(text);
        } catch (IOException e) {
          throw new IllegalArgumentException(where + " is not JSON (timed_trace reads JSONL, one object a line)");
        }
        if (n == null || !n.isObject()) {
          throw new IllegalArgumentException(where + " is not a JSON object (timed_trace reads JSONL, one object a line)");
        }
        double ts = timestamp(field(n, o.timedTraceLabelTimestamp, "--timed-trace-label-timestamp", where), where);
        if (ts < previous) {
          throw new IllegalArgumentException(where + ": timestamp " + number(ts) + " is earlier than line "
              + previousLine + "'s " + number(previous) + "; timed_trace sends the lines in file order at their "
              + "times: sort the trace by timestamp");
        }
        previous = ts;
        previousLine = line;
        int input = length(field(n, o.timedTraceLabelInputLength, "--timed-trace-label-input-length", where),
            o.timedTraceLabelInputLength, where);
        int output = length(field(n, o.timedTraceLabelOutputLength, "--timed-trace-label-output-length", where),
            o.timedTraceLabelOutputLength, where);
        List<Long> ids = hashIds(field(n, o.timedTraceLabelHashIds, "--timed-trace-label-hash-ids", where),
            o.timedTraceLabelHashIds, where);
        double seconds = ts * o.timedTraceSecMultiplier;
        if (!(seconds * 1e9 < Long.MAX_VALUE)) {
          throw new IllegalArgumentException(where + ": timestamp " + number(ts) + " x " + o.timedTraceSecMultiplier
              + " s is beyond any run (check --timed-trace-sec-multiplier)");
        }
        offsets.add(Math.round(seconds * 1e9));
        entries.add(new TraceEntry(Math.round(seconds * 1000), input, output, ids, line));
      }
    } catch (IOException e) {
      throw new CliException(Infermark.FAILED, "cannot read " + file + ": " + e.getMessage());
    }
    if (entries.isEmpty()) {
      throw new IllegalArgumentException(file + " has no trace lines (timed_trace reads JSONL, one object a line)");
    }
    return new VllmTimedTrace(file, List.copyOf(entries), offsets.stream().mapToLong(Long::longValue).toArray(),
        o.timedTraceChunkHashSize, o.timedTraceSecMultiplier);
  }

  private static JsonNode field(JsonNode n, String label, String flag, String where) {
    JsonNode v = n.get(label);
    if (v == null || v.isNull()) {
      List<String> names = new ArrayList<>();
      n.fieldNames().forEachRemaining(names::add);
      throw new IllegalArgumentException(where + " has no field '" + label + "' (fields: " + String.join(", ", names)
          + "); name the field with " + flag);
    }
    return v;
  }

  /** A timestamp: a number, or a string holding one (as vLLM's {@code float()}); finite and >= 0. */
  private static double timestamp(JsonNode v, String where) {
    double ts;
    if (v.isNumber()) {
      ts = v.asDouble();
    } else if (v.isTextual()) {
      try {
        ts = Double.parseDouble(v.asText().strip());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(where + ": timestamp '" + v.asText() + "' is not a number");
      }
    } else {
      throw new IllegalArgumentException(where + ": timestamp " + v + " is not a number");
    }
    if (!Double.isFinite(ts) || ts < 0) {
      throw new IllegalArgumentException(where + ": timestamp " + number(ts) + " is negative or not finite; "
          + "timed_trace sends each line at timestamp x --timed-trace-sec-multiplier seconds after the start");
    }
    return ts;
  }

  private static int length(JsonNode v, String label, String where) {
    if (!v.isNumber() || v.asDouble() != Math.rint(v.asDouble()) || v.asDouble() < 1
        || v.asDouble() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(where + ": '" + label + "' must be a whole number of tokens >= 1, was " + v);
    }
    return v.asInt();
  }

  private static List<Long> hashIds(JsonNode v, String label, String where) {
    if (!v.isArray()) {
      throw new IllegalArgumentException(where + ": '" + label + "' must be a list of integer hash ids, was " + v);
    }
    List<Long> ids = new ArrayList<>(v.size());
    for (JsonNode id : v) {
      if (!id.isIntegralNumber() || !id.canConvertToLong()) {
        throw new IllegalArgumentException(where + ": hash id " + id + " in '" + label + "' is not an integer");
      }
      ids.add(id.asLong());
    }
    return ids;
  }

  private static String number(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : Double.toString(v);
  }

  /** The lines read, in order. */
  List<TraceEntry> entries() {
    return entries;
  }

  /** How many lines (requests) were read. */
  int size() {
    return entries.size();
  }

  /** Line {@code i}'s send time, in ns from the run's start: its timestamp times the multiplier. */
  long offsetNanos(int i) {
    return offsetsNanos[i];
  }

  /**
   * The rows: line {@code i}'s prompt (its blocks' text, cut to its input length; tagged with the line and the
   * lengths asked for and achieved by {@code counter}) and its output length. Built when asked for, so a long trace
   * is never held as text.
   */
  List<DatasetEntry> rows(TokenCounter counter, long seed) {
    return new Rows(Trace.of(entries).blockTokens(chunk).counter(counter).seed(seed), entries);
  }

  /** The lazily built rows; {@link PromptWorkload} keeps them as they are instead of copying them. */
  static final class Rows extends AbstractList<DatasetEntry> implements RandomAccess {
    private final Trace trace;
    private final List<TraceEntry> entries;

    private Rows(Trace trace, List<TraceEntry> entries) {
      this.trace = trace;
      this.entries = entries;
    }

    @Override
    public DatasetEntry get(int i) {
      TraceEntry e = entries.get(i);
      Prompt p = trace.prompt(e).withTag(WorkloadTags.TRACE_LINE, Integer.toString(e.line()))
          .withTag(WorkloadTags.OUTPUT_TOKENS_REQUESTED, Integer.toString(e.outputLength()));
      return new DatasetEntry(p, OptionalInt.of(e.outputLength()));
    }

    @Override
    public int size() {
      return entries.size();
    }
  }

  /** The lines sent at their own times: {@code requests} of them, at most {@code maxConcurrency} in flight. */
  LoadProfile load(int requests, Integer maxConcurrency, long seed) {
    LoadProfile p = LoadProfile.arrivals(arrivals());
    if (maxConcurrency != null) {
      p = p.maxInFlight(maxConcurrency);
    }
    return p.requests(Math.min(requests, size())).seed(seed);
  }

  /** Line {@code i} at its timestamp times the multiplier, from the run's start. */
  ArrivalProcess arrivals() {
    long[] at = offsetsNanos;
    return new ArrivalProcess() {
      @Override
      public long[] schedule(int maxCount, long limitNanos, long ignoredSeed) {
        int n = 0;
        while (n < Math.min(maxCount, at.length) && at[n] < limitNanos) {
          n++;
        }
        return Arrays.copyOf(at, n);
      }

      @Override
      public OptionalDouble nominalRate() {
        long span = at[at.length - 1] - at[0];
        return span <= 0 ? OptionalDouble.empty() : OptionalDouble.of((at.length - 1) * 1e9 / span);
      }

      @Override
      public String toString() {
        return String.format(Locale.ROOT, "timed trace(%d lines, timestamps x %s s)", at.length, multiplier);
      }
    };
  }

  /** The load's words for the run's header: the timestamps, their span and the concurrency cap. */
  String describe(int requests, Integer maxConcurrency) {
    int n = Math.min(requests, size());
    return String.format(Locale.ROOT, "at the trace's timestamps x %s s (%s to %s s)%s", number(multiplier),
        seconds(offsetsNanos[0]), seconds(offsetsNanos[n - 1]),
        maxConcurrency != null ? ", at most " + maxConcurrency + " in flight" : "");
  }

  /**
   * The lines the run prints before it starts: where infermark's prompts differ from vLLM's (hash ids covering
   * fewer tokens than the input length), and a first line that waits.
   */
  List<String> notes(int requests) {
    List<String> notes = new ArrayList<>();
    int n = Math.min(requests, size());
    int shortLines = 0;
    for (int i = 0; i < n; i++) {
      TraceEntry e = entries.get(i);
      if ((long) e.hashIds().size() * chunk < e.inputLength()) {
        shortLines++;
      }
    }
    if (shortLines > 0) {
      notes.add("timed_trace: " + shortLines + " of " + n + " lines have fewer hash ids x --timed-trace-chunk-hash-size "
          + chunk + " tokens than their input length; infermark fills the rest with text of the line's own, vLLM "
          + "would send shorter prompts (Mooncake traces use blocks of 512: --timed-trace-chunk-hash-size 512)");
    }
    if (offsetsNanos[0] > 0) {
      notes.add("timed_trace: the first line is sent " + seconds(offsetsNanos[0]) + " s after the start (timestamps "
          + "count from the run's start, as in vLLM)");
    }
    if (multiplier == 1 && offsetsNanos[n - 1] > 86_400e9) {
      notes.add("timed_trace: the lines span " + seconds(offsetsNanos[n - 1]) + " s at --timed-trace-sec-multiplier 1; "
          + "if the timestamps are milliseconds (Mooncake's), give --timed-trace-sec-multiplier 0.001");
    }
    return notes;
  }

  private static String seconds(long nanos) {
    return String.format(Locale.ROOT, "%.3f", nanos / 1e9);
  }

  @Override
  public String toString() {
    return "VllmTimedTrace[" + file + ": " + entries.size() + " lines, " + chunk + "-token blocks, timestamps x "
        + multiplier + " s]";
  }
}
