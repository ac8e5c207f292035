package io.infermark.perturbation.validate;

import java.util.Objects;
import java.util.Optional;

/**
 * Whether one response passed a validator, and if not, why.
 *
 * @param valid true when the response passed
 * @param reason why it failed; empty when valid
 */
public record Verdict(boolean valid, Optional<String> reason) {

  private static final Verdict VALID = new Verdict(true, Optional.empty());

  /** Validates. */
  public Verdict {
    Objects.requireNonNull(reason, "reason");
    if (valid == reason.isPresent()) {
      throw new IllegalArgumentException(valid ? "a valid verdict has no reason" : "an invalid verdict needs a reason");
    }
  }

  /** A pass. */
  public static Verdict pass() {
    return VALID;
  }

  /** A failure, with the reason. */
  public static Verdict fail(String reason) {
    return new Verdict(false, Optional.of(Objects.requireNonNull(reason, "reason")));
  }

  @Override
  public String toString() {
    return valid ? "valid" : "invalid: " + reason.get();
  }
}
