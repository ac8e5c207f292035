package io.infermark.metrics.otel;

import io.infermark.core.capture.RequestRecord;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * A user-named histogram {@link GenAiTelemetry} records from each measured request, for dashboards
 * that already have their names: {@code model_inference_duration_seconds} by model and input-length
 * bucket, say.
 *
 * <pre>{@code
 * HistogramMapping.builder("model_inference_duration_seconds")
 *     .unit("s")
 *     .buckets(0.1, 0.25, 0.5, 1, 2.5, 5, 10)
 *     .value(HistogramMapping.e2eSeconds())
 *     .attribute("model", r -> "llama-3-8b")
 *     .attribute("input_length",
 *         r -> HistogramMapping.lengthBucket(r.usage().promptTokens().orElse(0), 128, 512, 2048))
 *     .build();
 * }</pre>
 *
 * <p>The value function returns empty to skip a request (the default {@link #e2eSeconds()} skips
 * failed requests and those without a token).
 *
 * @param name the instrument name
 * @param description the instrument description
 * @param unit the instrument unit
 * @param buckets explicit bucket boundaries advice, ascending; empty for the SDK's default
 * @param value the value a request contributes
 * @param attributes attribute name to the function computing its value, in order
 */
public record HistogramMapping(String name, String description, String unit, List<Double> buckets,
    Function<RequestRecord, OptionalDouble> value, Map<String, Function<RequestRecord, String>> attributes) {

  private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_.\\-/]{0,254}");

  /** Validates and copies. */
  public HistogramMapping {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(description, "description");
    Objects.requireNonNull(unit, "unit");
    Objects.requireNonNull(value, "value");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("instrument name must match " + NAME + " (OpenTelemetry's rule), was '"
          + name + "'");
    }
    buckets = List.copyOf(buckets);
    for (int i = 1; i < buckets.size(); i++) {
      if (!(buckets.get(i) > buckets.get(i - 1))) {
        throw new IllegalArgumentException("buckets must be strictly ascending, were " + buckets);
      }
    }
    attributes = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
  }

  /** A builder for a histogram of the given name. */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  /** A request's E2E (send to last token-bearing chunk) in seconds; empty for failures and requests without a token. */
  public static Function<RequestRecord, OptionalDouble> e2eSeconds() {
    return r -> r.succeeded() && r.chunks().tokenChunkCount() > 0
        ? OptionalDouble.of(r.chunks().lastTokenOffsetNanos().getAsLong() / 1e9) : OptionalDouble.empty();
  }

  /**
   * A low-cardinality label for a length: {@code "<128"}, {@code "128-511"}, ..., {@code ">=2048"} for
   * edges 128, 512, 2048.
   *
   * @throws IllegalArgumentException if no edge is given or the edges are not strictly ascending
   */
  public static String lengthBucket(int length, int... edges) {
    if (edges.length == 0) {
      throw new IllegalArgumentException("give at least one edge");
    }
    for (int i = 1; i < edges.length; i++) {
      if (edges[i] <= edges[i - 1]) {
        throw new IllegalArgumentException("edges must be strictly ascending, were "
            + java.util.Arrays.toString(edges));
      }
    }
    if (length < edges[0]) {
      return "<" + edges[0];
    }
    for (int i = 1; i < edges.length; i++) {
      if (length < edges[i]) {
        return edges[i - 1] + "-" + (edges[i] - 1);
      }
    }
    return ">=" + edges[edges.length - 1];
  }

  @Override
  public String toString() {
    return "HistogramMapping[" + name + " (" + unit + ") by " + attributes.keySet() + "]";
  }

  /** Builds a {@link HistogramMapping}. */
  public static final class Builder {
    private final String name;
    private String description = "";
    private String unit = "s";
    private List<Double> buckets = List.of();
    private Function<RequestRecord, OptionalDouble> value = e2eSeconds();
    private final Map<String, Function<RequestRecord, String>> attributes = new LinkedHashMap<>();

    private Builder(String name) {
      this.name = name;
    }

    /** The instrument description; empty by default. */
    public Builder description(String description) {
      this.description = Objects.requireNonNull(description, "description");
      return this;
    }

    /** The unit; {@code s} by default. */
    public Builder unit(String unit) {
      this.unit = Objects.requireNonNull(unit, "unit");
      return this;
    }

    /** Explicit bucket boundaries advice, strictly ascending. */
    public Builder buckets(double... boundaries) {
      List<Double> list = new ArrayList<>();
      for (double b : boundaries) {
        list.add(b);
      }
      this.buckets = list;
      return this;
    }

    /** The value each request contributes, empty to skip it; {@link #e2eSeconds()} by default. */
    public Builder value(Function<RequestRecord, OptionalDouble> value) {
      this.value = Objects.requireNonNull(value, "value");
      return this;
    }

    /** An attribute and how to compute it from a request; keep its values few (low cardinality). */
    public Builder attribute(String key, Function<RequestRecord, String> value) {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
      if (key.isBlank()) {
        throw new IllegalArgumentException("attribute key must not be blank");
      }
      attributes.put(key, value);
      return this;
    }

    /** The mapping. */
    public HistogramMapping build() {
      return new HistogramMapping(name, description, unit, buckets, value, attributes);
    }
  }
}
