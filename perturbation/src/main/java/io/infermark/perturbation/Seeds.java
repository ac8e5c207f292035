package io.infermark.perturbation;

/** SplitMix64 seed derivation, so each dimension and each run gets its own stream. Package-private. */
final class Seeds {

  private Seeds() {}

  static long mix(long seed, long salt) {
    long z = seed + (salt + 1) * 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
