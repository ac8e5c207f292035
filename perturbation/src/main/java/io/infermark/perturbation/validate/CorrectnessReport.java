package io.infermark.perturbation.validate;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.perturbation.Variant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Semantic correctness rate (valid / total) of a run's measured requests: overall, per equivalence
 * class ({@code class} tag), per variant ({@code variant} tag) and per level of each dimension
 * ({@code level.<dimension>} tags). Warmup requests are left out; failed ones count as invalid.
 */
public final class CorrectnessReport {

  private static final String LEVEL_PREFIX = "level.";

  private final Rate overall;
  private final Map<String, Rate> byClass;
  private final Map<String, Rate> byVariant;
  private final Map<String, Map<Integer, Rate>> byLevel;

  private CorrectnessReport(Rate overall, Map<String, Rate> byClass, Map<String, Rate> byVariant,
      Map<String, Map<Integer, Rate>> byLevel) {
    this.overall = overall;
    this.byClass = byClass;
    this.byVariant = byVariant;
    this.byLevel = byLevel;
  }

  /** The report of a run's measured records. */
  public static CorrectnessReport of(RunResult run, Predicate<RequestRecord> validity) {
    return of(run.measured(), validity);
  }

  /** The report of the given records (warmup records skipped). */
  public static CorrectnessReport of(List<RequestRecord> records, Predicate<RequestRecord> validity) {
    Rate overall = new Rate(0, 0);
    Map<String, Rate> byClass = new TreeMap<>();
    Map<String, Rate> byVariant = new TreeMap<>(CorrectnessReport::compareNumeric);
    Map<String, Map<Integer, Rate>> byLevel = new TreeMap<>();
    for (RequestRecord r : records) {
      if (!r.measured()) {
        continue;
      }
      boolean ok = validity.test(r);
      overall = overall.plus(ok);
      String c = r.tags().get(Variant.CLASS_TAG);
      if (c != null) {
        byClass.merge(c, new Rate(ok ? 1 : 0, 1), CorrectnessReport::sum);
      }
      String v = r.tags().get(Variant.VARIANT_TAG);
      if (v != null) {
        byVariant.merge(v, new Rate(ok ? 1 : 0, 1), CorrectnessReport::sum);
      }
      for (Map.Entry<String, String> t : r.tags().entrySet()) {
        if (t.getKey().startsWith(LEVEL_PREFIX)) {
          int level = Integer.parseInt(t.getValue());
          byLevel.computeIfAbsent(t.getKey().substring(LEVEL_PREFIX.length()), k -> new TreeMap<>())
              .merge(level, new Rate(ok ? 1 : 0, 1), CorrectnessReport::sum);
        }
      }
    }
    Map<String, Map<Integer, Rate>> levels = new LinkedHashMap<>();
    byLevel.forEach((k, m) -> levels.put(k, Collections.unmodifiableMap(m)));
    return new CorrectnessReport(overall, Collections.unmodifiableMap(byClass), Collections.unmodifiableMap(byVariant),
        Collections.unmodifiableMap(levels));
  }

  private static Rate sum(Rate a, Rate b) {
    return new Rate(a.valid() + b.valid(), a.total() + b.total());
  }

  private static int compareNumeric(String a, String b) {
    try {
      return Integer.compare(Integer.parseInt(a), Integer.parseInt(b));
    } catch (NumberFormatException e) {
      return a.compareTo(b);
    }
  }

  /** The rate over every measured request. */
  public Rate overall() {
    return overall;
  }

  /** Rates by equivalence class. */
  public Map<String, Rate> byClass() {
    return byClass;
  }

  /** Rates by variant index. */
  public Map<String, Rate> byVariant() {
    return byVariant;
  }

  /** The dimensions seen in the records' tags. */
  public Set<String> dimensions() {
    return new TreeSet<>(byLevel.keySet());
  }

  /** Rates by level of one dimension, in level order. */
  public Map<Integer, Rate> byLevel(String dimension) {
    Map<Integer, Rate> m = byLevel.get(dimension);
    if (m == null) {
      throw new IllegalArgumentException("no records tagged with dimension '" + dimension + "'; dimensions are "
          + byLevel.keySet());
    }
    return m;
  }

  /** A text table of the rates by level of one dimension. */
  public String table(String dimension) {
    StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%-12s  %6s  %6s  %8s%n", dimension, "valid",
        "total", "rate"));
    for (Map.Entry<Integer, Rate> e : byLevel(dimension).entrySet()) {
      Rate r = e.getValue();
      s.append(String.format(Locale.ROOT, "%-12d  %6d  %6d  %7.1f%%%n", e.getKey(), r.valid(), r.total(),
          100 * r.rate().orElse(0)));
    }
    return s.toString();
  }

  @Override
  public String toString() {
    return "CorrectnessReport[" + overall + " valid, " + byClass.size() + " classes, " + byVariant.size()
        + " variants, dimensions " + byLevel.keySet() + "]";
  }
}
