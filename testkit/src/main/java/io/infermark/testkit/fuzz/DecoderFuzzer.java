package io.infermark.testkit.fuzz;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.Usage;
import io.infermark.core.stream.ErrorBodies;
import io.infermark.core.stream.OpenAiResponses;
import io.infermark.core.stream.StreamDecoder;
import io.infermark.core.stream.StreamDialect;
import io.infermark.core.stream.StreamLimits;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * Feeds mutated response bodies to every {@link StreamDialect}'s decoder and to the whole-body
 * readers ({@link OpenAiResponses#report}, {@link ErrorBodies#summarize}) and checks each run's
 * contract: no exception escapes, exactly one terminal event ({@code onComplete} or
 * {@code onFailure}, the documented failure outcome), nothing reported after it, counts never
 * negative, chunk times never before the read that delivered them. Memory is bounded by the
 * {@link StreamLimits} given: a decoder that buffered past them would fail the JVM it runs in.
 *
 * <p>Mutations are seeded from real transcripts: bit flips, inserted JSON and SSE syntax, deleted,
 * duplicated and repeated ranges, truncation, splices of two bodies, deep nesting, invalid UTF-8;
 * each mutated body is then fed in random pieces. Everything derives from one seed, so a run is
 * reproducible and a failing stream can be replayed by its number.
 *
 * <pre>{@code
 * DecoderFuzzer.Result r = DecoderFuzzer.builder().seedBodies(DecoderFuzzer.readDirectory(dir))
 *     .seed(42).build().run(20_000);
 * }</pre>
 */
public final class DecoderFuzzer {

  /** The outcome of a fuzzing run. */
  public record Result(long streams, long completed, long failed, Map<ErrorCategory, Long> failuresByCategory,
      long contractBreaks, List<String> firstBreaks, long bytesFed) {

    /** Copies. */
    public Result {
      failuresByCategory = Map.copyOf(failuresByCategory);
      firstBreaks = List.copyOf(firstBreaks);
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "DecoderFuzzer.Result[%d streams: %d completed, %d failed %s, "
          + "%d contract breaks, %d bytes fed]", streams, completed, failed, failuresByCategory, contractBreaks, bytesFed);
    }
  }

  private static final byte[][] TOKENS = utf8("\n", "\r\n", "\n\n", "\r", "data: ", "data:", "event: error\n",
      ": comment\n", "[DONE]", "{", "}", "[", "]", "\"", "\\", "\\u", "\\ud800", ":", ",", "null", "true", "-1",
      "1e999", "-9223372036854775809", "NaN", "\"choices\":", "\"delta\":", "\"usage\":", "\"error\":",
      "\"completion_tokens\":", "\"done\":true", "\"type\":\"message_stop\"", "\"finish_reason\":\"stop\"",
      "\"content\":\"x\"", "\"tokens\":-5", "\u00e9", "\ud83d\ude00", "\u0000");
  private static final int MAX_BREAKS_KEPT = 20;

  private final List<byte[]> seeds;
  private final long seed;
  private final StreamLimits limits;

  private DecoderFuzzer(Builder b) {
    this.seeds = List.copyOf(b.seeds);
    this.seed = b.seed;
    this.limits = b.limits;
  }

  /** A builder; seed bodies are required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Every regular file of {@code dir} as a seed body, in name order; {@code README*} files included
   * (prose is as good a seed as any).
   *
   * @throws UncheckedIOException if the directory cannot be read
   */
  public static List<byte[]> readDirectory(Path dir) {
    try (Stream<Path> files = Files.list(dir)) {
      List<byte[]> bodies = new ArrayList<>();
      for (Path p : files.filter(Files::isRegularFile).sorted().toList()) {
        bodies.add(Files.readAllBytes(p));
      }
      if (bodies.isEmpty()) {
        throw new IllegalArgumentException("no seed files in " + dir);
      }
      return bodies;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read seed bodies from " + dir + ": " + e.getMessage(), e);
    }
  }

  /** Runs {@code streams} mutated streams, round-robin over the decoders and whole-body readers. */
  public Result run(long streams) {
    if (streams < 0) {
      throw new IllegalArgumentException("streams must be >= 0, was " + streams);
    }
    StreamDialect[] dialects = StreamDialect.values();
    int kinds = dialects.length + 2;
    long completed = 0;
    long failed = 0;
    long breaks = 0;
    long fed = 0;
    Map<ErrorCategory, Long> byCategory = new EnumMap<>(ErrorCategory.class);
    List<String> first = new ArrayList<>();
    for (long n = 0; n < streams; n++) {
      SplittableRandom random = new SplittableRandom(seed ^ (n * 0x9E3779B97F4A7C15L));
      byte[] body = mutate(random);
      fed += body.length;
      int kind = (int) (n % kinds);
      Checker c = new Checker();
      String what = kind < dialects.length ? dialects[kind].name()
          : kind == dialects.length ? "OpenAiResponses.report" : "ErrorBodies.summarize";
      try {
        if (kind < dialects.length) {
          feed(dialects[kind].newDecoder(c, limits), body, random, c);
        } else if (kind == dialects.length) {
          c.readAt = 1;
          OpenAiResponses.report(body, c, 1);
        } else {
          String s = ErrorBodies.summarize(new String(body, StandardCharsets.UTF_8));
          if (s == null) {
            c.breakContract("summarize returned null");
          }
          c.onComplete(1);
        }
      } catch (RuntimeException | StackOverflowError e) {
        c.breakContract("threw " + e);
      }
      if (c.terminals != 1 && c.problem == null) {
        c.breakContract(c.terminals + " terminal events");
      }
      if (c.problem != null) {
        breaks++;
        if (first.size() < MAX_BREAKS_KEPT) {
          first.add("stream " + n + " (" + what + "): " + c.problem);
        }
      } else if (c.failure != null) {
        failed++;
        byCategory.merge(c.failure.category(), 1L, Long::sum);
      } else {
        completed++;
      }
    }
    return new Result(streams, completed, failed, byCategory, breaks, first, fed);
  }

  /** Feeds {@code body} in random pieces with rising clock readings, then ends it unless finished. */
  private static void feed(StreamDecoder decoder, byte[] body, SplittableRandom random, Checker c) {
    int at = 0;
    long t = 0;
    while (at < body.length && !decoder.finished()) {
      int n = Math.min(body.length - at, random.nextInt(4) == 0 ? 1 + random.nextInt(4096) : 1 + random.nextInt(64));
      t += 1 + random.nextInt(1000);
      c.readAt = t;
      decoder.feed(body, at, n, t);
      at += n;
    }
    if (!decoder.finished()) {
      t += 1;
      c.readAt = t;
      decoder.end(t);
    } else if (c.terminals == 0) {
      c.breakContract("finished() without a terminal event");
    }
  }

  private byte[] mutate(SplittableRandom random) {
    byte[] b = seeds.get(random.nextInt(seeds.size()));
    int rounds = 1 + random.nextInt(6);
    for (int i = 0; i < rounds; i++) {
      b = mutateOnce(b, random);
    }
    return b;
  }

  private byte[] mutateOnce(byte[] b, SplittableRandom random) {
    int len = b.length;
    int at = len == 0 ? 0 : random.nextInt(len + 1);
    switch (random.nextInt(10)) {
      case 0 -> { // flip bits
        byte[] c = b.clone();
        for (int k = 0, flips = 1 + random.nextInt(8); k < flips && len > 0; k++) {
          c[random.nextInt(len)] ^= (byte) (1 << random.nextInt(8));
        }
        return c;
      }
      case 1 -> { // insert syntax
        return insert(b, at, TOKENS[random.nextInt(TOKENS.length)]);
      }
      case 2 -> { // delete a range
        int n = len - at == 0 ? 0 : random.nextInt(Math.min(len - at, 256) + 1);
        return concat(Arrays.copyOfRange(b, 0, at), Arrays.copyOfRange(b, at + n, len));
      }
      case 3 -> { // duplicate a range
        int n = len - at == 0 ? 0 : random.nextInt(Math.min(len - at, 512) + 1);
        return insert(b, at, Arrays.copyOfRange(b, at, at + n));
      }
      case 4 -> { // truncate
        return Arrays.copyOf(b, at);
      }
      case 5 -> { // splice with another body
        byte[] o = seeds.get(random.nextInt(seeds.size()));
        int from = o.length == 0 ? 0 : random.nextInt(o.length);
        return concat(Arrays.copyOf(b, at), Arrays.copyOfRange(o, from, o.length));
      }
      case 6 -> { // a long run of one byte: a line or event past the limits
        byte[] run = new byte[random.nextInt(2) == 0 ? random.nextInt(1024) : limits.maxLineBytes()
            + random.nextInt(1024)];
        Arrays.fill(run, (byte) "a{[\" ".charAt(random.nextInt(5)));
        return insert(b, at, run);
      }
      case 7 -> { // deep nesting
        byte[] deep = new byte[1 + random.nextInt(4096)];
        Arrays.fill(deep, (byte) (random.nextBoolean() ? '[' : '{'));
        return insert(b, at, concat(utf8("data: ")[0], deep));
      }
      case 8 -> { // invalid or cut UTF-8
        byte[][] bad = {{(byte) 0xC3}, {(byte) 0xE2, (byte) 0x82}, {(byte) 0xFF}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
            {(byte) 0xF0, (byte) 0x9F}};
        return insert(b, at, bad[random.nextInt(bad.length)]);
      }
      default -> { // several lines' terminators changed
        byte[] c = b.clone();
        for (int k = 0; k < c.length; k++) {
          if (c[k] == '\n' && random.nextInt(8) == 0) {
            c[k] = (byte) (random.nextBoolean() ? '\r' : ' ');
          }
        }
        return c;
      }
    }
  }

  private static byte[] insert(byte[] b, int at, byte[] what) {
    byte[] out = new byte[b.length + what.length];
    System.arraycopy(b, 0, out, 0, at);
    System.arraycopy(what, 0, out, at, what.length);
    System.arraycopy(b, at, out, at + what.length, b.length - at);
    return out;
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static byte[][] utf8(String... s) {
    byte[][] out = new byte[s.length][];
    for (int i = 0; i < s.length; i++) {
      out[i] = s[i].getBytes(StandardCharsets.UTF_8);
    }
    return out;
  }

  @Override
  public String toString() {
    return "DecoderFuzzer[" + seeds.size() + " seed bodies, seed " + seed + ", " + limits + "]";
  }

  /** Checks one run's events against the observer contract. */
  private static final class Checker implements StreamObserver {
    int terminals;
    Failure failure;
    String problem;
    long readAt;
    long lastChunk;

    void breakContract(String what) {
      if (problem == null) {
        problem = what;
      }
    }

    private void event(String name) {
      if (terminals > 0) {
        breakContract(name + " after the terminal event");
      }
    }

    @Override
    public void onPhase(Phase phase, long nanoTime) {
      event("onPhase");
    }

    @Override
    public void onResponseHeaders(int httpStatus, long nanoTime) {
      event("onResponseHeaders");
    }

    @Override
    public void onChunk(long nanoTime, ChunkKind kind, int tokens) {
      event("onChunk");
      Objects.requireNonNull(kind, "kind");
      if (tokens < ChunkTimeline.UNKNOWN_TOKENS) {
        breakContract("chunk with " + tokens + " tokens");
      }
      if (nanoTime > readAt || nanoTime < lastChunk) {
        breakContract("chunk stamped " + nanoTime + " after a read at " + readAt + " or before the last chunk");
      }
      lastChunk = nanoTime;
    }

    @Override
    public void onText(ChunkKind kind, CharSequence text) {
      event("onText");
      Objects.requireNonNull(text, "text");
    }

    @Override
    public boolean wantsText() {
      return true;
    }

    @Override
    public void onUsage(Usage usage) {
      event("onUsage");
      for (OptionalInt v : List.of(usage.promptTokens(), usage.completionTokens(), usage.totalTokens(),
          usage.reasoningTokens(), usage.cachedPromptTokens())) {
        if (v.isPresent() && v.getAsInt() < 0) {
          breakContract("negative usage " + usage);
        }
      }
    }

    @Override
    public void onFinishReason(String reason) {
      event("onFinishReason");
      Objects.requireNonNull(reason, "reason");
    }

    @Override
    public void onServerTiming(String name, double value) {
      event("onServerTiming");
    }

    @Override
    public void onComplete(long nanoTime) {
      terminals++;
    }

    @Override
    public void onFailure(Failure f, long nanoTime) {
      terminals++;
      if (terminals == 1) {
        failure = Objects.requireNonNull(f, "failure");
        if (f.category() != ErrorCategory.MALFORMED_STREAM && f.category() != ErrorCategory.STREAM_ERROR
            && f.category() != ErrorCategory.HTTP_STATUS) {
          breakContract("failure category " + f.category() + " from a decoder: " + f.message());
        }
      }
    }
  }

  /** Configures a {@link DecoderFuzzer}. */
  public static final class Builder {
    private List<byte[]> seeds = List.of();
    private long seed = 1;
    private StreamLimits limits = new StreamLimits(64 * 1024, 256 * 1024);

    private Builder() {}

    /** The bodies mutations start from (real transcripts); required, at least one. */
    public Builder seedBodies(List<byte[]> bodies) {
      Objects.requireNonNull(bodies, "bodies");
      if (bodies.isEmpty()) {
        throw new IllegalArgumentException("at least one seed body is needed");
      }
      this.seeds = bodies.stream().map(byte[]::clone).toList();
      return this;
    }

    /** The random seed everything derives from (default 1). */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** The decoders' limits (default 64 KiB lines, 256 KiB events): what bounds their memory. */
    public Builder limits(StreamLimits limits) {
      this.limits = Objects.requireNonNull(limits, "limits");
      return this;
    }

    /** Returns the fuzzer. */
    public DecoderFuzzer build() {
      if (seeds.isEmpty()) {
        throw new IllegalStateException("seedBodies(...) is required");
      }
      return new DecoderFuzzer(this);
    }
  }
}
