package io.infermark.testkit.simulator;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The inference engine a simulator models: its step cost model and its scheduling limits, as one
 * immutable value with a builder. Take a named profile ({@link #llama8bH200()},
 * {@link #nearZeroCost()}, {@link #earlySaturation()}, or {@link #named(String)}) and override
 * any parameter with {@link #toBuilder()}.
 *
 * <h2>Cost model</h2>
 * The engine runs in steps, like vLLM's continuous batching. Each step computes one new token for
 * every decoding sequence plus a chunk of prompt tokens for sequences still in prefill, and takes
 * <pre>
 *   step ms = stepOverhead
 *           + (decodeBase if any sequence decodes, else prefillBase)
 *           + Σ over decoding sequences (decodePerSequence + decodePerContextToken × context)
 *           + Σ over prefill chunks (prefillPerToken × t + prefillQuadratic × (t² + 2·t·c))
 * </pre>
 * where {@code context} is the tokens already in a decoding sequence's KV cache, {@code t} the
 * chunk's tokens and {@code c} the prompt tokens computed before the chunk. The quadratic term is
 * attention over the growing context: the chunk terms telescope ({@code Σ t² + 2tc = T²}), so a
 * prompt of {@code T} tokens costs {@code prefillQuadratic × T²} however it is chunked, and a
 * prefix-cache hit of {@code h} tokens removes exactly {@code prefillPerToken × h +
 * prefillQuadratic × h²} from its prefill.
 *
 * <h2>Limits</h2>
 * At most {@link #maxRunningSequences()} sequences run; a step schedules at most
 * {@link #maxBatchedTokens()} tokens (decodes first, then prefill chunks: chunked prefill); the KV
 * cache holds {@link #kvCacheBlocks()} blocks of {@link #blockSize()} tokens. Waiting requests are
 * admitted first come, first served while blocks are free; when a running sequence needs a block
 * and none is free, the most recently admitted sequence is preempted and later recomputed from
 * scratch (vLLM's recompute preemption). With {@link #prefixCaching()}, full prompt blocks are
 * kept by content hash after use and reused (least recently used evicted first), so a request
 * sharing a prefix skips that part of its prefill.
 */
public final class EngineProfile {

  /** The names {@link #named(String)} accepts. */
  public static final List<String> NAMES = List.of("llama-8b-h200", "near-zero-cost", "early-saturation");

  private final String name;
  private final double stepOverheadMs;
  private final double decodeBaseMs;
  private final double decodePerSequenceMs;
  private final double decodePerContextTokenMs;
  private final double prefillBaseMs;
  private final double prefillPerTokenMs;
  private final double prefillQuadraticMs;
  private final int maxRunningSequences;
  private final int maxBatchedTokens;
  private final int kvCacheBlocks;
  private final int blockSize;
  private final boolean prefixCaching;
  private final double swapMsPerBlock;

  private EngineProfile(Builder b) {
    this.name = b.name;
    this.stepOverheadMs = b.stepOverheadMs;
    this.decodeBaseMs = b.decodeBaseMs;
    this.decodePerSequenceMs = b.decodePerSequenceMs;
    this.decodePerContextTokenMs = b.decodePerContextTokenMs;
    this.prefillBaseMs = b.prefillBaseMs;
    this.prefillPerTokenMs = b.prefillPerTokenMs;
    this.prefillQuadraticMs = b.prefillQuadraticMs;
    this.maxRunningSequences = b.maxRunningSequences;
    this.maxBatchedTokens = b.maxBatchedTokens;
    this.kvCacheBlocks = b.kvCacheBlocks;
    this.blockSize = b.blockSize;
    this.prefixCaching = b.prefixCaching;
    this.swapMsPerBlock = b.swapMsPerBlock;
  }

  /**
   * A Llama-3-8B-shaped model in bf16 on one NVIDIA H200, served by a vLLM-like engine.
   *
   * <p>GPU costs are least-squares fits to a measurement of the 32
   * decoder layers, one step at a time through CUDA graphs, on one H200 on 2026-11-30 (infermark's
   * {@code calibration/h200-llama8b-shape-step-cost.csv}): decode step ms ≈ 4.17 + batch × (0.0124
   * + 2.9e-5 × context), within 7 % of every measured decode row; prefill ms ≈ 2.3 + 0.0223 × tokens
   * + 6.5e-7 × tokens², within 1 % at 2048 and 8192 tokens but 10–17 % off at 128–512 tokens
   * (short prompts measured 6.2 and 12.6 ms; the fit says 5.2 and 13.9). Not in the
   * measurement and added here: the LM head (~1 GB of weights, ≈ 0.3 ms a step at 4.8 TB/s) and a
   * serving engine's scheduling overhead (2 ms a step, typical of Python-based servers), so
   * {@code stepOverhead} = 2.3 ms.
   *
   * <p>Limits are vLLM's defaults ({@code max_num_seqs} 256, {@code max_num_batched_tokens} 8192,
   * block size 16, prefix caching on) and the KV cache that fits at {@code gpu_memory_utilization}
   * 0.9: 141 GB × 0.9 − 16 GB of weights − ~4 GB of activations ≈ 107 GB, at 128 KiB per token
   * (2 × 32 layers × 8 KV heads × 128 dims × 2 bytes) ≈ 816,000 tokens = 51,000 blocks.
   */
  public static EngineProfile llama8bH200() {
    return builder().name("llama-8b-h200").stepOverheadMs(2.3)
        .decodeBaseMs(4.17).decodePerSequenceMs(0.0124).decodePerContextTokenMs(2.9e-5)
        .prefillBaseMs(2.3).prefillPerTokenMs(0.0223).prefillQuadraticMs(6.5e-7)
        .maxRunningSequences(256).maxBatchedTokens(8192).kvCacheBlocks(51_000).blockSize(16)
        .prefixCaching(true).build();
  }

  /**
   * A server that costs almost nothing, for measuring the client: every step takes 1 ms whatever
   * it computes (the floor keeps the engine thread from spinning), up to 4096 sequences run at
   * once, and the KV cache never runs out. Tokens are offered at 1000 per second per stream, so
   * whatever throughput a run reaches below that is the client's (and the HTTP path's) limit.
   */
  public static EngineProfile nearZeroCost() {
    return builder().name("near-zero-cost").stepOverheadMs(1.0)
        .decodeBaseMs(0).decodePerSequenceMs(0).decodePerContextTokenMs(0)
        .prefillBaseMs(0).prefillPerTokenMs(0).prefillQuadraticMs(0)
        .maxRunningSequences(4096).maxBatchedTokens(1 << 20).kvCacheBlocks(1 << 22).blockSize(16)
        .prefixCaching(false).build();
  }

  /**
   * A small engine whose knee is easy to reach on a laptop: the 8B cost shape, but only 16
   * sequences at once, 1024 batched tokens a step and a 1024-block (16,384-token) KV cache, so
   * queueing begins near 16 concurrent streams and KV pressure and preemptions show with long
   * outputs.
   */
  public static EngineProfile earlySaturation() {
    return llama8bH200().toBuilder().name("early-saturation")
        .maxRunningSequences(16).maxBatchedTokens(1024).kvCacheBlocks(1024).build();
  }

  /**
   * The profile called {@code name}, one of {@link #NAMES}.
   *
   * @throws IllegalArgumentException for any other name
   */
  public static EngineProfile named(String name) {
    Objects.requireNonNull(name, "name");
    return switch (name) {
      case "llama-8b-h200" -> llama8bH200();
      case "near-zero-cost" -> nearZeroCost();
      case "early-saturation" -> earlySaturation();
      default -> throw new IllegalArgumentException("unknown engine profile '" + name + "'; known: " + NAMES);
    };
  }

  /** A builder starting from {@link #llama8bH200()}'s values, named {@code custom}. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this profile's values. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /**
   * How preemption frees KV blocks: 0 (the default, vLLM V1's only mode) recomputes, so a preempted
   * sequence loses its KV and prefills prompt and output again on readmission; above 0 it swaps
   * (vLLM V0's {@code preemption_mode=swap}): its blocks are copied to host memory and back, each
   * way costing this many ms per block, added to the step that preempts or readmits it.
   */
  public double swapMsPerBlock() {
    return swapMsPerBlock;
  }

  /** Whether preemption swaps KV to host memory rather than recomputing it. */
  public boolean swaps() {
    return swapMsPerBlock > 0;
  }

  /** The profile's name, for reports. */
  public String name() {
    return name;
  }

  /** Fixed cost of every step, ms: engine scheduling overhead plus anything per step (LM head). */
  public double stepOverheadMs() {
    return stepOverheadMs;
  }

  /** Base cost of a step that decodes at least one sequence, ms (reading the weights once). */
  public double decodeBaseMs() {
    return decodeBaseMs;
  }

  /** Added decode cost per decoding sequence, ms. */
  public double decodePerSequenceMs() {
    return decodePerSequenceMs;
  }

  /** Added decode cost per token of a decoding sequence's context, ms. */
  public double decodePerContextTokenMs() {
    return decodePerContextTokenMs;
  }

  /** Base cost of a step that only prefills, ms. */
  public double prefillBaseMs() {
    return prefillBaseMs;
  }

  /** Prefill cost per prompt token, ms. */
  public double prefillPerTokenMs() {
    return prefillPerTokenMs;
  }

  /** Prefill cost per squared prompt token (attention), ms. */
  public double prefillQuadraticMs() {
    return prefillQuadraticMs;
  }

  /** The most sequences running (admitted, holding KV blocks) at once. */
  public int maxRunningSequences() {
    return maxRunningSequences;
  }

  /** The most tokens (decode plus prefill) one step computes. */
  public int maxBatchedTokens() {
    return maxBatchedTokens;
  }

  /** KV-cache capacity in blocks. */
  public int kvCacheBlocks() {
    return kvCacheBlocks;
  }

  /** Tokens per KV-cache block. */
  public int blockSize() {
    return blockSize;
  }

  /** Whether full prompt blocks are cached by content and reused across requests. */
  public boolean prefixCaching() {
    return prefixCaching;
  }

  /** KV-cache capacity in tokens: blocks × block size. */
  public long kvCacheTokens() {
    return (long) kvCacheBlocks * blockSize;
  }

  /** The cost, ms, of a step that decodes {@code batch} sequences of {@code context} tokens each and nothing else. */
  public double decodeStepMillis(int batch, long context) {
    return stepOverheadMs + decodeBaseMs + batch * (decodePerSequenceMs + decodePerContextTokenMs * context);
  }

  /** The cost, ms, of a step that prefills one whole prompt of {@code tokens} and nothing else. */
  public double prefillStepMillis(int tokens) {
    return stepOverheadMs + prefillBaseMs + prefillChunkMillis(tokens, 0);
  }

  /** The variable cost, ms, of a prefill chunk of {@code tokens} after {@code computed} prompt tokens. */
  double prefillChunkMillis(int tokens, long computed) {
    double t = tokens;
    return prefillPerTokenMs * t + prefillQuadraticMs * (t * t + 2 * t * computed);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof EngineProfile p && p.name.equals(name) && p.stepOverheadMs == stepOverheadMs
        && p.decodeBaseMs == decodeBaseMs && p.decodePerSequenceMs == decodePerSequenceMs
        && p.decodePerContextTokenMs == decodePerContextTokenMs && p.prefillBaseMs == prefillBaseMs
        && p.prefillPerTokenMs == prefillPerTokenMs && p.prefillQuadraticMs == prefillQuadraticMs
        && p.maxRunningSequences == maxRunningSequences && p.maxBatchedTokens == maxBatchedTokens
        && p.kvCacheBlocks == kvCacheBlocks && p.blockSize == blockSize && p.prefixCaching == prefixCaching
        && p.swapMsPerBlock == swapMsPerBlock;
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, stepOverheadMs, decodeBaseMs, decodePerSequenceMs, decodePerContextTokenMs,
        prefillBaseMs, prefillPerTokenMs, prefillQuadraticMs, maxRunningSequences, maxBatchedTokens,
        kvCacheBlocks, blockSize, prefixCaching, swapMsPerBlock);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "EngineProfile{%s, step %.3g ms + decode %.3g + %.3g/seq + %.3g/ctx token,"
        + " prefill %.3g + %.3g/token + %.3g/token², maxSeqs=%d, maxBatchedTokens=%d, kv=%d×%d%s}",
        name, stepOverheadMs, decodeBaseMs, decodePerSequenceMs, decodePerContextTokenMs, prefillBaseMs,
        prefillPerTokenMs, prefillQuadraticMs, maxRunningSequences, maxBatchedTokens, kvCacheBlocks, blockSize,
        prefixCaching ? ", prefix cache" : "")
        + (swapMsPerBlock > 0 ? String.format(Locale.ROOT, ", swap %.3g ms/block", swapMsPerBlock) : "");
  }

  /** Collects and validates {@link EngineProfile} values; every cost is in milliseconds. */
  public static final class Builder {

    private String name = "custom";
    private double stepOverheadMs = 2.3;
    private double decodeBaseMs = 4.17;
    private double decodePerSequenceMs = 0.0124;
    private double decodePerContextTokenMs = 2.9e-5;
    private double prefillBaseMs = 2.3;
    private double prefillPerTokenMs = 0.0223;
    private double prefillQuadraticMs = 6.5e-7;
    private int maxRunningSequences = 256;
    private int maxBatchedTokens = 8192;
    private int kvCacheBlocks = 51_000;
    private int blockSize = 16;
    private boolean prefixCaching = true;
    private double swapMsPerBlock;

    private Builder() {}

    private Builder(EngineProfile p) {
      this.name = p.name;
      this.stepOverheadMs = p.stepOverheadMs;
      this.decodeBaseMs = p.decodeBaseMs;
      this.decodePerSequenceMs = p.decodePerSequenceMs;
      this.decodePerContextTokenMs = p.decodePerContextTokenMs;
      this.prefillBaseMs = p.prefillBaseMs;
      this.prefillPerTokenMs = p.prefillPerTokenMs;
      this.prefillQuadraticMs = p.prefillQuadraticMs;
      this.maxRunningSequences = p.maxRunningSequences;
      this.maxBatchedTokens = p.maxBatchedTokens;
      this.kvCacheBlocks = p.kvCacheBlocks;
      this.blockSize = p.blockSize;
      this.prefixCaching = p.prefixCaching;
      this.swapMsPerBlock = p.swapMsPerBlock;
    }

    /** The profile's name, for reports; not blank. */
    public Builder name(String name) {
      Objects.requireNonNull(name, "name");
      if (name.isBlank()) {
        throw new IllegalArgumentException("profile name must not be blank");
      }
      this.name = name;
      return this;
    }

    /** Fixed cost of every step, ms, ≥ 0. */
    public Builder stepOverheadMs(double ms) {
      this.stepOverheadMs = cost(ms, "stepOverheadMs");
      return this;
    }

    /** Base cost of a step that decodes, ms, ≥ 0. */
    public Builder decodeBaseMs(double ms) {
      this.decodeBaseMs = cost(ms, "decodeBaseMs");
      return this;
    }

    /** Decode cost per decoding sequence, ms, ≥ 0. */
    public Builder decodePerSequenceMs(double ms) {
      this.decodePerSequenceMs = cost(ms, "decodePerSequenceMs");
      return this;
    }

    /** Decode cost per context token of each decoding sequence, ms, ≥ 0. */
    public Builder decodePerContextTokenMs(double ms) {
      this.decodePerContextTokenMs = cost(ms, "decodePerContextTokenMs");
      return this;
    }

    /** Base cost of a prefill-only step, ms, ≥ 0. */
    public Builder prefillBaseMs(double ms) {
      this.prefillBaseMs = cost(ms, "prefillBaseMs");
      return this;
    }

    /** Prefill cost per token, ms, ≥ 0. */
    public Builder prefillPerTokenMs(double ms) {
      this.prefillPerTokenMs = cost(ms, "prefillPerTokenMs");
      return this;
    }

    /** Prefill cost per squared token, ms, ≥ 0. */
    public Builder prefillQuadraticMs(double ms) {
      this.prefillQuadraticMs = cost(ms, "prefillQuadraticMs");
      return this;
    }

    /** Most sequences running at once, ≥ 1. */
    public Builder maxRunningSequences(int sequences) {
      this.maxRunningSequences = atLeastOne(sequences, "maxRunningSequences");
      return this;
    }

    /** Most tokens computed in one step, ≥ 1. */
    public Builder maxBatchedTokens(int tokens) {
      this.maxBatchedTokens = atLeastOne(tokens, "maxBatchedTokens");
      return this;
    }

    /** KV-cache capacity in blocks, ≥ 1. */
    public Builder kvCacheBlocks(int blocks) {
      this.kvCacheBlocks = atLeastOne(blocks, "kvCacheBlocks");
      return this;
    }

    /** Tokens per KV-cache block, ≥ 1 (vLLM uses 16). */
    public Builder blockSize(int tokens) {
      this.blockSize = atLeastOne(tokens, "blockSize");
      return this;
    }

    /** Whether full prompt blocks are cached and reused across requests. */
    public Builder prefixCaching(boolean enabled) {
      this.prefixCaching = enabled;
      return this;
    }

    /** Preempt by swapping KV to host memory at this cost per block each way (ms, &gt; 0). */
    public Builder swapPreemption(double msPerBlock) {
      if (!(msPerBlock > 0) || Double.isInfinite(msPerBlock)) {
        throw new IllegalArgumentException("swap cost must be a finite number of ms per block > 0, was " + msPerBlock
            + "; use recomputePreemption() for vLLM V1's recompute");
      }
      this.swapMsPerBlock = msPerBlock;
      return this;
    }

    /** Preempt by recomputing (the default, vLLM V1's behaviour). */
    public Builder recomputePreemption() {
      this.swapMsPerBlock = 0;
      return this;
    }

    /**
     * The profile.
     *
     * @throws IllegalArgumentException if a step could cost nothing at all (the engine would spin)
     */
    public EngineProfile build() {
      if (stepOverheadMs + Math.min(decodeBaseMs, prefillBaseMs) <= 0) {
        throw new IllegalArgumentException("stepOverheadMs + min(decodeBaseMs, prefillBaseMs) must be > 0 so "
            + "every step takes time, was " + stepOverheadMs + " + min(" + decodeBaseMs + ", " + prefillBaseMs + ")");
      }
      return new EngineProfile(this);
    }

    private static double cost(double ms, String name) {
      if (!(ms >= 0) || Double.isInfinite(ms)) {
        throw new IllegalArgumentException(name + " must be a finite number of ms >= 0, was " + ms);
      }
      return ms;
    }

    private static int atLeastOne(int value, String name) {
      if (value < 1) {
        throw new IllegalArgumentException(name + " must be at least 1, was " + value);
      }
      return value;
    }
  }
}
