package io.infermark.core.session;

import io.infermark.core.workload.WorkloadTags;

/**
 * Tags every record of a session call carries (besides {@link WorkloadTags#SESSION},
 * {@link WorkloadTags#TURN}, {@link WorkloadTags#INPUT_TOKENS_ACHIEVED} and, on a retry,
 * {@link WorkloadTags#RETRY_OF}), so per-session metrics can be rebuilt from the records (or a journal)
 * alone. Values are decimal strings.
 */
public final class SessionTags {

  /** The session's id (same as {@link WorkloadTags#SESSION}). */
  public static final String SESSION = WorkloadTags.SESSION;
  /** The turn within the session, from 0 (same as {@link WorkloadTags#TURN}). */
  public static final String TURN = WorkloadTags.TURN;
  /** Turns the session was planned to have. */
  public static final String SESSION_TURNS = "session_turns";
  /** The model call's position within its turn, from 0 (fan-out branches share their step). */
  public static final String STEP = "step";
  /** Model-call positions of the turn ({@link #STEP} runs from 0 to this minus 1): its steps plus one. */
  public static final String TURN_STEPS = "turn_steps";
  /** Tool or sub-agent hops before this call within its turn: 0 for the turn's first call. */
  public static final String TOOL_CALL_DEPTH = "tool_call_depth";
  /** Retries of this call before this attempt: 0 for the first attempt. */
  public static final String RETRY_COUNT = "retry_count";
  /** Attempts the retry policy allowed this call. */
  public static final String MAX_ATTEMPTS = "max_attempts";
  /** The fan-out branch of a sub-agent call, from 0; absent on other calls. */
  public static final String BRANCH = "branch";
  /** Branches of the fan-out a sub-agent call belongs to; absent on other calls. */
  public static final String BRANCHES = "branches";
  /**
   * Nanoseconds the session spent in the client-side tool just before this call (every attempt and
   * backoff, measured on the run's clock); absent when no tool preceded it.
   */
  public static final String TOOL_NANOS = "tool_nanos";
  /** Failed tool attempts that were retried before this call. */
  public static final String TOOL_RETRIES = "tool_retries";
  /** 1 when the tool before this call failed every attempt (its error went to the model). */
  public static final String TOOL_FAILED = "tool_failed";
  /** On a fidelity probe: the planted fact the reply should contain. */
  public static final String PROBE_EXPECTED = "probe_expected";
  /** On a fidelity probe: the turn the fact was planted at. */
  public static final String PROBE_PLANTED_TURN = "probe_planted_turn";

  private SessionTags() {}
}
