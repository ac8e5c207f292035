package io.infermark.perturbation.operator;

/**
 * Where an operator's edit lands: the prompt's natural-language text, or its structure (the output
 * schema that goes with the prompt: property names, order, requirements and descriptions).
 */
public enum Channel {
  /** The prompt's text, outside the output schema. */
  TEXT,
  /** The output schema attached to the prompt (and so the {@code response_format} built from it). */
  STRUCTURE
}
