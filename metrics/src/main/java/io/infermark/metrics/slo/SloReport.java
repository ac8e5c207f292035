package io.infermark.metrics.slo;

import java.util.List;
import java.util.Objects;

/**
 * The outcome of checking a run against an {@link SloSet}: one verdict per objective, in the set's
 * order, and the goodput.
 *
 * @param name the set's name
 * @param verdicts one per objective
 * @param goodput requests per second meeting every per-request objective
 */
public record SloReport(String name, List<SloVerdict> verdicts, Goodput goodput) {

  /** Validates and copies. */
  public SloReport {
    Objects.requireNonNull(name, "name");
    verdicts = List.copyOf(verdicts);
    Objects.requireNonNull(goodput, "goodput");
  }

  /** True when every objective passed (an objective without data does not pass). */
  public boolean allPassed() {
    return verdicts.stream().allMatch(SloVerdict::passed);
  }

  @Override
  public String toString() {
    long passed = verdicts.stream().filter(SloVerdict::passed).count();
    return "SloReport[" + name + ": " + passed + "/" + verdicts.size() + " passed, " + goodput + "]";
  }
}
