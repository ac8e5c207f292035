package io.infermark.metrics;

import java.util.Locale;

/**
 * Requests that asked for an exact output length ({@code ignore_eos} with {@code max_tokens}, recorded as the tag
 * {@code output_tokens_requested}) and succeeded with fewer than {@value #SHARE_PERCENT} % of it. A server that
 * honours {@code ignore_eos} generates the length asked; one that stops well short of it either ignores
 * {@code ignore_eos} or reads {@code max_tokens} as prompt + output (Jlama does), and every per-token figure of the
 * run then rests on shorter outputs than the run was configured for. Counted, not failed: the request did get an
 * answer.
 *
 * <p>The margin allows for counts that are close but not exact: a server that counts the EOS token, or a client
 * count of chunks when a chunk carries two tokens.
 *
 * @param requests successful measured requests that stopped short
 * @param asked successful measured requests that asked for an exact length
 * @param exampleTokens output tokens of the first short request (by schedule index); 0 when none
 * @param exampleAsked the tokens it asked for; 0 when none
 */
public record ShortOutputs(int requests, int asked, int exampleTokens, int exampleAsked) {

  /** An output shorter than this share of the tokens asked is short. */
  public static final double SHARE = 0.9;
  /** {@link #SHARE} in percent, for documentation. */
  static final int SHARE_PERCENT = 90;

  /** No request asked for an exact length. */
  public static final ShortOutputs NONE = new ShortOutputs(0, 0, 0, 0);

  /** Validates. */
  public ShortOutputs {
    if (requests < 0 || asked < requests || exampleTokens < 0 || exampleAsked < 0) {
      throw new IllegalArgumentException(String.format(Locale.ROOT, "need 0 <= requests (%d) <= asked (%d) and "
          + "examples >= 0", requests, asked));
    }
  }

  /** Whether {@code tokens} falls short of {@code asked}. */
  public static boolean isShort(int tokens, int asked) {
    return asked > 0 && tokens < SHARE * asked;
  }

  /** Whether any request stopped short. */
  public boolean any() {
    return requests > 0;
  }

  /**
   * The warning a reader needs, e.g. {@code "38 of 40 requests stopped short of the output asked with ignore_eos
   * (the server stopped at 290 of 384 tokens): it may read max_tokens as a total (prompt + output) or ignore
   * ignore_eos"}; empty when none did.
   */
  public String warning() {
    if (!any()) {
      return "";
    }
    return String.format(Locale.ROOT, "%d of %d requests stopped short of the output asked with ignore_eos (the server "
        + "stopped at %d of %d tokens): it may read max_tokens as a total (prompt + output) or ignore ignore_eos",
        requests, asked, exampleTokens, exampleAsked);
  }

  @Override
  public String toString() {
    return any() ? "ShortOutputs[" + requests + " of " + asked + ", e.g. " + exampleTokens + " of " + exampleAsked + "]"
        : "ShortOutputs[none of " + asked + "]";
  }
}
