package io.infermark.core.shard;

import io.infermark.core.RunResult;
import io.infermark.core.ScheduleStats;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.load.ArrivalProcess;
import io.infermark.core.load.LoadProfile;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
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
 * suspect.
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
        ScheduleStats.of(all, requested), List.of(), health, shards.stream().anyMatch(RunResult::insecureTls));
  }

  private static String missing(BitSet seen, int count) {
    List<Integer> m = new ArrayList<>();
    for (int i = seen.nextClearBit(0); i < count; i = seen.nextClearBit(i + 1)) {
      m.add(i);
    }
    return m.toString();
  }
}
