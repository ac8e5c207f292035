package io.infermark.testkit.simulator;

/**
 * Chains per-token hashes into per-block hashes, as vLLM's prefix cache does: block {@code j}'s
 * hash covers its own tokens and (through the previous block's hash) every token before it, so two
 * prompts have an equal block hash exactly when they agree on every token up to that block's end.
 * Only full blocks are hashed; a partial last block is never cached.
 */
final class PromptHashes {

  private static final long ROOT = 0x2545F4914F6CDD1DL;

  private PromptHashes() {}

  static long[] blocks(long[] tokenHashes, int blockSize) {
    long[] blocks = new long[tokenHashes.length / blockSize];
    long h = ROOT;
    for (int b = 0; b < blocks.length; b++) {
      for (int t = b * blockSize; t < (b + 1) * blockSize; t++) {
        h = Mix.mix64(h, tokenHashes[t]);
      }
      blocks[b] = h;
    }
    return blocks;
  }
}
