package io.infermark.attribution.intervention;

/** The two settings of a {@link Factor}: {@link #A}, the baseline, and {@link #B}, the intervention. */
public enum Level {
  /** The baseline setting. */
  A,
  /** The intervention setting. */
  B
}
