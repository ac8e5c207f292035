package io.infermark.perturbation.scenario;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import io.infermark.core.stats.QuantileMethod;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.perturbation.operator.Draft;
import io.infermark.perturbation.operator.Padding;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Scenario kit: a session whose context grows turn by turn until the server degrades or fails.
 *
 * <p>Step {@code k} is a chat of {@code k} earlier turns (a user message of {@code step} tokens of
 * distractor text and a short assistant reply) plus the question, so its content is about
 * {@code start + k × step} tokens [512 + k × 512] counted by the given {@link TokenCounter}, up to
 * {@code max} tokens [8192]. Run the prompts in order on one stream
 * ({@code LoadProfile.concurrency(1)}), {@code requestsPerStep} [3] each.
 *
 * <p><b>Verdict:</b> a step <i>fails</i> when more than {@code maxFailureRate} [0] of its requests
 * fail; it <i>degrades</i> when its median TTFT exceeds the TTFT limit, or its median E2E the E2E
 * limit, or either exceeds {@code factor} [3] times the first step's median. The kit passes when no
 * step degrades or fails, and otherwise reports the context length at which each first happened.
 */
public final class ContextInflationKit {

  /** The tag naming the scenario. */
  public static final String SCENARIO = "context-inflation";
  /** The tag holding the step's context length in tokens. */
  public static final String TOKENS_TAG = "context.tokens";

  private final TokenCounter counter;
  private final String question;
  private final int start;
  private final int step;
  private final int max;
  private final int requestsPerStep;
  private final Duration ttftLimit;
  private final Duration e2eLimit;
  private final double factor;
  private final double maxFailureRate;

  private ContextInflationKit(Builder b) {
    this.counter = b.counter;
    this.question = b.question;
    this.start = b.start;
    this.step = b.step;
    this.max = b.max;
    this.requestsPerStep = b.requestsPerStep;
    this.ttftLimit = b.ttftLimit;
    this.e2eLimit = b.e2eLimit;
    this.factor = b.factor;
    this.maxFailureRate = b.maxFailureRate;
  }

  /** A builder with the defaults above. */
  public static Builder builder(TokenCounter counter, String question) {
    return new Builder(Objects.requireNonNull(counter, "counter"), Objects.requireNonNull(question, "question"));
  }

  /** The context lengths of the steps, in order. */
  public int[] lengths() {
    int n = (max - start) / step + 1;
    int[] l = new int[n];
    for (int k = 0; k < n; k++) {
      l[k] = start + k * step;
    }
    return l;
  }

  /** Every step's prompt, {@code requestsPerStep} times each, in growing order, tagged with the length. */
  public List<Prompt> prompts() {
    List<Prompt> out = new ArrayList<>();
    int[] lengths = lengths();
    Padding padding = Padding.toTokens(counter, step);
    int questionTokens = counter.count(question);
    int firstPad = Math.max(0, start - questionTokens);
    List<Message> history = new ArrayList<>();
    for (int k = 0; k < lengths.length; k++) {
      // The first turn brings the context to `start`; every later turn adds `step` tokens.
      int tokens = k == 0 ? firstPad : step;
      if (tokens > 0) {
        Padding p = k == 0 ? Padding.toTokens(counter, tokens) : padding;
        Draft d = new Draft("", Optional.empty());
        d.dimension("inflation");
        p.apply(d, 0, new SplittableRandom(k));
        history.add(Message.user(d.text().strip()));
        history.add(Message.assistant("Noted."));
      }
      List<Message> messages = new ArrayList<>(history);
      messages.add(Message.user(question));
      Prompt prompt = Prompt.chat(messages).withTag("scenario", SCENARIO)
          .withTag(TOKENS_TAG, Integer.toString(lengths[k])).withTag("turn", Integer.toString(k));
      for (int r = 0; r < requestsPerStep; r++) {
        out.add(prompt);
      }
    }
    return List.copyOf(out);
  }

  /** The verdict on a run of {@link #prompts()}. */
  public InflationVerdict verdict(RunResult run) {
    return verdict(run.measured());
  }

