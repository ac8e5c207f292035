package io.infermark.attribution.surrogate;

import io.infermark.attribution.phase.LatencyBasis;
import io.infermark.attribution.phase.RequestPhases;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.TokenCountSource;
import io.infermark.core.workload.WorkloadTags;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.function.Function;

/**
 * Per-request features, one row per measured, successful request and one named column per factor,
 * built from what the records already hold: the inputs a surrogate latency model learns from.
 *
 * <p>Rows: only records that are {@link RequestRecord#measured() measured} (not warmup or cooldown)
 * and {@link RequestRecord#succeeded() succeeded} become rows — the requests latency statistics
 * count — in the order given; {@link #skippedRecords()} says how many others there were. Load
 * features (in-flight count, arrivals) are computed from <em>every</em> record that was sent, warmup
 * and failures included, because those loaded the server too.
 *
 * <p>Columns, in this order (a NaN means "not known for this request"; tree models send it down the
 * split's learned default branch):
 * <dl>
 *   <dt>{@value #INPUT_TOKENS}</dt><dd>prompt tokens: the server's {@code usage.prompt_tokens} when
 *       reported, else tag {@code input_tokens_achieved}, else {@code input_tokens_requested}; NaN
 *       when none is known.</dd>
 *   <dt>{@value #OUTPUT_TOKENS}</dt><dd>N, {@link RequestRecord#outputTokens()} (server usage, else the
 *       client's count); NaN when no token count exists.</dd>
 *   <dt>{@value #CACHED_PROMPT_TOKENS}</dt><dd>prompt tokens the server served from its prefix cache,
 *       when it reported them; NaN otherwise.</dd>
 *   <dt>{@value #IN_FLIGHT}</dt><dd>how many other requests were in flight when this one was sent:
 *       sent at or before its send time and not yet ended ({@code send + endOffset}) at it. Never
 *       NaN.</dd>
 *   <dt>{@code arrivals_prev_<window>}</dt><dd>requests sent in the window before this one's send,
 *       {@code [send − window, send)}; default window 1 s ({@value #ARRIVALS_PREVIOUS_SECOND}). Never
 *       NaN.</dd>
 *   <dt>{@value #OVERLAPPING_PREFILL_TOKENS}</dt><dd>only with {@link Builder#overlappingPrefillTokens()}: the prompt
 *       tokens (as {@value #INPUT_TOKENS}; 0 when unknown) of every other sent request whose prefill window — send to
 *       first token, or to its end when it produced none — overlapped this request's lifetime, send to end. A serving
 *       engine computes prefill chunks in the same steps as everyone's decodes, so a long prompt sent beside a short
 *       request slows it, and nothing else in the short request's row says so. It uses the request's own end and
 *       requests sent after it: a feature that explains, not one that predicts. NaN only when no request's prompt
 *       length is known.</dd>
 *   <dt>{@value #BURST}, {@value #RANK}</dt><dd>the workload's burst factor and Zipf popularity rank
 *       ({@link WorkloadTags#BURST}, {@link WorkloadTags#RANK}); NaN when the tag is absent.</dd>
 *   <dt>tag columns</dt><dd>each tag the caller names ({@link Builder#tagColumns(String...)}), e.g.
 *       perturbation levels, parsed as a number; NaN when absent.</dd>
 *   <dt>extra columns</dt><dd>whatever the caller computes per record
 *       ({@link Builder#extraColumns(List, Function)}), and per-request phase durations
 *       ({@link Builder#phaseColumns(LatencyBasis)}).</dd>
 * </dl>
 * Of the built-in columns, those that are NaN for every row are dropped (no information); the
 * caller's tag and extra columns are always kept.
 *
 * <pre>{@code
 * FeatureTable table = FeatureTable.builder()
 *     .tagColumns("temperature")                        // a numeric perturbation level
 *     .extraColumns(List.of("queue_ms"), r -> new double[] {queueMillis(r)})
 *     .phaseColumns(LatencyBasis.SERVICE_TIME)          // connect, tls, …, decode in ms
 *     .build(run.records());
 * }</pre>
 */
public final class FeatureTable {

