package io.infermark.testkit.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The KV allocator's fragmentation and preemption (recompute and swap), on hand-computed cases. */
class KvPressureEngineTest {

  private static final long MS = 1_000_000L;

  /** Steps cost 1 ms plus 0.1 ms per prefill token; decode costs nothing more. Block size 16. */
  private static EngineProfile.Builder simple(int blocks) {
    return EngineProfile.builder().stepOverheadMs(1).decodeBaseMs(0).decodePerSequenceMs(0)
        .decodePerContextTokenMs(0).prefillBaseMs(0).prefillPerTokenMs(0.1).prefillQuadraticMs(0)
        .maxRunningSequences(8).maxBatchedTokens(8192).kvCacheBlocks(blocks).blockSize(16).prefixCaching(false);
  }

  private static Sequence sequence(String id, int prompt, int output) {
    return new Sequence(id, 0, prompt, output, new long[0], Sequence.NO_LISTENER);
  }

  @Test
  void fragmentationIsTheUnfilledTailOfEachSequencesLastBlock() {
    Engine engine = new Engine(simple(100).build());
    engine.add(sequence("a", 17, 4), 0);
    Engine.Step prefill = engine.plan(0);
    // 17 prompt tokens in 2 blocks of 16: 15 of 32 slots empty.
    assertThat(engine.stats().kvFragmentation()).isCloseTo(15.0 / 32, within(1e-12));
    assertThat(engine.stats().kvBlocksUsed()).isEqualTo(2);
    engine.complete(prefill, prefill.endNanos());
    engine.plan(prefill.endNanos());
    // Decoding token 18: 14 of 32 empty.
    assertThat(engine.stats().kvFragmentation()).isCloseTo(14.0 / 32, within(1e-12));
  }

  /** Two 32-token prompts fill a 4-block cache; the first decode of "a" needs a third block and preempts "b". */
  private static Engine preemptingB(EngineProfile profile, long[] durations) {
    Engine engine = new Engine(profile);
    engine.add(sequence("a", 32, 20), 0);
    engine.add(sequence("b", 32, 20), 0);
    long t = 0;
    for (int i = 0; i < durations.length; i++) {
      Engine.Step step = engine.plan(t);
      durations[i] = step.durationNanos();
      engine.complete(step, step.endNanos());
      t = step.endNanos();
    }
    return engine;
  }

  @Test
  void recomputePreemptionFreesTheVictimsBlocksAndPrefillsItAgain() {
    long[] durations = new long[2];
    Engine engine = preemptingB(simple(4).build(), durations);
    assertThat(durations[0]).isEqualTo(Math.round((1 + 0.1 * 64) * MS)); // both prefills: 7.4 ms
    assertThat(durations[1]).isEqualTo(1 * MS); // a's decode; b preempted, nothing swapped
    assertThat(engine.stats().preemptions()).isEqualTo(1);
    assertThat(engine.stats().kvBlocksUsed()).isEqualTo(3);
    assertThat(engine.stats().waiting()).isEqualTo(1);
    assertThat(engine.stats().swapOutBlocks()).isZero();
    long t = 0;
    Engine.Step step = engine.plan(t);
    while (step.work().stream().noneMatch(w -> w.sequence().id.equals("b"))) {
      engine.complete(step, step.endNanos());
      t = step.endNanos();
      step = engine.plan(t);
    }
    // b comes back when a finishes and its KV frees: 33 tokens (prompt + its first token) prefilled
    // again from scratch, 1 + 3.3 ms.
    assertThat(step.work()).singleElement().satisfies(w -> {
      assertThat(w.decode()).isFalse();
      assertThat(w.computedBefore()).isZero();
      assertThat(w.tokens()).isEqualTo(33);
    });
    assertThat(step.durationNanos()).isEqualTo(Math.round((1 + 0.1 * 33) * MS));
  }

  @Test
  void swapPreemptionChargesTheCopyBothWaysAndResumesWithoutPrefill() {
    long[] durations = new long[2];
    Engine engine = preemptingB(simple(4).swapPreemption(0.5).build(), durations);
    // b's 32 computed tokens (2 blocks) go to host memory: 2 x 0.5 ms on top of a's 1 ms decode.
    assertThat(durations[1]).isEqualTo(2 * MS);
    assertThat(engine.stats().swapOutBlocks()).isEqualTo(2);
    assertThat(engine.stats().kvBlocksSwapped()).isEqualTo(2);
    long t = 0;
    Engine.Step step = engine.plan(t);
    while (step.work().stream().noneMatch(w -> w.sequence().id.equals("b"))) {
      engine.complete(step, step.endNanos());
      t = step.endNanos();
      step = engine.plan(t);
    }
    // b comes back when a finishes: a 1-token decode (1 ms) plus 2 blocks copied back (1 ms).
    assertThat(step.work()).singleElement().satisfies(w -> {
      assertThat(w.decode()).isTrue();
      assertThat(w.computedBefore()).isEqualTo(32);
    });
    assertThat(step.durationNanos()).isEqualTo(2 * MS);
    assertThat(engine.stats().swapInBlocks()).isEqualTo(2);
    assertThat(engine.stats().kvBlocksSwapped()).isZero();
  }
}