  /** The verdict on the given records (warmup and other scenarios skipped). */
  public InflationVerdict verdict(List<RequestRecord> records) {
    Map<Integer, List<RequestRecord>> byLength = new TreeMap<>();
    for (RequestRecord r : records) {
      String t = r.tags().get(TOKENS_TAG);
      if (r.measured() && t != null && SCENARIO.equals(r.tags().get("scenario"))) {
        byLength.computeIfAbsent(Integer.parseInt(t), k -> new ArrayList<>()).add(r);
      }
    }
    if (byLength.isEmpty()) {
      throw new IllegalArgumentException("no measured records of the context-inflation scenario");
    }
    List<InflationVerdict.Step> steps = new ArrayList<>();
    double baseTtft = Double.NaN;
    double baseE2e = Double.NaN;
    OptionalInt degradedAt = OptionalInt.empty();
    OptionalInt failedAt = OptionalInt.empty();
    for (Map.Entry<Integer, List<RequestRecord>> e : byLength.entrySet()) {
      List<Double> ttft = new ArrayList<>();
      List<Double> e2e = new ArrayList<>();
      int failed = 0;
      for (RequestRecord r : e.getValue()) {
        if (!r.succeeded()) {
          failed++;
          continue;
        }
        r.chunks().firstTokenOffsetNanos().ifPresent(v -> ttft.add(v / 1e6));
        r.chunks().lastTokenOffsetNanos().ifPresent(v -> e2e.add(v / 1e6));
      }
      OptionalDouble t50 = median(ttft);
      OptionalDouble e50 = median(e2e);
      if (steps.isEmpty()) {
        baseTtft = t50.orElse(Double.NaN);
        baseE2e = e50.orElse(Double.NaN);
      }
      boolean failing = failed > maxFailureRate * e.getValue().size() || ttft.isEmpty();
      boolean degraded = over(t50, ttftLimit, baseTtft) || over(e50, e2eLimit, baseE2e);
      if (failing && failedAt.isEmpty()) {
        failedAt = OptionalInt.of(e.getKey());
      }
      if (degraded && degradedAt.isEmpty()) {
        degradedAt = OptionalInt.of(e.getKey());
      }
      steps.add(new InflationVerdict.Step(e.getKey(), e.getValue().size(), failed, t50, e50, degraded, failing));
    }
    return new InflationVerdict(degradedAt.isEmpty() && failedAt.isEmpty(), degradedAt, failedAt, steps);
  }

  private boolean over(OptionalDouble median, Duration limit, double base) {
    if (median.isEmpty()) {
      return false;
    }
    double v = median.getAsDouble();
    boolean absolute = limit != null && v > limit.toNanos() / 1e6;
    boolean relative = !Double.isNaN(base) && base > 0 && v > factor * base;
    return absolute || relative;
  }

  private static OptionalDouble median(List<Double> xs) {
    if (xs.isEmpty()) {
      return OptionalDouble.empty();
    }
    double[] s = xs.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(s);
    return OptionalDouble.of(QuantileMethod.LINEAR.quantile(s, 0.5));
  }

  @Override
  public String toString() {
    return "ContextInflationKit[" + start + ".." + max + " tokens by " + step + ", " + counter.name() + "]";
  }

  /** Builds a {@link ContextInflationKit}. */
  public static final class Builder {
    private final TokenCounter counter;
    private final String question;
    private int start = 512;
    private int step = 512;
    private int max = 8192;
    private int requestsPerStep = 3;
    private Duration ttftLimit;
    private Duration e2eLimit;
    private double factor = 3.0;
    private double maxFailureRate;

    private Builder(TokenCounter counter, String question) {
      if (question.isBlank()) {
        throw new IllegalArgumentException("context inflation needs a non-blank question");
      }
      this.counter = counter;
      this.question = question;
    }

    /** Context lengths from {@code start} to {@code max} by {@code step} tokens. */
    public Builder lengths(int start, int step, int max) {
      if (start < 1 || step < 1 || max < start) {
        throw new IllegalArgumentException("lengths need start >= 1, step >= 1, max >= start; were " + start + ", "
            + step + ", " + max);
      }
      this.start = start;
      this.step = step;
      this.max = max;
      return this;
    }

    /** Requests per step (>= 1). */
    public Builder requestsPerStep(int n) {
      if (n < 1) {
        throw new IllegalArgumentException("requestsPerStep must be >= 1, was " + n);
      }
      this.requestsPerStep = n;
      return this;
    }

    /** An absolute limit on a step's median TTFT. */
    public Builder ttftLimit(Duration limit) {
      this.ttftLimit = positive("ttftLimit", limit);
      return this;
    }

    /** An absolute limit on a step's median E2E. */
    public Builder e2eLimit(Duration limit) {
      this.e2eLimit = positive("e2eLimit", limit);
      return this;
    }

    /** The relative limit: a median above {@code factor} × the first step's degrades (> 1). */
    public Builder factor(double factor) {
      if (!(factor > 1) || Double.isInfinite(factor)) {
        throw new IllegalArgumentException("factor must be a finite number > 1, was " + factor);
      }
      this.factor = factor;
      return this;
    }

    /** The failure share a step may have without failing, in [0, 1). */
    public Builder maxFailureRate(double rate) {
      if (!(rate >= 0 && rate < 1)) {
        throw new IllegalArgumentException("maxFailureRate must be in [0, 1), was " + rate);
      }
      this.maxFailureRate = rate;
      return this;
    }

    private static Duration positive(String what, Duration d) {
      Objects.requireNonNull(d, what);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(what + " must be positive, was " + d);
      }
      return d;
    }

    /** Returns the kit. */
    public ContextInflationKit build() {
      return new ContextInflationKit(this);
    }
  }
}
