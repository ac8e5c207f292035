package io.infermark.core.workload;

/**
 * Names of the tags workloads put on prompts, and so on records, so that reports and attribution
 * can group and explain requests by them. Values are decimal strings unless said otherwise.
 */
public final class WorkloadTags {

  /** Input tokens a prompt was built to have (exact-length prompts, traces, the shaper). */
  public static final String INPUT_TOKENS_REQUESTED = "input_tokens_requested";
  /** Input tokens the built prompt has by {@link #TOKENIZER}; compare with the server's usage. */
  public static final String INPUT_TOKENS_ACHIEVED = "input_tokens_achieved";
  /** The {@code TokenCounter.name()} that counted {@link #INPUT_TOKENS_ACHIEVED}. */
  public static final String TOKENIZER = "tokenizer";
  /**
   * Output tokens asked for with {@code ignore_eos} (the request's {@code max_tokens}); every HTTP target puts it on
   * the record of such a request, so an output that stopped short of it can be counted.
   */
  public static final String OUTPUT_TOKENS_REQUESTED = "output_tokens_requested";
  /** Set on a retry: the schedule index of the original request it repeats. */
  public static final String RETRY_OF = "retry_of";
  /** The unique leading segment {@link CacheBust} put on the prompt (16 hex digits). */
  public static final String CACHE_BUST = "cache_bust";
  /** A session's id (multi-turn workloads). */
  public static final String SESSION = "session";
  /** The turn within a session, from 0. */
  public static final String TURN = "turn";
  /** Zipf popularity rank, from 1 (the hottest item). */
  public static final String RANK = "rank";
  /** The shaper's burst factor for the request. */
  public static final String BURST = "burst";
  /** The shared-prefix group of a request. */
  public static final String PREFIX_GROUP = "prefix_group";
  /** The name of a ready-made mix. */
  public static final String MIX = "mix";
  /** The TTFT SLO of the mix the request belongs to, in milliseconds. */
  public static final String TTFT_SLO_MS = "ttft_slo_ms";
  /** The trace line (from 1) a replayed request came from. */
  public static final String TRACE_LINE = "trace_line";

  private WorkloadTags() {}
}
