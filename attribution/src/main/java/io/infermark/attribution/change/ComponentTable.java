package io.infermark.attribution.change;

import io.infermark.attribution.phase.LatencyBasis;
import io.infermark.attribution.phase.RequestPhases;
import io.infermark.attribution.shapley.CoalitionGame;
import io.infermark.core.capture.RequestRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * Per-request component values of one run, in milliseconds: one row per request, one named column per
 * component (a phase of the latency, or a factor a model reads), optionally with a key per request
 * that identifies it across runs (the trace line or request index when the same trace was replayed).
 *
 * <p>Build one from records with {@link #fromRecords(List, List, Function)} and a function that gives
 * each request's components (for phases, the phase helper's per-request split), or from arrays with
 * {@link #of(List, double[][])}. Values are copied; the table is immutable. A value may be NaN
 * ("unknown", as in a surrogate's {@code FeatureTable}) only when a {@link RowModel} reads the rows:
 * an additive decomposition rejects it. A table built from records counts the records it left out
 * ({@link #skippedUnmeasured()}, {@link #skippedFailed()}, {@link #skippedWithoutTokens()}).
 */
public final class ComponentTable {

  private final List<String> names;
  private final double[][] columns;
  private final int rows;
  private final Optional<List<String>> keys;
  private final boolean hasMissing;
  private final int skippedUnmeasured;
  private final int skippedFailed;
  private final int skippedWithoutTokens;

  private ComponentTable(List<String> names, double[][] columns, int rows, Optional<List<String>> keys,
      boolean hasMissing, int skippedUnmeasured, int skippedFailed, int skippedWithoutTokens) {
    this.hasMissing = hasMissing;
    this.names = names;
    this.columns = columns;
    this.rows = rows;
    this.keys = keys;
    this.skippedUnmeasured = skippedUnmeasured;
    this.skippedFailed = skippedFailed;
    this.skippedWithoutTokens = skippedWithoutTokens;
  }

  /**
   * A table without keys (requests can then only be coupled by rank).
   *
   * @param names the components, in column order
   * @param rowsMillis one row per request, each with one value per component: finite, or NaN for unknown
   *     (accepted here; only a decomposition with a {@link RowModel} can then use the table)
   * @throws IllegalArgumentException if names are blank or repeated, there are no rows, no components or
   *     more than {@link CoalitionGame#MAX_PLAYERS}, a row has the wrong width, or a value is infinite
   */
  public static ComponentTable of(List<String> names, double[][] rowsMillis) {
    return build(names, rowsMillis, Optional.empty(), 0, 0, 0);
  }

  /**
   * A table whose requests carry keys, so that two runs of the same trace can be paired request by
   * request.
   *
   * @param keys one per row
   * @throws IllegalArgumentException as {@link #of(List, double[][])}, or if the keys do not match the
   *     rows in number, or one is blank or repeated
   */
  public static ComponentTable of(List<String> names, double[][] rowsMillis, List<String> keys) {
    return build(names, rowsMillis, Optional.of(Objects.requireNonNull(keys, "keys")), 0, 0, 0);
  }

  /**
   * The components of every successful, measured request (warmup and cooldown requests and failed ones
   * are skipped, as they are by latency statistics, and counted by {@link #skippedUnmeasured()} and
   * {@link #skippedFailed()}).
   *
   * @param componentsMillis a request's component values in ms, in {@code names} order
   * @throws IllegalArgumentException as {@link #of(List, double[][])}, naming the request
   */
  public static ComponentTable fromRecords(List<RequestRecord> records, List<String> names,
      Function<RequestRecord, double[]> componentsMillis) {
    return fromRecords(records, names, componentsMillis, Optional.empty(), false);
  }

  /**
   * As {@link #fromRecords(List, List, Function)}, each request keyed by {@code key} (for example
   * {@code r -> r.tags().get("trace_line")} or {@code r -> Long.toString(r.index())}).
   *
   * @throws IllegalArgumentException also if a key is null, blank or repeated
   */
  public static ComponentTable fromRecords(List<RequestRecord> records, List<String> names,
      Function<RequestRecord, double[]> componentsMillis, Function<RequestRecord, String> key) {
    return fromRecords(records, names, componentsMillis, Optional.of(Objects.requireNonNull(key, "key")), false);
  }

  /**
   * The latency phases ({@link RequestPhases}) of every measured request that has an E2E to split,
   * named by {@link LatencyBasis#labels()}; the components of each row add up exactly to its latency
   * on that basis, so the default additive outcome is the request's E2E (or E2E from intended). Warmup
   * and cooldown requests, failed ones and successes without a token-bearing chunk (no E2E) are skipped
   * and counted, as {@link io.infermark.attribution.phase.PhaseDecomposition} counts them.
   */
  public static ComponentTable phases(List<RequestRecord> records, LatencyBasis basis) {
    Objects.requireNonNull(basis, "basis");
    return fromRecords(records, basis.labels(), RequestPhases.extractor(basis), Optional.empty(), true);
  }

  /** As {@link #phases(List, LatencyBasis)}, each request keyed by {@code key}, for paired coupling. */
  public static ComponentTable phases(List<RequestRecord> records, LatencyBasis basis,
      Function<RequestRecord, String> key) {
    Objects.requireNonNull(basis, "basis");
    return fromRecords(records, basis.labels(), RequestPhases.extractor(basis),
        Optional.of(Objects.requireNonNull(key, "key")), true);
  }

  private static ComponentTable fromRecords(List<RequestRecord> records, List<String> names,
      Function<RequestRecord, double[]> componentsMillis, Optional<Function<RequestRecord, String>> key,
      boolean needsTokens) {
    Objects.requireNonNull(records, "records");
    Objects.requireNonNull(names, "names");
    Objects.requireNonNull(componentsMillis, "componentsMillis");
    List<double[]> rows = new ArrayList<>(records.size());
    List<String> keys = new ArrayList<>(records.size());
    int unmeasured = 0;
    int failed = 0;
    int withoutTokens = 0;
    for (RequestRecord r : records) {
      if (!r.measured()) {
        unmeasured++;
        continue;
      }
      if (!r.succeeded()) {
        failed++;
        continue;
      }
      if (needsTokens && !RequestPhases.isDecomposable(r)) {
        withoutTokens++;
        continue;
      }
      double[] row = componentsMillis.apply(r);
      if (row == null || row.length != names.size()) {
        throw new IllegalArgumentException("request " + r.index() + " has " + (row == null ? "no" : row.length)
            + " component values; expected " + names.size() + " for " + names);
      }
      rows.add(row);
      if (key.isPresent()) {
        String k = key.get().apply(r);
        if (k == null) {
          throw new IllegalArgumentException("request " + r.index() + " has no key");
        }
        keys.add(k);
      }
    }
    if (rows.isEmpty()) {
      throw new IllegalArgumentException("no request to tabulate among " + records.size() + " records: "
          + unmeasured + " warmup or cooldown, " + failed + " failed" + (needsTokens ? ", " + withoutTokens
          + " without a token-bearing chunk" : ""));
    }
    return build(names, rows.toArray(new double[0][]), key.isPresent() ? Optional.of(keys) : Optional.empty(),
        unmeasured, failed, withoutTokens);
  }

  private static ComponentTable build(List<String> names, double[][] rowsMillis, Optional<List<String>> keys,
      int skippedUnmeasured, int skippedFailed, int skippedWithoutTokens) {
    List<String> components = copyOfNonNull(names, "names", "component name");
    Objects.requireNonNull(rowsMillis, "rowsMillis");
    if (components.isEmpty()) {
      throw new IllegalArgumentException("a component table needs at least one component");
    }
    if (components.size() > CoalitionGame.MAX_PLAYERS) {
      throw new IllegalArgumentException("a component table has at most " + CoalitionGame.MAX_PLAYERS
          + " components (the players of a Shapley coalition bit set), was " + components.size());
    }
    if (components.stream().anyMatch(String::isBlank) || components.stream().distinct().count() != components.size()) {
      throw new IllegalArgumentException("component names must be distinct and not blank: " + components);
    }
    int n = rowsMillis.length;
    if (n == 0) {
      throw new IllegalArgumentException("a component table needs at least one request");
    }
    int k = components.size();
    double[][] columns = new double[k][n];
    boolean missing = false;
    for (int r = 0; r < n; r++) {
      double[] row = rowsMillis[r];
      if (row == null) {
        throw new NullPointerException("row " + r + " is null");
      }
      if (row.length != k) {
        throw new IllegalArgumentException("row " + r + " has " + row.length + " values; expected " + k + " for "
            + components);
      }
      for (int j = 0; j < k; j++) {
        if (Double.isInfinite(row[j])) {
          throw new IllegalArgumentException("row " + r + " component " + components.get(j) + " is " + row[j]
              + "; values must be finite, or NaN for unknown (which only a row model can read)");
        }
        missing |= Double.isNaN(row[j]);
        columns[j][r] = row[j];
      }
    }
    Optional<List<String>> copiedKeys = keys.map(ks -> copyOfNonNull(ks, "keys", "key of row"));
    if (copiedKeys.isPresent()) {
      List<String> ks = copiedKeys.get();
      if (ks.size() != n) {
        throw new IllegalArgumentException(ks.size() + " keys for " + n + " rows; give one key per row");
      }
      Set<String> seen = new HashSet<>();
      for (int r = 0; r < n; r++) {
        String key = ks.get(r);
        if (key.isBlank()) {
          throw new IllegalArgumentException("row " + r + " has a blank key");
        }
        if (!seen.add(key)) {
          throw new IllegalArgumentException("key '" + key + "' is repeated (row " + r + "); keys must identify one"
              + " request each");
        }
      }
    }
    return new ComponentTable(components, columns, n, copiedKeys, missing, skippedUnmeasured, skippedFailed,
        skippedWithoutTokens);
  }

  /** An immutable copy of {@code list}, failing with a message that names a null list or element. */
  private static List<String> copyOfNonNull(List<String> list, String name, String element) {
    Objects.requireNonNull(list, name);
    int index = 0;
    for (String s : list) {
      if (s == null) {
        throw new NullPointerException(element + " " + index + " is null");
      }
      index++;
    }
    return List.copyOf(list);
  }

  /** The component names, in column order. */
  public List<String> components() {
    return names;
  }

  /** The number of requests (rows). */
  public int size() {
    return rows;
  }

  /**
   * The value in ms of component {@code component} for request {@code row}.
   *
   * @throws IllegalArgumentException if either index is out of range
   */
  public double value(int row, int component) {
    if (row < 0 || row >= rows || component < 0 || component >= names.size()) {
      throw new IllegalArgumentException("no value at row " + row + ", component " + component + " in a table of "
          + rows + " rows and " + names.size() + " components");
    }
    return columns[component][row];
  }

  /** One component's values in ms for every request; a copy. */
  public double[] column(String component) {
    int j = names.indexOf(component);
    if (j < 0) {
      throw new IllegalArgumentException("no component named '" + component + "'; components are " + names);
    }
    return columns[j].clone();
  }

  /** The requests' keys, when the table has them. */
  public Optional<List<String>> keys() {
    return keys;
  }

  /** True when some value is NaN (unknown), which only a {@link RowModel} can read. */
  public boolean hasMissingValues() {
    return hasMissing;
  }

  /** Records left out as warmup or cooldown; 0 for a table built from arrays. */
  public int skippedUnmeasured() {
    return skippedUnmeasured;
  }

  /** Measured records left out because the request failed; 0 for a table built from arrays. */
  public int skippedFailed() {
    return skippedFailed;
  }

  /**
   * Measured, successful records left out of a {@link #phases phase} table because they carried no
   * token-bearing chunk (they have no E2E to split); 0 otherwise.
   */
  public int skippedWithoutTokens() {
    return skippedWithoutTokens;
  }

  /** All records left out: {@code skippedUnmeasured() + skippedFailed() + skippedWithoutTokens()}. */
  public int skippedRecords() {
    return skippedUnmeasured + skippedFailed + skippedWithoutTokens;
  }

  /** The column of component {@code j}, not copied: for the decomposition only. */
  double[] columnView(int j) {
    return columns[j];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ComponentTable t && t.names.equals(names) && Arrays.deepEquals(t.columns, columns)
        && t.keys.equals(keys) && t.skippedUnmeasured == skippedUnmeasured && t.skippedFailed == skippedFailed
        && t.skippedWithoutTokens == skippedWithoutTokens;
  }

  @Override
  public int hashCode() {
    return 31 * names.hashCode() + Arrays.deepHashCode(columns);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "ComponentTable[%d requests × %s%s%s]", rows, names,
        keys.isPresent() ? ", keyed" : "", skippedRecords() > 0 ? ", " + skippedRecords() + " records skipped" : "");
  }
}
