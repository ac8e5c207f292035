package io.infermark.metrics.session;

import java.util.Locale;

/**
 * Judges whether a reply still uses a fact planted earlier in its session (the memory-decay probe). The
 * default, {@link #containsFact()}, asks whether the reply contains the fact's text; plug in a semantic
 * scorer instead, e.g. {@code (reply, fact) -> scorer.score(reply, fact) >= 0.75} with the perturbation
 * module's {@code SemanticScorer}.
 */
@FunctionalInterface
public interface FactJudge {

  /** True when {@code reply} recalls {@code fact}. */
  boolean recalls(String reply, String fact);

  /** Recalled when the reply contains the fact, ignoring case. */
  static FactJudge containsFact() {
    return (reply, fact) -> reply.toLowerCase(Locale.ROOT).contains(fact.toLowerCase(Locale.ROOT));
  }
}