  /** Column: prompt tokens. */
  public static final String INPUT_TOKENS = "input_tokens";
  /** Column: output tokens N. */
  public static final String OUTPUT_TOKENS = "output_tokens";
  /** Column: prompt tokens served from the server's prefix cache. */
  public static final String CACHED_PROMPT_TOKENS = "cached_prompt_tokens";
  /** Column: other requests in flight at send. */
  public static final String IN_FLIGHT = "in_flight_at_send";
  /** Column: requests sent in the second before this one (with the default window). */
  public static final String ARRIVALS_PREVIOUS_SECOND = "arrivals_prev_1000ms";
  /** Column: prompt tokens other requests had in prefill while this one was in flight. */
  public static final String OVERLAPPING_PREFILL_TOKENS = "overlapping_prefill_tokens";
  /** Column: the workload's burst factor. */
  public static final String BURST = "burst";
  /** Column: the workload's popularity rank. */
  public static final String RANK = "rank";

  private final List<String> columns;
  private final double[][] rows;
  private final List<RequestRecord> records;
  private final int skipped;

  private FeatureTable(List<String> columns, double[][] rows, List<RequestRecord> records, int skipped) {
    this.columns = columns;
    this.rows = rows;
    this.records = records;
    this.skipped = skipped;
  }

  /** A builder with no tag or extra columns and a 1 s arrival window. */
  public static Builder builder() {
    return new Builder();
  }

  /** The columns' names, in order. */
  public List<String> columns() {
    return columns;
  }

  /** The number of rows: measured, successful requests. */
  public int rowCount() {
    return rows.length;
  }

  /** The record behind each row, in row order. */
  public List<RequestRecord> records() {
    return records;
  }

  /** Records that did not become rows: warmup, cooldown or failed ones. */
  public int skippedRecords() {
    return skipped;
  }

  /** Row {@code row}'s values, one per column (a copy). */
  public double[] row(int row) {
    return rows[row].clone();
  }

  /** Every row (a deep copy). */
  public double[][] rows() {
    double[][] out = new double[rows.length][];
    for (int r = 0; r < rows.length; r++) {
      out[r] = rows[r].clone();
    }
    return out;
  }

  /**
   * One column's values, in row order.
   *
   * @throws IllegalArgumentException if there is no such column
   */
  public double[] column(String name) {
    int c = columns.indexOf(name);
    if (c < 0) {
      throw new IllegalArgumentException("no column '" + name + "'; columns are " + columns);
    }
    double[] out = new double[rows.length];
    for (int r = 0; r < rows.length; r++) {
      out[r] = rows[r][c];
    }
    return out;
  }

