package io.infermark.metrics;

import io.infermark.core.capture.TokenCountSource;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * Token counts over a run's successful measured requests: totals and means of input and output
 * tokens, where each output count N came from ({@link TokenCountSource}), and how often the server's
 * count disagreed with the stream's own.
 *
 * <p>Input tokens are the server's {@code usage.prompt_tokens} when it reported them, and otherwise the client's
 * count of the prompt when the workload recorded one (the tag {@code input_tokens_achieved}: exact-length and
 * synthetic prompts, sessions, datasets read with {@code Dataset.withInputCounts}, every dataset of the CLI), as
 * output tokens fall back to the stream's own count; {@link #requestsWithClientInputTokens()} says how many came
 * from the client. A request with neither contributes nothing to {@link #inputTokens()} and is counted in
 * {@link #requestsWithoutInputTokens()} instead. Means divide by the requests that have a count.
 *
 * @param requests successful measured requests these counts cover
 * @param outputTokens sum of N over those requests
 * @param inputTokens sum of the prompt tokens known: the server's, else the client's count
 * @param requestsWithInputTokens requests whose prompt tokens are known (from the server or the client)
 * @param sources how many requests took N from each source; sources with no request are absent
 * @param disagreements requests whose server usage and streamed token count differ
 * @param shortOutputs requests that asked for an exact output length and stopped well short of it
 * @param requestsWithClientInputTokens of {@code requestsWithInputTokens}, those whose count is the client's (the
 *     server reported none)
 */
public record TokenSummary(int requests, long outputTokens, long inputTokens, int requestsWithInputTokens,
    Map<TokenCountSource, Integer> sources, int disagreements, ShortOutputs shortOutputs,
    int requestsWithClientInputTokens) {

  /** Counts with every input count the server's and no short outputs ({@link ShortOutputs#NONE}). */
  public TokenSummary(int requests, long outputTokens, long inputTokens, int requestsWithInputTokens,
      Map<TokenCountSource, Integer> sources, int disagreements) {
    this(requests, outputTokens, inputTokens, requestsWithInputTokens, sources, disagreements, ShortOutputs.NONE, 0);
  }

  /** Validates and copies; {@code sources} keeps {@link TokenCountSource} order and drops zeros. */
  public TokenSummary {
    java.util.Objects.requireNonNull(shortOutputs, "shortOutputs");
    if (requestsWithClientInputTokens < 0 || requestsWithClientInputTokens > requestsWithInputTokens) {
      throw new IllegalArgumentException("requestsWithClientInputTokens (" + requestsWithClientInputTokens
          + ") must lie in [0, requestsWithInputTokens (" + requestsWithInputTokens + ")]");
    }
    if (shortOutputs.asked() > requests) {
      throw new IllegalArgumentException("shortOutputs.asked (" + shortOutputs.asked() + ") cannot exceed requests ("
          + requests + ")");
    }
    if (requests < 0 || outputTokens < 0 || inputTokens < 0 || requestsWithInputTokens < 0 || disagreements < 0) {
      throw new IllegalArgumentException("token counts must be >= 0");
    }
    if (requestsWithInputTokens > requests || disagreements > requests) {
      throw new IllegalArgumentException("requestsWithInputTokens (" + requestsWithInputTokens
          + ") and disagreements (" + disagreements + ") cannot exceed requests (" + requests + ")");
    }
    EnumMap<TokenCountSource, Integer> copy = new EnumMap<>(TokenCountSource.class);
    sources.forEach((k, v) -> {
      if (v < 0) {
        throw new IllegalArgumentException("count for " + k + " must be >= 0, was " + v);
      }
      if (v > 0) {
        copy.put(k, v);
      }
    });
    sources = Collections.unmodifiableMap(copy);
  }

  /** Successful measured requests whose prompt tokens neither the server reported nor the client counted. */
  public int requestsWithoutInputTokens() {
    return requests - requestsWithInputTokens;
  }

  /** Mean output tokens per request, if there were requests. */
  public OptionalDouble meanOutputTokens() {
    return requests == 0 ? OptionalDouble.empty() : OptionalDouble.of((double) outputTokens / requests);
  }

  /** Mean input tokens per request whose count is known, if any is. */
  public OptionalDouble meanInputTokens() {
    return requestsWithInputTokens == 0 ? OptionalDouble.empty()
        : OptionalDouble.of((double) inputTokens / requestsWithInputTokens);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "TokenSummary[%d requests, %d output tokens, %d input tokens (%d counted by the client, "
        + "%d unknown), sources %s, %d disagreements%s]", requests, outputTokens, inputTokens,
        requestsWithClientInputTokens, requestsWithoutInputTokens(), sources,
        disagreements, shortOutputs.any() ? ", " + shortOutputs.requests() + " short of the length asked" : "");
  }
}
