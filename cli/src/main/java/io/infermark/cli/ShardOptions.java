package io.infermark.cli;

import io.infermark.core.load.LoadProfile;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * One shard of a schedule split over several machines ({@code LoadProfile.shard}): which shard this
 * process runs, how many there are, and the wall-clock instant they all start at
 * ({@code core.shard.StartBarrier}). {@code infermark merge} makes the shards' files one run.
 */
final class ShardOptions {

  @Option(names = "--shard-index", paramLabel = "I",
      description = "Run only shard I (0-based) of the schedule: requests whose index mod --shard-count is I, at "
          + "their original times. In a Kubernetes Indexed Job: --shard-index=$(JOB_COMPLETION_INDEX).")
  Integer index;

  @Option(names = "--shard-count", paramLabel = "N",
      description = "How many shards the schedule is split over (needs a finite --request-rate). Each shard writes "
          + "its records and run facts to --result-dir; infermark merge makes them one run.")
  Integer count;

  @Option(names = "--start-at", paramLabel = "INSTANT",
      description = "Wait until this wall-clock instant (ISO-8601, e.g. 2026-01-02T03:04:05Z) before starting the "
          + "schedule, so shards on several machines start together; keep the clocks NTP-synchronised.")
  String startAt;

  /** Whether a shard was asked for. */
  boolean sharded() {
    return index != null || count != null;
  }

  /** The shard index (0 when not sharded). */
  int index() {
    return index == null ? 0 : index;
  }

  /** The shard count (1 when not sharded). */
  int count() {
    return count == null ? 1 : count;
  }

  /** The start barrier's instant, if one was given. */
  Optional<Instant> startInstant() {
    if (startAt == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(startAt.strip()));
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("--start-at takes an ISO-8601 instant such as 2026-01-02T03:04:05Z "
          + "(date -u +%Y-%m-%dT%H:%M:%SZ), was '" + startAt + "'");
    }
  }

  /**
   * This shard of the whole schedule's profile.
   *
   * @throws IllegalArgumentException if only one of index and count is given, they are out of range, or
   *     the schedule is a closed loop
   */
  LoadProfile apply(LoadProfile whole, double rate) {
    if (!sharded()) {
      return whole;
    }
    if (index == null || count == null) {
      throw new IllegalArgumentException("--shard-index and --shard-count go together, got only "
          + (index == null ? "--shard-count" : "--shard-index"));
    }
    if (count < 1) {
      throw new IllegalArgumentException("--shard-count must be >= 1, was " + count);
    }
    if (index < 0 || index >= count) {
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "--shard-index must be in [0, %d) for --shard-count %d, was %d", count, count, index));
    }
    if (Double.isInfinite(rate)) {
      throw new IllegalArgumentException("--shard-count splits an open-loop schedule: give a finite --request-rate "
          + "(with --request-rate inf there is no schedule to split; run separate benches with their own "
          + "--max-concurrency instead)");
    }
    return whole.shard(index, count);
  }

  /** The file stem of this shard's files: {@code STEM.shard-I-of-N}. */
  String fileStem(String stem) {
    return stem + ".shard-" + index() + "-of-" + count();
  }
}
