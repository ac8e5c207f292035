package io.infermark.testkit.capacity;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * How a {@link CapacityCard} is measured: the error-bound limit, the time budget, how long each step runs, and
 * the rows. {@link #full()} takes a few minutes, {@link #quick()} about 30 seconds with coarser brackets.
 * Immutable; {@link #toBuilder()} changes a preset.
 *
 * @param errorBoundLimit the client's error bound (its health floor: hiccup p99, longest GC pause, I/O-thread
 *     backlog p99, send lag p99) a level may reach and still pass
 * @param budget the time the whole card may take (warm-up included); each row gets an equal share
 * @param step the measured part of each step (each step also runs one request length of warm-up first)
 * @param warmup the JIT warm-up before the first row, not measured
 * @param protocols the wires measured
 * @param figures the figures measured per wire
 * @param tokenStreams the streams of the token-rate rows (the rate sets the gap between their tokens)
 * @param tokensPerChunk the tokens per chunk of {@link CardFigure#BATCHED_TOKENS}
 * @param streamGap the gap between tokens of {@link CardFigure#STREAMS}
 * @param maxStreams the most streams tried (also held under the process's file-descriptor limit)
 * @param growth the factor between levels while stepping up
 * @param tolerance the bracket the search refines to, relative to the ceiling
 */
public record CardSettings(Duration errorBoundLimit, Duration budget, Duration step, Duration warmup,
    Set<CardProtocol> protocols, Set<CardFigure> figures, int tokenStreams, int tokensPerChunk, Duration streamGap,
    int maxStreams, double growth, double tolerance) {

  /** Validates and copies. */
  public CardSettings {
    positive(errorBoundLimit, "errorBoundLimit");
    positive(budget, "budget");
    positive(step, "step");
    Objects.requireNonNull(warmup, "warmup");
    positive(streamGap, "streamGap");
    if (warmup.isNegative()) {
      throw new IllegalArgumentException("warmup must be >= 0, was " + warmup);
    }
    if (protocols.isEmpty() || figures.isEmpty()) {
      throw new IllegalArgumentException("a card needs at least one protocol and one figure");
    }
    protocols = Set.copyOf(protocols);
    figures = Set.copyOf(figures);
    if (tokenStreams < 1 || tokensPerChunk < 2 || maxStreams < 8) {
      throw new IllegalArgumentException(String.format(Locale.ROOT, "tokenStreams must be >= 1 (was %d), "
          + "tokensPerChunk >= 2 (was %d), maxStreams >= 8 (was %d)", tokenStreams, tokensPerChunk, maxStreams));
    }
    if (!(growth > 1) || !(tolerance > 0)) {
      throw new IllegalArgumentException("growth must be > 1 and tolerance > 0, were " + growth + ", " + tolerance);
    }
  }

  /** The full card: a few minutes, 10 % brackets, 1-s gaps between the tokens of the concurrent streams. */
  public static CardSettings full() {
    return new CardSettings(Duration.ofMillis(1), Duration.ofMinutes(4), Duration.ofSeconds(2), Duration.ofSeconds(3),
        EnumSet.allOf(CardProtocol.class), EnumSet.allOf(CardFigure.class), 128, 8, Duration.ofSeconds(1), 16_384,
        2, 0.1);
  }

  /**
   * The quick card: HTTP/1.1 only (the wire most runs use; {@link Builder#protocols} adds the others), about 30
   * seconds, coarse brackets (factor 4 steps, 50 %), 200-ms gaps.
   */
  public static CardSettings quick() {
    return new CardSettings(Duration.ofMillis(1), Duration.ofSeconds(30), Duration.ofMillis(500),
        Duration.ofSeconds(1), EnumSet.of(CardProtocol.HTTP_1_1), EnumSet.allOf(CardFigure.class), 64, 8,
        Duration.ofMillis(200), 4096, 4, 0.5);
  }

  /** A builder starting from these settings. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** How many rows the card has. */
  public int rows() {
    return protocols.size() * figures.size();
  }

  private static void positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be > 0, was " + d);
    }
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "CardSettings[bound %s, budget %s, step %s, %s x %s]", errorBoundLimit,
        budget, step, protocols, figures);
  }

  /** Changes some settings of a preset. */
  public static final class Builder {
    private Duration errorBoundLimit;
    private Duration budget;
    private Duration step;
    private Duration warmup;
    private Set<CardProtocol> protocols;
    private Set<CardFigure> figures;
    private int tokenStreams;
    private int tokensPerChunk;
    private Duration streamGap;
    private int maxStreams;
    private double growth;
    private double tolerance;

    private Builder(CardSettings s) {
      errorBoundLimit = s.errorBoundLimit;
      budget = s.budget;
      step = s.step;
      warmup = s.warmup;
      protocols = s.protocols;
      figures = s.figures;
      tokenStreams = s.tokenStreams;
      tokensPerChunk = s.tokensPerChunk;
      streamGap = s.streamGap;
      maxStreams = s.maxStreams;
      growth = s.growth;
      tolerance = s.tolerance;
    }

    /** The error bound a level may reach and pass; default 1 ms. */
    public Builder errorBoundLimit(Duration d) {
      errorBoundLimit = d;
      return this;
    }

    /** The time the whole card may take. */
    public Builder budget(Duration d) {
      budget = d;
      return this;
    }

    /** The measured part of each step. */
    public Builder step(Duration d) {
      step = d;
      return this;
    }

    /** The JIT warm-up before the first row. */
    public Builder warmup(Duration d) {
      warmup = d;
      return this;
    }

    /** The wires measured. */
    public Builder protocols(Set<CardProtocol> p) {
      protocols = Objects.requireNonNull(p, "protocols");
      return this;
    }

    /** The figures measured per wire. */
    public Builder figures(Set<CardFigure> f) {
      figures = Objects.requireNonNull(f, "figures");
      return this;
    }

    /** The streams of the token-rate rows. */
    public Builder tokenStreams(int n) {
      tokenStreams = n;
      return this;
    }

    /** The tokens per chunk of the batched row, at least 2. */
    public Builder tokensPerChunk(int n) {
      tokensPerChunk = n;
      return this;
    }

    /** The gap between tokens of the concurrent-streams row. */
    public Builder streamGap(Duration d) {
      streamGap = d;
      return this;
    }

    /** The most streams tried. */
    public Builder maxStreams(int n) {
      maxStreams = n;
      return this;
    }

    /** The factor between levels while stepping up, and the bracket's relative tolerance. */
    public Builder search(double growthFactor, double relativeTolerance) {
      growth = growthFactor;
      tolerance = relativeTolerance;
      return this;
    }

    /**
     * The settings.
     *
     * @throws IllegalArgumentException naming a setting out of range
     */
    public CardSettings build() {
      return new CardSettings(errorBoundLimit, budget, step, warmup, protocols, figures, tokenStreams,
          tokensPerChunk, streamGap, maxStreams, growth, tolerance);
    }
  }
}
