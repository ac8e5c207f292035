package io.infermark.core.session;

import io.infermark.core.load.Randoms;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.core.workload.SyntheticText;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeSet;

/**
 * Generated agent sessions, all of one shape: {@code turns} turns, each a new user message of
 * {@code userTokens} tokens followed by the same steps (tool calls, fan-outs). Session {@code i}'s text is
 * seeded by {@code i}, so a run is reproducible, and its id is {@code "s" + i}.
 *
 * <p>A planted-fact probe ({@link Builder#plantedFact(int...)}) measures memory decay: turn 0 also states
 * a fact unique to the session ("the code word is ..."), and each probe turn asks for it back; the probe
 * turns' records carry {@link SessionTags#PROBE_EXPECTED} for a scorer to judge.
 */
public final class SyntheticSessions implements SessionSource {

  private final int turns;
  private final int userTokens;
  private final OptionalInt maxTokens;
  private final List<Step> steps;
  private final int[] probeTurns;
  private final TokenCounter counter;
  private final long seed;

  private SyntheticSessions(Builder b) {
    this.turns = b.turns;
    this.userTokens = b.userTokens;
    this.maxTokens = b.maxTokens;
    this.steps = List.copyOf(b.steps);
    this.probeTurns = b.probeTurns.stream().mapToInt(Integer::intValue).toArray();
    this.counter = b.counter;
    this.seed = b.seed;
    for (int p : probeTurns) {
      if (p >= turns) {
        throw new IllegalArgumentException("probe turn " + p + " is not a turn of a " + turns + "-turn session");
      }
    }
  }

  /** A builder: 5 turns of 128 user tokens, no steps, no probe, the estimate counter, seed 0. */
  public static Builder builder() {
    return new Builder();
  }

  /** The code word planted in session {@code index} (deterministic per seed and index). */
  public String fact(long index) {
    return "kw" + Long.toString(Randoms.mix(seed ^ 0xFAC7L, index) & 0xFFFFFFFFFFL, 36);
  }

  @Override
  public Session session(long index) {
    List<Turn> list = new ArrayList<>(turns);
    String fact = probeTurns.length > 0 ? fact(index) : "";
    for (int t = 0; t < turns; t++) {
      String text = SyntheticText.exactly(counter, userTokens, Randoms.mix(seed, index * 1_000_003L + t));
      boolean probe = isProbe(t);
      if (t == 0 && probeTurns.length > 0) {
        text = "Remember this fact for later: the code word is " + fact + ". " + text;
      }
      if (probe) {
        text = "What is the code word I told you at the start? Reply with the code word first. " + text;
      }
      Turn.Builder b = Turn.builder(text);
      maxTokens.ifPresent(b::maxTokens);
      steps.forEach(b::step);
      if (probe) {
        b.tag(SessionTags.PROBE_EXPECTED, fact).tag(SessionTags.PROBE_PLANTED_TURN, "0");
      }
      list.add(b.build());
    }
    return Session.of("s" + index, list);
  }

  private boolean isProbe(int turn) {
    for (int p : probeTurns) {
      if (p == turn) {
        return true;
      }
    }
    return false;
  }

  @Override
  public OptionalLong size() {
    return OptionalLong.empty();
  }

  @Override
  public int maxParallelCalls() {
    return steps.stream().mapToInt(s -> s instanceof FanOut f ? f.branches() : 1).max().orElse(1);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "SyntheticSessions[%d turns of %d tokens, steps %s%s]", turns, userTokens,
        steps, probeTurns.length > 0 ? ", fact probed at turns " + Arrays.toString(probeTurns) : "");
  }

  /** Builds {@link SyntheticSessions}. */
  public static final class Builder {
    private int turns = 5;
    private int userTokens = 128;
    private OptionalInt maxTokens = OptionalInt.empty();
    private final List<Step> steps = new ArrayList<>();
    private final TreeSet<Integer> probeTurns = new TreeSet<>();
    private TokenCounter counter = TokenCounter.estimate();
    private long seed;

    private Builder() {}

    /** Turns per session (default 5), >= 1. */
    public Builder turns(int turns) {
      if (turns < 1) {
        throw new IllegalArgumentException("turns must be >= 1, was " + turns);
      }
      this.turns = turns;
      return this;
    }

    /** Tokens of each turn's new user message (default 128), >= 1. */
    public Builder userTokens(int tokens) {
      if (tokens < 1) {
        throw new IllegalArgumentException("userTokens must be >= 1, was " + tokens);
      }
      this.userTokens = tokens;
      return this;
    }

    /** Every model call asks for exactly {@code tokens} output tokens (default: the run's parameters). */
    public Builder maxTokens(int tokens) {
      if (tokens < 1) {
        throw new IllegalArgumentException("maxTokens must be >= 1, was " + tokens);
      }
      this.maxTokens = OptionalInt.of(tokens);
      return this;
    }

    /** Every turn calls this tool (after its first model call or previous step). */
    public Builder tool(ToolCall tool) {
      steps.add(Objects.requireNonNull(tool, "tool"));
      return this;
    }

    /** Every turn fans out like this (after its first model call or previous step). */
    public Builder fanOut(FanOut fanOut) {
      steps.add(Objects.requireNonNull(fanOut, "fanOut"));
      return this;
    }

    /** Plants a fact at turn 0 and asks for it at each of {@code probeTurns} (each >= 1). */
    public Builder plantedFact(int... probeTurns) {
      for (int p : probeTurns) {
        if (p < 1) {
          throw new IllegalArgumentException("a probe turn must be >= 1 (the fact is planted at turn 0), was " + p);
        }
        this.probeTurns.add(p);
      }
      return this;
    }

    /** Counter of user-message lengths (default the estimate). */
    public Builder counter(TokenCounter counter) {
      this.counter = Objects.requireNonNull(counter, "counter");
      return this;
    }

    /** Seed of the text (default 0). */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Returns the source. */
    public SyntheticSessions build() {
      return new SyntheticSessions(this);
    }
  }
}
