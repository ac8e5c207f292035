package io.infermark.core.sweep;

import io.infermark.core.Interruption;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.ScheduleStats;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.load.ArrivalProcess;
import io.infermark.core.load.LoadProfile;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.stream.Collectors;

/**
 * Merges the results of the shards of one schedule ({@code LoadProfile.shard(i, n)}) into the
 * result of the whole run.
 *
 * <p>Records keep their original schedule index and intended time (the shared schedule's, from
 * the shared start), so the merged records are exactly the single-machine schedule's. Each shard's
 * send and end times are shifted by how much later than the earliest shard it started (its
 * {@code startedAt} minus the earliest), so a shard that started late shows it as schedule lag.
 * Schedule statistics are recomputed over all records; the requested rate is the whole schedule's.
 * The merged {@code originNanos} is 0 (the shards' monotonic clocks are not comparable), the
 * environment is the first shard's, and the target is the shards' common description. The client
 * health is the worst shard's ({@link ClientHealth#worstOf}): one starved shard makes the whole run
 * suspect. If any shard was interrupted, so is the merged run: its {@link Interruption} names each
 * interrupted shard's reason and sums every shard's completed, cancelled, never-sent and unknown counts.
 */
public final class ShardMerge {

  private ShardMerge() {}

  /**
   * Merges the results of all {@code n} shards of one schedule.
   *
   * @throws IllegalArgumentException if a shard is missing or repeated, the shards disagree on
   *     their count, a shard did not retain its records, or two records share an index
   */
  public static RunResult merge(List<RunResult> shards) {
    if (shards.isEmpty()) {
      throw new IllegalArgumentException("nothing to merge: no shard results");
    }
    int count = shards.get(0).load().shardCount();
    BitSet seen = new BitSet();
    for (RunResult r : shards) {
      if (r.load().shardCount() != count) {
        throw new IllegalArgumentException("shards disagree on their count: " + count + " and "
            + r.load().shardCount());
      }
      if (!r.recordsRetained()) {
        throw new IllegalArgumentException("shard " + r.load().shardIndex() + " did not retain its records; "
            + "merging needs them");
      }
      if (seen.get(r.load().shardIndex())) {
        throw new IllegalArgumentException("shard " + r.load().shardIndex() + " appears twice");
      }
      seen.set(r.load().shardIndex());
    }
    if (seen.cardinality() != count) {
      throw new IllegalArgumentException("expected " + count + " shards, got " + shards.size() + " (missing "
          + missing(seen, count) + ")");
    }
    Instant start = shards.stream().map(RunResult::startedAt).min(Comparator.naturalOrder()).orElseThrow();
    List<RequestRecord> all = new ArrayList<>();
    long duration = 0;
    for (RunResult r : shards) {
      long offset = Duration.between(start, r.startedAt()).toNanos();
      duration = Math.max(duration, offset + r.durationNanos());
      for (RequestRecord rec : r.records()) {
        all.add(offset == 0 ? rec : rec.toBuilder().sendNanos(rec.sendNanos() + offset).build());
      }
    }
    all.sort(Comparator.comparingLong(RequestRecord::index));
    for (int i = 1; i < all.size(); i++) {
      if (all.get(i).index() == all.get(i - 1).index()) {
        throw new IllegalArgumentException("two shards both recorded request " + all.get(i).index());
      }
    }
    RunResult first = shards.get(0);
    LoadProfile load = first.load().unsharded();
    OptionalDouble requested = load.arrivalProcess().map(ArrivalProcess::nominalRate).orElse(OptionalDouble.empty());
    String target = shards.stream().map(RunResult::target).distinct().collect(Collectors.joining(" | "));
    int prompts = shards.stream().mapToInt(RunResult::promptCount).max().orElse(0);
    // Each shard's client was judged on its own machine: the merged run is as trustworthy as the worst of them.
    ClientHealth health = ClientHealth.worstOf(shards.stream().map(RunResult::clientHealth).toList());
    return new RunResult(all, true, start, 0, duration, target, load, first.params(), prompts, first.environment(),
        ScheduleStats.of(all, requested), List.of(), health, shards.stream().anyMatch(RunResult::insecureTls),
        interruption(shards, start));
  }

  /**
   * The merged run is interrupted when any shard was: the reasons of the interrupted shards, the
   * earliest stop (on the merged run's clock), and every shard's counts summed.
   */
  private static Optional<Interruption> interruption(List<RunResult> shards, Instant start) {
    List<String> reasons = new ArrayList<>();
    Instant at = null;
    long atNanos = Long.MAX_VALUE;
    long completed = 0;
    long cancelled = 0;
    long notSent = 0;
    long unknown = 0;
    for (RunResult r : shards) {
      if (r.interruption().isEmpty()) {
        for (RequestRecord rec : r.records()) {
          ErrorCategory c = rec.failure().map(f -> f.category()).orElse(null);
          if (c == ErrorCategory.NOT_SENT) {
            notSent++;
          } else if (c == ErrorCategory.CANCELLED) {
            cancelled++;
          } else {
            completed++;
          }
        }
        continue;
      }
      Interruption i = r.interruption().get();
      reasons.add("shard " + r.load().shardIndex() + " of " + r.load().shardCount() + ": " + i.reason());
      long offset = Duration.between(start, r.startedAt()).toNanos() + i.atNanos();
      if (offset < atNanos) {
        atNanos = offset;
        at = i.at();
      }
      completed += i.completed();
      cancelled += i.cancelled();
      notSent += i.notSent();
      unknown += i.unknown();
    }
    if (reasons.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new Interruption(String.join("; ", reasons), at, atNanos, completed, cancelled, notSent,
        unknown));
  }

  private static String missing(BitSet seen, int count) {
    List<Integer> m = new ArrayList<>();
    for (int i = seen.nextClearBit(0); i < count; i = seen.nextClearBit(i + 1)) {
      m.add(i);
    }
    return m.toString();
  }
}
