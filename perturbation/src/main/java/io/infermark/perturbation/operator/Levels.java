package io.infermark.perturbation.operator;

import java.util.Arrays;

/** Validation of operators' level lists. Package-private helper. */
final class Levels {

  private Levels() {}

  static double[] checkRates(String operator, double[] levels, double max) {
    if (levels.length == 0) {
      throw new IllegalArgumentException(operator + " needs at least one level");
    }
    for (int i = 0; i < levels.length; i++) {
      double v = levels[i];
      if (!(v >= 0 && v <= max)) {
        throw new IllegalArgumentException(operator + " level " + i + " must be in [0, " + max + "], was " + v);
      }
      if (i > 0 && !(v > levels[i - 1])) {
        throw new IllegalArgumentException(operator + " levels must increase strictly, but level " + i + " (" + v
            + ") <= level " + (i - 1) + " (" + levels[i - 1] + ")");
      }
    }
    return levels.clone();
  }

  static int[] checkCounts(String operator, int[] levels) {
    double[] d = new double[levels.length];
    for (int i = 0; i < levels.length; i++) {
      d[i] = levels[i];
    }
    checkRates(operator, d, Integer.MAX_VALUE);
    return levels.clone();
  }

  static void checkLevel(Operator op, int level) {
    if (level < 0 || level >= op.levelCount()) {
      throw new IllegalArgumentException(op.name() + " level must be in [0, " + (op.levelCount() - 1) + "], was " + level);
    }
  }

  /** Edits for a per-word rate: {@code round(rate × words)}, at least 1 when rate > 0 and a word exists. */
  static int editsForRate(double rate, int words) {
    if (rate <= 0 || words == 0) {
      return 0;
    }
    return (int) Math.max(1, Math.min(words, Math.round(rate * words)));
  }

  /**
   * {@code k} distinct indices of {@code [0, n)} in increasing order, uniformly (partial
   * Fisher–Yates). When {@code k} is small against {@code n} the shuffled array is kept sparse (only
   * the touched slots, in a small hash table), which draws the same indices without an
   * {@code n}-long array.
   */
  static int[] sample(int n, int k, java.util.SplittableRandom random) {
    if (k * 8L >= n) {
      int[] idx = new int[n];
      for (int i = 0; i < n; i++) {
        idx[i] = i;
      }
      for (int i = 0; i < k; i++) {
        int j = i + random.nextInt(n - i);
        int t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
      }
      int[] out = Arrays.copyOf(idx, k);
      Arrays.sort(out);
      return out;
    }
    // Sparse: slot -> value for the slots moved so far; every other slot i holds i. Keys are stored
    // plus one, so a fresh (zeroed) table is empty without filling it.
    int size = Integer.highestOneBit(Math.max(8, k * 4 - 1)) << 1;
    int[] keys = new int[size];
    int[] values = new int[size];
    int[] out = new int[k];
    for (int i = 0; i < k; i++) {
      int j = i + random.nextInt(n - i);
      int vi = get(keys, values, i);
      int vj = get(keys, values, j);
      out[i] = vj;
      put(keys, values, j, vi);
    }
    Arrays.sort(out);
    return out;
  }

  private static int get(int[] keys, int[] values, int key) {
    int mask = keys.length - 1;
    for (int slot = (key * 0x9E3779B9) >>> 7 & mask; keys[slot] != 0; slot = (slot + 1) & mask) {
      if (keys[slot] == key + 1) {
        return values[slot];
      }
    }
    return key;
  }

  private static void put(int[] keys, int[] values, int key, int value) {
    int mask = keys.length - 1;
    int slot = (key * 0x9E3779B9) >>> 7 & mask;
    while (keys[slot] != 0 && keys[slot] != key + 1) {
      slot = (slot + 1) & mask;
    }
    keys[slot] = key + 1;
    values[slot] = value;
  }

  static String list(double[] levels) {
    return Arrays.toString(levels);
  }

  static String list(int[] levels) {
    return Arrays.toString(levels);
  }

  /** Copies the case pattern of {@code model} (lower, Capitalised, UPPER) onto {@code word}. */
  static String matchCase(String model, String word) {
    if (model.isEmpty() || word.isEmpty()) {
      return word;
    }
    boolean allUpper = model.length() > 1 && model.equals(model.toUpperCase(java.util.Locale.ROOT));
    if (allUpper) {
      return word.toUpperCase(java.util.Locale.ROOT);
    }
    if (Character.isUpperCase(model.charAt(0))) {
      return Character.toUpperCase(word.charAt(0)) + word.substring(1);
    }
    return word;
  }
}
