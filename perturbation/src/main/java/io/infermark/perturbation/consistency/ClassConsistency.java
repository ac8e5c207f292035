package io.infermark.perturbation.consistency;

import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * How consistently the server answered one equivalence class of variants (variants that must mean
 * the same).
 *
 * @param classId the class
 * @param responses successful responses with text in the class
 * @param failed failed requests in the class (left out of every number below)
 * @param exactMatchRate share of responses identical to the class's most frequent response
 * @param meanEditDistance mean normalised Levenshtein distance over pairs of responses (0 = all
 *     identical, 1 = nothing shared); empty below two responses
 * @param pairsSampled true when the distance was estimated from a sample of pairs
 * @param jsonFieldAgreement mean over JSON leaf fields of the share of responses holding the field's
 *     most frequent value (a response without the field, or without JSON, holds "absent"); empty when
 *     no response holds JSON
 * @param fieldAgreement the agreement of each field, by JSON pointer
 * @param meanLatencyMs mean E2E of the responses, milliseconds
 * @param latencyVarianceMs2 sample variance (n − 1) of E2E, ms²; empty below two responses
 * @param meanOutputTokens mean output length in tokens
 * @param outputTokensVariance sample variance of output length, tokens²; empty below two responses
 */
public record ClassConsistency(String classId, int responses, int failed, double exactMatchRate,
    OptionalDouble meanEditDistance, boolean pairsSampled, OptionalDouble jsonFieldAgreement,
    Map<String, Double> fieldAgreement, double meanLatencyMs, OptionalDouble latencyVarianceMs2,
    double meanOutputTokens, OptionalDouble outputTokensVariance) {

  /** Copies. */
  public ClassConsistency {
    fieldAgreement = Map.copyOf(fieldAgreement);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "ClassConsistency[%s: %d responses, exact %.3f, edit distance %s, json %s,"
        + " latency var %s ms², length var %s]", classId, responses, exactMatchRate, f(meanEditDistance),
        f(jsonFieldAgreement), f(latencyVarianceMs2), f(outputTokensVariance));
  }

  static String f(OptionalDouble v) {
    return v.isPresent() ? String.format(Locale.ROOT, "%.3f", v.getAsDouble()) : "-";
  }
}
