package io.infermark.testkit.simulator;

/**
 * Stateless pseudo-random mixing (SplitMix64's finaliser), so every random choice of the
 * simulator is a pure function of the seed and a position or sequence number: reproducible
 * regardless of thread scheduling, with no shared generator to contend on.
 */
final class Mix {

  private static final long GOLDEN_GAMMA = 0x9E3779B97F4A7C15L;

  private Mix() {}

  /** A well-mixed 64-bit value of {@code (seed, index)}. */
  static long mix64(long seed, long index) {
    long z = seed + (index + 1) * GOLDEN_GAMMA;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** A uniform double in [0, 1) determined by {@code (seed, index)}. */
  static double unit(long seed, long index) {
    return (mix64(seed, index) >>> 11) * 0x1.0p-53;
  }
}
