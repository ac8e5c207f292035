package io.infermark.testkit.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When the engine admits a waiting sequence: never into a step that began before the sequence arrived. */
class EngineAdmissionTest {

  private static final long MS = 1_000_000L;

  private static Engine engine() {
    return new Engine(EngineProfile.builder().stepOverheadMs(1).decodeBaseMs(1).decodePerSequenceMs(0)
        .decodePerContextTokenMs(0).prefillBaseMs(2).prefillPerTokenMs(0.1).prefillQuadraticMs(0)
        .maxRunningSequences(8).maxBatchedTokens(8192).kvCacheBlocks(100).blockSize(16).prefixCaching(false)
        .build());
  }

  private static Sequence arriving(String id, long arrivalNanos) {
    return new Sequence(id, arrivalNanos, 10, 4, new long[0], Sequence.NO_LISTENER);
  }

  /**
   * Steps run back to back from the last one's end, which can lie before a request that reached the engine
   * late: such a request waits for the next step, so its first token is never sooner than one step after it
   * arrived (a server TTFT shorter than any step was once the result).
   */
  @Test
  void aSequenceThatArrivedAfterTheStepBeganWaitsForTheNextStep() {
    Engine engine = engine();
    Sequence early = arriving("early", 0);
    engine.add(early, 0);
    Engine.Step first = engine.plan(0);
    assertThat(first.work()).extracting(w -> w.sequence().id).containsExactly("early");
    engine.complete(first, first.endNanos());

    Sequence late = arriving("late", first.endNanos() + 3 * MS);
    engine.add(late, late.arrivalNanos);
    Engine.Step backToBack = engine.plan(first.endNanos()); // planned from the last end, before "late" arrived
    assertThat(backToBack.work()).extracting(w -> w.sequence().id).containsExactly("early");
    engine.complete(backToBack, backToBack.endNanos());

    Engine.Step next = engine.plan(Math.max(backToBack.endNanos(), late.arrivalNanos));
    assertThat(next.work()).extracting(w -> w.sequence().id).contains("late");
    assertThat(next.startNanos()).isGreaterThanOrEqualTo(late.arrivalNanos);
  }

  @Test
  void anIdleEngineHasNoStepForASequenceThatHasNotArrivedYet() {
    Engine engine = engine();
    engine.add(arriving("future", 5 * MS), 5 * MS);
    assertThat(engine.plan(0)).isNull();
    assertThat(engine.plan(5 * MS).work()).extracting(w -> w.sequence().id).containsExactly("future");
  }
}
