package io.infermark.perturbation;

import io.infermark.perturbation.operator.Operator;
import java.util.Objects;

/**
 * A named axis of a {@link PerturbationSpace}: one operator and its ordered levels.
 *
 * @param name the dimension's name, used in tags ({@code level.<name>}) and reports
 * @param operator the operator applied along it
 */
public record Dimension(String name, Operator operator) {

  /** Validates. */
  public Dimension {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(operator, "operator");
    if (name.isBlank() || !name.chars().allMatch(c -> Character.isLetterOrDigit(c) || c == '_' || c == '-')) {
      throw new IllegalArgumentException("dimension name must be letters, digits, '_' or '-', was '" + name + "'");
    }
    if (operator.levelCount() < 1) {
      throw new IllegalArgumentException("dimension '" + name + "' has an operator without levels");
    }
  }

  /** The number of levels. */
  public int levels() {
    return operator.levelCount();
  }

  /** The tag under which a variant records this dimension's level. */
  public String tag() {
    return "level." + name;
  }

  @Override
  public String toString() {
    return name + "=" + operator;
  }
}