  double[][] rowsView() {
    return rows;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "FeatureTable[%d rows (%d records skipped), columns %s]", rows.length, skipped,
        columns);
  }

  /** Builds a {@link FeatureTable} from records. */
  public static final class Builder {
    private final List<String> tags = new ArrayList<>();
    private final List<String> extraNames = new ArrayList<>();
    private final List<Function<RequestRecord, double[]>> extras = new ArrayList<>();
    private final List<Integer> extraWidths = new ArrayList<>();
    private Duration window = Duration.ofSeconds(1);
    private boolean overlappingPrefill;

    private Builder() {}

    /**
     * Adds a numeric column for each named tag (perturbation levels, a server knob the workload
     * tagged, …), named as the tag.
     *
     * @throws IllegalArgumentException if a tag is blank or named twice
     */
    public Builder tagColumns(String... tags) {
      for (String tag : tags) {
        Objects.requireNonNull(tag, "tag");
        if (tag.isBlank() || this.tags.contains(tag)) {
          throw new IllegalArgumentException("tag columns must be non-blank and distinct, got '" + tag + "' in "
              + this.tags);
        }
        this.tags.add(tag);
      }
      return this;
    }

    /**
     * Adds columns computed by {@code values} for each row's record, which must return one value per
     * name (NaN for unknown), after any extra columns added before.
     *
     * @throws IllegalArgumentException if a name is blank or repeated
     */
    public Builder extraColumns(List<String> names, Function<RequestRecord, double[]> values) {
      List<String> copy = List.copyOf(names);
      if (copy.isEmpty() || copy.stream().anyMatch(String::isBlank) || copy.stream().distinct().count() != copy.size()
          || copy.stream().anyMatch(extraNames::contains)) {
        throw new IllegalArgumentException("extra column names must be non-blank and distinct, got " + copy
            + " after " + extraNames);
      }
      this.extras.add(Objects.requireNonNull(values, "values"));
      this.extraWidths.add(copy.size());
      this.extraNames.addAll(copy);
      return this;
    }

    /**
     * Adds one column per latency phase of {@code basis} ({@link LatencyBasis#labels()}), in ms, from
     * {@link RequestPhases}; NaN for a request without a token-bearing chunk. The phases add up to the
     * request's latency on that basis, so use them to explain a target other than that latency (a
     * tail indicator of TTFT, say), or expect them to explain it perfectly.
     */
    public Builder phaseColumns(LatencyBasis basis) {
      int width = basis.labels().size();
      return extraColumns(basis.labels(), r -> RequestPhases.tryOf(r, basis).map(RequestPhases::millis)
          .orElseGet(() -> nanArray(width)));
    }

    private static double[] nanArray(int width) {
      double[] a = new double[width];
      Arrays.fill(a, Double.NaN);
      return a;
    }

    /**
     * Adds the column {@value #OVERLAPPING_PREFILL_TOKENS} (off by default): the prompt tokens other
     * requests had in prefill while each request was in flight. It tells a short request slowed by
     * someone else's long prefill apart from one that was not, which none of its own columns can, and so
     * usually lifts the fit a lot; but it looks at the request's whole life (requests sent after it
     * count), so it explains after the fact rather than predicts, and it shares the credit for a long
     * prompt's tail with {@value #INPUT_TOKENS}.
     */
    public Builder overlappingPrefillTokens() {
      this.overlappingPrefill = true;
      return this;
    }

    /**
     * The window of the arrivals column, which is named {@code arrivals_prev_<millis>ms}; default 1 s.
     *
     * @throws IllegalArgumentException if it is not positive
     */
    public Builder arrivalWindow(Duration window) {
      if (window.isNegative() || window.isZero()) {
        throw new IllegalArgumentException("arrival window must be positive, was " + window);
      }
      this.window = window;
      return this;
    }

    /**
     * The table of {@code records}' measured, successful requests.
     *
     * @throws IllegalArgumentException if a named tag holds something that is not a number, an extra
     *     column function returns the wrong number of values or an infinite one, or a column name is
     *     used twice
     */
    public FeatureTable build(List<RequestRecord> records) {
      List<RequestRecord> all = List.copyOf(records);
      LoadFeatures load = LoadFeatures.of(all, window.toNanos());
      PrefillOverlap overlap = null;
      if (overlappingPrefill) {
        double[] promptTokens = new double[all.size()];
        for (int i = 0; i < all.size(); i++) {
          promptTokens[i] = inputTokens(all.get(i));
        }
        overlap = PrefillOverlap.of(all, promptTokens);
      }
      List<RequestRecord> kept = new ArrayList<>();
      List<Integer> keptAt = new ArrayList<>();
      for (int i = 0; i < all.size(); i++) {
        RequestRecord r = all.get(i);
        if (r.measured() && r.succeeded()) {
          kept.add(r);
          keptAt.add(i);
        }
      }
      int n = kept.size();
      Map<String, double[]> builtIn = new LinkedHashMap<>();
      builtIn.put(INPUT_TOKENS, new double[n]);
      builtIn.put(OUTPUT_TOKENS, new double[n]);
      builtIn.put(CACHED_PROMPT_TOKENS, new double[n]);
      builtIn.put(IN_FLIGHT, new double[n]);
      String arrivals = "arrivals_prev_" + formatMillis(window) + "ms";
      builtIn.put(arrivals, new double[n]);
      if (overlappingPrefill) {
        builtIn.put(OVERLAPPING_PREFILL_TOKENS, new double[n]);
      }
      builtIn.put(BURST, new double[n]);
      builtIn.put(RANK, new double[n]);
      double[][] tagValues = new double[tags.size()][n];
      double[][] extraValues = new double[extraNames.size()][n];
      for (int row = 0; row < n; row++) {
        RequestRecord r = kept.get(row);
        int at = keptAt.get(row);
        builtIn.get(INPUT_TOKENS)[row] = inputTokens(r);
        builtIn.get(OUTPUT_TOKENS)[row] =
            r.outputTokensSource() == TokenCountSource.NONE ? Double.NaN : r.outputTokens();
        OptionalInt cached = r.usage().cachedPromptTokens();
        builtIn.get(CACHED_PROMPT_TOKENS)[row] = cached.isPresent() ? cached.getAsInt() : Double.NaN;
        builtIn.get(IN_FLIGHT)[row] = load.inFlightAtSend(at);
        builtIn.get(arrivals)[row] = load.arrivalsBefore(at);
        if (overlap != null) {
          builtIn.get(OVERLAPPING_PREFILL_TOKENS)[row] = overlap.tokensOverlapping(at);
        }
        builtIn.get(BURST)[row] = tag(r, WorkloadTags.BURST);
        builtIn.get(RANK)[row] = tag(r, WorkloadTags.RANK);
        for (int t = 0; t < tags.size(); t++) {
          tagValues[t][row] = tag(r, tags.get(t));
        }
        int first = 0;
        for (int g = 0; g < extras.size(); g++) {
          int width = extraWidths.get(g);
          List<String> group = extraNames.subList(first, first + width);
          double[] v = extras.get(g).apply(r);
          if (v == null || v.length != width) {
            throw new IllegalArgumentException("extra columns " + group + " need " + width
                + " values per record, got " + (v == null ? "null" : v.length) + " for record " + r.index());
          }
          for (int c = 0; c < width; c++) {
            if (Double.isInfinite(v[c])) {
              throw new IllegalArgumentException("extra column " + group.get(c) + " is " + v[c] + " for record "
                  + r.index() + "; use NaN for unknown");
            }
            extraValues[first + c][row] = v[c];
          }
          first += width;
        }
      }
      List<String> names = new ArrayList<>();
      List<double[]> columns = new ArrayList<>();
      builtIn.forEach((name, values) -> {
        if (Arrays.stream(values).anyMatch(v -> !Double.isNaN(v))) {
          names.add(name);
          columns.add(values);
        }
      });
      for (int t = 0; t < tags.size(); t++) {
        names.add(tags.get(t));
        columns.add(tagValues[t]);
      }
      for (int c = 0; c < extraNames.size(); c++) {
        names.add(extraNames.get(c));
        columns.add(extraValues[c]);
      }
      if (names.stream().distinct().count() != names.size()) {
        throw new IllegalArgumentException("column names must be distinct: " + names);
      }
      double[][] rows = new double[n][names.size()];
      for (int c = 0; c < names.size(); c++) {
        double[] values = columns.get(c);
        for (int row = 0; row < n; row++) {
          rows[row][c] = values[row];
        }
      }
      return new FeatureTable(List.copyOf(names), rows, List.copyOf(kept), all.size() - n);
    }

    private static String formatMillis(Duration d) {
      long nanos = d.toNanos();
      return nanos % 1_000_000 == 0 ? Long.toString(nanos / 1_000_000)
          : String.format(Locale.ROOT, "%.3f", nanos / 1e6);
    }

    private static double inputTokens(RequestRecord r) {
      OptionalInt prompt = r.usage().promptTokens();
      if (prompt.isPresent()) {
        return prompt.getAsInt();
      }
      double achieved = tag(r, WorkloadTags.INPUT_TOKENS_ACHIEVED);
      return Double.isNaN(achieved) ? tag(r, WorkloadTags.INPUT_TOKENS_REQUESTED) : achieved;
    }

    private static double tag(RequestRecord r, String tag) {
      String value = r.tags().get(tag);
      if (value == null) {
        return Double.NaN;
      }
      try {
        double v = Double.parseDouble(value.trim());
        if (!Double.isFinite(v)) {
          throw new NumberFormatException();
        }
        return v;
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("tag '" + tag + "' of record " + r.index() + " is '" + value
            + "', not a finite number; only numeric tags can be feature columns", e);
      }
    }
  }
}
