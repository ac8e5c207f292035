package io.infermark.perturbation.consistency;

import com.fasterxml.jackson.databind.JsonNode;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.perturbation.Variant;
import io.infermark.perturbation.validate.JsonResponses;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * Response consistency across each equivalence class of a run (records grouped by their
 * {@code class} tag, which {@code PerturbationSpace} sets so that a class holds only variants made by
 * meaning-preserving operators from the same point): exact-match rate, normalised edit distance,
 * JSON-field agreement, and the variance of latency and output length. Needs captured text
 * ({@code captureText(true)}); warmup records are left out, failed ones counted apart.
 *
 * <p>Edit distances are computed over pairs of distinct texts weighted by their counts, exactly
 * when there are at most {@link #DEFAULT_MAX_PAIRS} distinct pairs, otherwise estimated from that
 * many pairs of responses drawn with a fixed seed.
 */
public final class ConsistencyReport {

  /** Distinct text pairs compared exactly before sampling. */
  public static final int DEFAULT_MAX_PAIRS = 20_000;

  private final Map<String, ClassConsistency> classes;

  private ConsistencyReport(Map<String, ClassConsistency> classes) {
    this.classes = classes;
  }

  /** The report of a run's measured records. */
  public static ConsistencyReport of(RunResult run) {
    return of(run.measured());
  }

  /** The report of the given records (warmup skipped; records without a class tag ignored). */
  public static ConsistencyReport of(List<RequestRecord> records) {
    Map<String, List<RequestRecord>> byClass = new TreeMap<>();
    for (RequestRecord r : records) {
      String c = r.tags().get(Variant.CLASS_TAG);
      if (c != null && r.measured()) {
        byClass.computeIfAbsent(c, k -> new ArrayList<>()).add(r);
      }
    }
    Map<String, ClassConsistency> out = new LinkedHashMap<>();
    byClass.forEach((c, rs) -> out.put(c, measure(c, rs)));
    return new ConsistencyReport(java.util.Collections.unmodifiableMap(out));
  }

  /** Consistency by class id. */
  public Map<String, ClassConsistency> classes() {
    return classes;
  }

  /** One class's consistency. */
  public Optional<ClassConsistency> get(String classId) {
    return Optional.ofNullable(classes.get(classId));
  }

  private static ClassConsistency measure(String classId, List<RequestRecord> records) {
    List<String> texts = new ArrayList<>();
    List<Double> latency = new ArrayList<>();
    List<Double> tokens = new ArrayList<>();
    int failed = 0;
    for (RequestRecord r : records) {
      if (!r.succeeded()) {
        failed++;
        continue;
      }
      texts.add(r.text().orElseThrow(() -> new IllegalStateException("record #" + r.index()
          + " has no captured text: run the benchmark with captureText(true) to measure consistency")));
      latency.add(r.chunks().lastTokenOffsetNanos().orElse(r.endOffsetNanos()) / 1e6);
      tokens.add((double) r.outputTokens());
    }
    int n = texts.size();
    Map<String, Integer> counts = new LinkedHashMap<>();
    for (String t : texts) {
      counts.merge(t, 1, Integer::sum);
    }
    int modal = counts.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    double exact = n == 0 ? 0 : modal / (double) n;
    boolean[] sampled = new boolean[1];
    OptionalDouble distance = n < 2 ? OptionalDouble.empty() : OptionalDouble.of(meanDistance(texts, counts, sampled));
    Map<String, Double> fields = new TreeMap<>();
    OptionalDouble json = jsonAgreement(texts, fields);
    return new ClassConsistency(classId, n, failed, exact, distance, sampled[0], json, fields, mean(latency),
        variance(latency), mean(tokens), variance(tokens));
  }

  private static double meanDistance(List<String> texts, Map<String, Integer> counts, boolean[] sampled) {
    int n = texts.size();
    List<String> distinct = new ArrayList<>(counts.keySet());
    long d = distinct.size();
    double pairs = n * (n - 1) / 2.0;
    if (d * (d - 1) / 2 <= DEFAULT_MAX_PAIRS) {
      double sum = 0;
      for (int i = 0; i < distinct.size(); i++) {
        for (int j = i + 1; j < distinct.size(); j++) {
          sum += (double) counts.get(distinct.get(i)) * counts.get(distinct.get(j))
              * EditDistance.normalized(distinct.get(i), distinct.get(j));
        }
      }
      return sum / pairs;
    }
    sampled[0] = true;
    SplittableRandom random = new SplittableRandom(0);
    double sum = 0;
    for (int k = 0; k < DEFAULT_MAX_PAIRS; k++) {
      int i = random.nextInt(n);
      int j = random.nextInt(n - 1);
      if (j >= i) {
        j++;
      }
      sum += EditDistance.normalized(texts.get(i), texts.get(j));
    }
    return sum / DEFAULT_MAX_PAIRS;
  }

  private static OptionalDouble jsonAgreement(List<String> texts, Map<String, Double> fieldsOut) {
    List<Map<String, String>> flat = new ArrayList<>();
    boolean any = false;
    for (String t : texts) {
      Map<String, String> leaves = new HashMap<>();
      Optional<JsonNode> json = JsonResponses.parse(t);
      if (json.isPresent()) {
        any = true;
        flatten(json.get(), "", leaves);
      }
      flat.add(leaves);
    }
    if (!any) {
      return OptionalDouble.empty();
    }
    Map<String, Map<String, Integer>> values = new TreeMap<>();
    for (Map<String, String> leaves : flat) {
      leaves.forEach((path, value) -> values.computeIfAbsent(path, k -> new HashMap<>()).merge(value, 1, Integer::sum));
    }
    double sum = 0;
    for (Map.Entry<String, Map<String, Integer>> e : values.entrySet()) {
      int present = e.getValue().values().stream().mapToInt(Integer::intValue).sum();
      int absent = texts.size() - present;
      int modal = Math.max(absent, e.getValue().values().stream().mapToInt(Integer::intValue).max().orElse(0));
      double agreement = modal / (double) texts.size();
      fieldsOut.put(e.getKey(), agreement);
      sum += agreement;
    }
    return values.isEmpty() ? OptionalDouble.of(1.0) : OptionalDouble.of(sum / values.size());
  }

  private static void flatten(JsonNode node, String pointer, Map<String, String> out) {
    if (node.isObject()) {
      for (Map.Entry<String, JsonNode> e : node.properties()) {
        flatten(e.getValue(), pointer + "/" + e.getKey().replace("~", "~0").replace("/", "~1"), out);
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        flatten(node.get(i), pointer + "/" + i, out);
      }
    } else {
      out.put(pointer.isEmpty() ? "/" : pointer, node.toString());
    }
  }

  private static double mean(List<Double> xs) {
    return xs.stream().mapToDouble(Double::doubleValue).average().orElse(0);
  }

  private static OptionalDouble variance(List<Double> xs) {
    int n = xs.size();
    if (n < 2) {
      return OptionalDouble.empty();
    }
    double m = mean(xs);
    double ss = 0;
    for (double x : xs) {
      ss += (x - m) * (x - m);
    }
    return OptionalDouble.of(ss / (n - 1));
  }

  /** A text table, one row per class. */
  public String table() {
    int width = "class".length();
    for (String c : classes.keySet()) {
      width = Math.max(width, c.length());
    }
    String f = "%-" + width + "s %9s %6s %6s %9s %6s %12s %12s%n";
    StringBuilder s = new StringBuilder(String.format(Locale.ROOT, f, "class", "responses", "failed", "exact",
        "edit dist", "json", "latency var", "length var"));
    for (ClassConsistency c : classes.values()) {
      s.append(String.format(Locale.ROOT, f, c.classId(), c.responses(), c.failed(),
          String.format(Locale.ROOT, "%.3f", c.exactMatchRate()), ClassConsistency.f(c.meanEditDistance()),
          ClassConsistency.f(c.jsonFieldAgreement()), ClassConsistency.f(c.latencyVarianceMs2()),
          ClassConsistency.f(c.outputTokensVariance())));
    }
    return s.toString();
  }

  @Override
  public String toString() {
    return "ConsistencyReport[" + classes.size() + " classes]";
  }
}
