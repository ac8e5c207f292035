package io.infermark.core.load;

import java.util.List;
import java.util.OptionalDouble;
import java.util.stream.Collectors;

/**
 * Stages one after another; see {@link ArrivalProcess#sequence(List)}. Stage {@code k} is seeded with
 * {@code Randoms.mix(seed, k)} and its times are offset by the durations of the stages before it;
 * nothing is scheduled after the last stage.
 */
final class SequenceArrivals implements ArrivalProcess {
  private final List<Stage> stages;

  SequenceArrivals(List<Stage> stages) {
    if (stages.isEmpty()) {
      throw new IllegalArgumentException("a sequence needs at least one stage");
    }
    this.stages = List.copyOf(stages);
  }

  @Override
  public long[] schedule(int maxCount, long limitNanos, long seed) {
    Rates.checkLimits(maxCount, limitNanos);
    Rates.Times t = new Rates.Times(maxCount, Math.min(maxCount, 1 << 16));
    long offset = 0;
    for (int k = 0; k < stages.size() && !t.full() && offset < limitNanos; k++) {
      long length = stages.get(k).duration().toNanos();
      long stageLimit = Math.min(length, limitNanos - offset);
      long[] part = stages.get(k).process().schedule(maxCount - t.size(), stageLimit, Randoms.mix(seed, k));
      for (long at : part) {
        t.add(offset + at);
      }
      offset += length;
    }
    return t.toArray();
  }

  /** The time-weighted mean of the stages' rates, when every stage has one. */
  @Override
  public OptionalDouble nominalRate() {
    double weighted = 0;
    double total = 0;
    for (Stage s : stages) {
      OptionalDouble r = s.process().nominalRate();
      if (r.isEmpty()) {
        return OptionalDouble.empty();
      }
      weighted += r.getAsDouble() * s.duration().toNanos();
      total += s.duration().toNanos();
    }
    return OptionalDouble.of(weighted / total);
  }

  @Override
  public String toString() {
    return stages.stream().map(Stage::toString).collect(Collectors.joining(", then ", "sequence(", ")"));
  }
}
