package io.infermark.testkit.simulator;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The KV cache's blocks: a count of free anonymous blocks, and the content-hashed blocks of the
 * prefix cache with reference counts. A hashed block nobody references stays cached but is
 * evictable; allocation takes anonymous blocks first, then evicts the least recently released
 * cached block. Not thread-safe: only the engine's thread touches it.
 */
final class KvCache {

  /** One cached block; {@code refs} sequences hold it. */
  private static final class Block {
    int refs;
  }

  private final int total;
  private int free;
  private final Map<Long, Block> byHash = new HashMap<>();
  // Hashed blocks with no reference, in release order: the first is the least recently used.
  private final LinkedHashMap<Long, Block> evictable = new LinkedHashMap<>();

  KvCache(int totalBlocks) {
    this.total = totalBlocks;
    this.free = totalBlocks;
  }

  int totalBlocks() {
    return total;
  }

  /** Blocks that an allocation can take: anonymous free ones plus evictable cached ones. */
  int available() {
    return free + evictable.size();
  }

  /** Blocks referenced by running sequences (cached-but-unreferenced blocks count as free, as in vLLM). */
  int used() {
    return total - available();
  }

  /** Takes {@code n} blocks, evicting cached ones if needed; all or nothing. */
  boolean allocate(int n) {
    if (n > available()) {
      return false;
    }
    int fromFree = Math.min(n, free);
    free -= fromFree;
    for (int i = fromFree; i < n; i++) {
      var lru = evictable.entrySet().iterator();
      Long hash = lru.next().getKey();
      lru.remove();
      byHash.remove(hash);
    }
    return true;
  }

  /** Returns {@code n} anonymous blocks. */
  void free(int n) {
    free += n;
  }

  /** How many of {@code hashes}, from the first, are cached, up to {@code max}. */
  int matchPrefix(long[] hashes, int max) {
    int n = 0;
    while (n < max && n < hashes.length && byHash.containsKey(hashes[n])) {
      n++;
    }
    return n;
  }

  /** How many of the first {@code n} hashes are cached but unreferenced (acquiring them shrinks {@link #available()}). */
  int evictableAmong(long[] hashes, int n) {
    int e = 0;
    for (int i = 0; i < n; i++) {
      if (evictable.containsKey(hashes[i])) {
        e++;
      }
    }
    return e;
  }

  /** References the cached block {@code hash}, which must be cached. */
  void acquire(long hash) {
    Block b = byHash.get(hash);
    if (b.refs++ == 0) {
      evictable.remove(hash);
    }
  }

  /**
   * Turns one of the caller's anonymous blocks, just filled with content {@code hash}, into a
   * cached block it references. If that content is cached already, the caller's block is freed and
   * the cached one referenced instead.
   */
  void publish(long hash) {
    Block b = byHash.get(hash);
    if (b != null) {
      free++;
      acquire(hash);
      return;
    }
    b = new Block();
    b.refs = 1;
    byHash.put(hash, b);
  }

  /** Drops one reference to the cached block {@code hash}; unreferenced, it becomes the most recently used evictable block. */
  void release(long hash) {
    Block b = byHash.get(hash);
    if (--b.refs == 0) {
      evictable.put(hash, b);
    }
  }

  /** Cached blocks, referenced or not. */
  int cachedBlocks() {
    return byHash.size();
  }
}
