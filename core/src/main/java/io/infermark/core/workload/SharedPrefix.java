package io.infermark.core.workload;

import io.infermark.core.load.Randoms;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import java.util.Locale;
import java.util.Objects;

/**
 * Shared-prefix groups: request {@code i} belongs to group {@code i mod groups}; its prompt is the
 * group's prefix of {@code prefixTokens} tokens followed by {@code suffixTokens} tokens of its own,
 * so a server with a prefix cache serves the prefix from cache after each group's first request.
 * Tagged {@code prefix_group} and with requested/achieved input length (prefix + suffix).
 *
 * <pre>{@code
 * Benchmark.target(t).workload(SharedPrefix.of(8, 2048, 128)).load(LoadProfile.poisson(10).requests(500))
 * }</pre>
 */
public final class SharedPrefix implements Workload {

  private final int groups;
  private final int prefixTokens;
  private final int suffixTokens;
  private final TokenCounter counter;
  private final long seed;

  private SharedPrefix(int groups, int prefixTokens, int suffixTokens, TokenCounter counter, long seed) {
    if (groups < 1) {
      throw new IllegalArgumentException("groups must be >= 1, was " + groups);
    }
    if (prefixTokens < 0 || suffixTokens < 0 || prefixTokens + suffixTokens == 0) {
      throw new IllegalArgumentException("prefix and suffix tokens must be >= 0 and not both 0, were "
          + prefixTokens + " and " + suffixTokens);
    }
    this.groups = groups;
    this.prefixTokens = prefixTokens;
    this.suffixTokens = suffixTokens;
    this.counter = Objects.requireNonNull(counter, "counter");
    this.seed = seed;
  }

  /** Groups with prefixes and suffixes of the given lengths by {@link TokenCounter#estimate()}, seed 0. */
  public static SharedPrefix of(int groups, int prefixTokens, int suffixTokens) {
    return new SharedPrefix(groups, prefixTokens, suffixTokens, TokenCounter.estimate(), 0);
  }

  /**
   * Groups whose prompts of {@code promptTokens} tokens share their first {@code sharedRatio} of them: a prefix of
   * {@code round(sharedRatio * promptTokens)} tokens per group, the rest each prompt's own, so a server with an
   * unbounded prefix cache serves that share of each prompt after its group's first request.
   *
   * @throws IllegalArgumentException unless {@code groups >= 1}, {@code promptTokens >= 1} and
   *     {@code 0 <= sharedRatio <= 1}
   */
  public static SharedPrefix ofRatio(int groups, int promptTokens, double sharedRatio) {
    if (promptTokens < 1) {
      throw new IllegalArgumentException("promptTokens must be >= 1, was " + promptTokens);
    }
    if (!(sharedRatio >= 0 && sharedRatio <= 1)) {
      throw new IllegalArgumentException("sharedRatio must be in [0, 1], was " + sharedRatio);
    }
    int prefix = (int) Math.round(sharedRatio * promptTokens);
    return of(groups, prefix, promptTokens - prefix);
  }

  /** The same groups measured with another counter. */
  public SharedPrefix counter(TokenCounter counter) {
    return new SharedPrefix(groups, prefixTokens, suffixTokens, counter, seed);
  }

  /** The same groups with other text. */
  public SharedPrefix seed(long seed) {
    return new SharedPrefix(groups, prefixTokens, suffixTokens, counter, seed);
  }

  @Override
  public RequestSpec request(long index, long intendedNanos, GenerationParams defaults) {
    int group = (int) (index % groups);
    StringBuilder text = new StringBuilder(SyntheticText.exactly(counter, prefixTokens, Randoms.mix(seed, group)));
    if (suffixTokens > 0) {
      String suffix = SyntheticText.exactly(counter, suffixTokens, Randoms.mix(seed ^ 0x5FF1L, index));
      text.append(text.length() > 0 ? " " : "").append(suffix);
    }
    Prompt p = Prompt.user(text.toString()).withTag(WorkloadTags.PREFIX_GROUP, Integer.toString(group));
    return new RequestSpec(ExactLength.tag(p, counter, prefixTokens + suffixTokens), defaults);
  }

  @Override
  public int distinctPrompts() {
    return groups;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "SharedPrefix[%d groups, %d + %d tokens (%s)]", groups, prefixTokens,
        suffixTokens, counter.name());
  }
}
