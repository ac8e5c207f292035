package io.infermark.perturbation.workload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Groups similar queries without dependencies or training: leader clustering on the Jaccard
 * similarity of character shingles.
 *
 * <ol>
 *   <li>Normalise: lower-case, every run of non-letters-or-digits becomes one space, trimmed.
 *   <li>Shingle: the set of character {@code k}-grams of the normalised text [k = 3] (a text shorter
 *       than k is one shingle), each hashed to 64 bits; kept as a sorted array.
 *   <li>Cluster: in log order, each query joins the existing cluster whose leader (first member) it
 *       is most similar to, if that Jaccard similarity {@code |A∩B| / |A∪B|} is at least the
 *       threshold [0.5]; ties go to the older cluster; otherwise it starts a new cluster.
 * </ol>
 *
 * <p>Deterministic for a given log order. Cost {@code O(queries × clusters × shingles)}: fine for
 * tens of thousands of queries; sample bigger logs first.
 */
public final class QueryClustering {

  /** Members considered when choosing a cluster's representative. */
  public static final int MEDOID_CANDIDATES = 64;

  private final int shingle;
  private final double threshold;

  private QueryClustering(int shingle, double threshold) {
    this.shingle = shingle;
    this.threshold = threshold;
  }

  /** Trigrams, threshold 0.5. */
  public static QueryClustering defaults() {
    return new QueryClustering(3, 0.5);
  }

  /** The same clustering with shingles of {@code k} characters (k >= 1). */
  public QueryClustering shingleSize(int k) {
    if (k < 1) {
      throw new IllegalArgumentException("shingle size must be >= 1, was " + k);
    }
    return new QueryClustering(k, threshold);
  }

  /** The same clustering with another similarity threshold in (0, 1]. */
  public QueryClustering threshold(double t) {
    if (!(t > 0 && t <= 1)) {
      throw new IllegalArgumentException("similarity threshold must be in (0, 1], was " + t);
    }
    return new QueryClustering(shingle, t);
  }

  /** Clusters the queries (at least one; none blank). */
  public List<QueryCluster> cluster(List<String> queries) {
    if (queries.isEmpty()) {
      throw new IllegalArgumentException("no queries to cluster");
    }
    long[][] sets = new long[queries.size()][];
    for (int i = 0; i < queries.size(); i++) {
      String q = queries.get(i);
      if (q.isBlank()) {
        throw new IllegalArgumentException("query " + i + " is blank");
      }
      sets[i] = shingles(q);
    }
    List<Integer> leaders = new ArrayList<>();
    List<List<Integer>> members = new ArrayList<>();
    for (int i = 0; i < sets.length; i++) {
      int best = -1;
      double bestSim = -1;
      for (int c = 0; c < leaders.size(); c++) {
        double sim = jaccard(sets[i], sets[leaders.get(c)]);
        if (sim >= threshold && sim > bestSim) {
          best = c;
          bestSim = sim;
        }
      }
      if (best < 0) {
        leaders.add(i);
        List<Integer> m = new ArrayList<>();
        m.add(i);
        members.add(m);
      } else {
        members.get(best).add(i);
      }
    }
    List<QueryCluster> out = new ArrayList<>();
    for (int c = 0; c < leaders.size(); c++) {
      List<Integer> m = members.get(c);
      out.add(new QueryCluster(c, queries.get(medoid(m, sets)), m, m.size() / (double) queries.size()));
    }
    return List.copyOf(out);
  }

  private static int medoid(List<Integer> members, long[][] sets) {
    int n = Math.min(members.size(), MEDOID_CANDIDATES);
    int best = members.get(0);
    double bestSum = -1;
    for (int a = 0; a < n; a++) {
      double sum = 0;
      for (int b = 0; b < n; b++) {
        if (a != b) {
          sum += jaccard(sets[members.get(a)], sets[members.get(b)]);
        }
      }
      if (sum > bestSum) {
        bestSum = sum;
        best = members.get(a);
      }
    }
    return best;
  }

  /** The normalised form of a query. */
  public static String normalize(String query) {
    StringBuilder s = new StringBuilder(query.length());
    boolean space = false;
    for (int i = 0; i < query.length(); i++) {
      char c = query.charAt(i);
      if (Character.isLetterOrDigit(c)) {
        if (space && s.length() > 0) {
          s.append(' ');
        }
        s.append(Character.toLowerCase(c));
        space = false;
      } else {
        space = true;
      }
    }
    return s.toString().toLowerCase(Locale.ROOT);
  }

  /** The Jaccard similarity of two queries' shingle sets under this clustering. */
  public double similarity(String a, String b) {
    return jaccard(shingles(a), shingles(b));
  }

  private long[] shingles(String query) {
    String t = normalize(query);
    if (t.length() <= shingle) {
      return new long[] {hash(t)};
    }
    long[] h = new long[t.length() - shingle + 1];
    for (int i = 0; i < h.length; i++) {
      h[i] = hash(t.substring(i, i + shingle));
    }
    Arrays.sort(h);
    int u = 0;
    for (int i = 0; i < h.length; i++) {
      if (i == 0 || h[i] != h[i - 1]) {
        h[u++] = h[i];
      }
    }
    return Arrays.copyOf(h, u);
  }

  static long hash(String s) {
    long z = 0x9E3779B97F4A7C15L;
    for (int i = 0; i < s.length(); i++) {
      z = (z ^ s.charAt(i)) * 0x100000001B3L;
    }
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private static double jaccard(long[] a, long[] b) {
    int i = 0;
    int j = 0;
    int common = 0;
    while (i < a.length && j < b.length) {
      if (a[i] == b[j]) {
        common++;
        i++;
        j++;
      } else if (a[i] < b[j]) {
        i++;
      } else {
        j++;
      }
    }
    return common / (double) (a.length + b.length - common);
  }

  @Override
  public String toString() {
    return "QueryClustering[" + shingle + "-char shingles, Jaccard >= " + threshold + "]";
  }
}
