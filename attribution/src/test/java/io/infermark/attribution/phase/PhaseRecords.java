package io.infermark.attribution.phase;

import static io.infermark.core.capture.ChunkTimeline.UNKNOWN_TOKENS;

import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ConnectionPhases;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.fixtures.RunFixtures;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** Hand-built records with connection milestones and chunks, for the phase tests. */
final class PhaseRecords {

  private PhaseRecords() {}

  /** Milliseconds as record nanoseconds; exact for the values the tests use. */
  static long ms(double millis) {
    return RunFixtures.ms(millis);
  }

  /** Milestones from (phase, ms) pairs; the rest absent. */
  static ConnectionPhases milestones(Map<Phase, Double> ms) {
    long[] offsets = new long[Phase.values().length];
    Arrays.fill(offsets, -1);
    ms.forEach((p, v) -> offsets[p.ordinal()] = ms(v));
    return ConnectionPhases.of(offsets);
  }

  /** An ordered milestone map. */
  static Map<Phase, Double> at(Object... phaseThenMs) {
    Map<Phase, Double> m = new EnumMap<>(Phase.class);
    for (int i = 0; i < phaseThenMs.length; i += 2) {
      m.put((Phase) phaseThenMs[i], ((Number) phaseThenMs[i + 1]).doubleValue());
    }
    return m;
  }

  /** Content chunks at the given ms offsets from send. */
  static ChunkTimeline content(double... ms) {
    ChunkTimeline.Builder b = ChunkTimeline.builder();
    for (double t : ms) {
      b.add(ms(t), ChunkKind.CONTENT, UNKNOWN_TOKENS);
    }
    return b.build();
  }

  /** A successful measured record. */
  static RequestRecord record(long index, double intendedMs, double sendMs, Map<Phase, Double> milestones,
      ChunkTimeline chunks) {
    return RequestRecord.builder().index(index).intendedNanos(ms(intendedMs)).sendNanos(ms(sendMs))
        .phases(milestones(milestones)).httpStatus(200).chunks(chunks)
        .endOffsetNanos(chunks.lastOffsetNanos() + ms(1)).build();
  }

  /** A closed-loop run of the records. */
  static RunResult run(List<RequestRecord> records) {
    return RunFixtures.run(records).startedAt(RunFixtures.STARTED_AT).build();
  }
}
