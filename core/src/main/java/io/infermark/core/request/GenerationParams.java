package io.infermark.core.request;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * How to generate: max tokens, temperature, {@code ignore_eos}, streaming, extra body fields and
 * extra headers. Shared by every request of a run; immutable.
 *
 * <p>Benchmarks usually fix the output length with {@code maxTokens(n).ignoreEos(true)} so that
 * every request decodes exactly n tokens on servers that honour {@code ignore_eos} (vLLM, SGLang,
 * TGI, the simulator).
 */
public final class GenerationParams {

  private static final GenerationParams DEFAULTS = builder().build();

  private final int maxTokens;
  private final double temperature;
  private final boolean ignoreEos;
  private final boolean stream;
  private final Map<String, Object> extraBody;
  private final Map<String, String> headers;

  private GenerationParams(Builder b) {
    this.maxTokens = b.maxTokens;
    this.temperature = b.temperature;
    this.ignoreEos = b.ignoreEos;
    this.stream = b.stream;
    this.extraBody = Collections.unmodifiableMap(new LinkedHashMap<>(b.extraBody));
    this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(b.headers));
  }

  /** Streaming on, everything else left to the server. */
  public static GenerationParams defaults() {
    return DEFAULTS;
  }

  /** A builder starting from {@link #defaults()}. */
  public static Builder builder() {
    return new Builder();
  }

  /** The output token limit, if set. */
  public OptionalInt maxTokens() {
    return maxTokens < 0 ? OptionalInt.empty() : OptionalInt.of(maxTokens);
  }

  /** The sampling temperature, if set. */
  public OptionalDouble temperature() {
    return Double.isNaN(temperature) ? OptionalDouble.empty() : OptionalDouble.of(temperature);
  }

  /** Whether to ask the server to ignore end-of-sequence tokens. */
  public boolean ignoreEos() {
    return ignoreEos;
  }

  /** Whether to stream the response (true by default). */
  public boolean stream() {
    return stream;
  }

  /** Extra JSON body fields merged into every request body (they win over infermark's own fields). */
  public Map<String, Object> extraBody() {
    return extraBody;
  }

  /** Extra HTTP headers. Their values never appear in records, logs or reports. */
  public Map<String, String> headers() {
    return headers;
  }

  /** A builder initialised with these values. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.maxTokens = maxTokens;
    b.temperature = temperature;
    b.ignoreEos = ignoreEos;
    b.stream = stream;
    b.extraBody.putAll(extraBody);
    b.headers.putAll(headers);
    return b;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GenerationParams g && g.maxTokens == maxTokens
        && Double.compare(g.temperature, temperature) == 0 && g.ignoreEos == ignoreEos && g.stream == stream
        && g.extraBody.equals(extraBody) && g.headers.equals(headers);
  }

  @Override
  public int hashCode() {
    return Objects.hash(maxTokens, temperature, ignoreEos, stream, extraBody, headers);
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("GenerationParams[");
    s.append(stream ? "stream" : "no stream");
    if (maxTokens >= 0) {
      s.append(", max_tokens=").append(maxTokens);
    }
    if (!Double.isNaN(temperature)) {
      s.append(String.format(Locale.ROOT, ", temperature=%s", temperature));
    }
    if (ignoreEos) {
      s.append(", ignore_eos");
    }
    if (!extraBody.isEmpty()) {
      s.append(", extra body ").append(extraBody.keySet());
    }
    if (!headers.isEmpty()) {
      s.append(", headers ").append(headers.keySet()); // names only: values may be secrets
    }
    return s.append(']').toString();
  }

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  /** Builds {@link GenerationParams}. */
  public static final class Builder {
    private int maxTokens = -1;
    private double temperature = Double.NaN;
    private boolean ignoreEos;
    private boolean stream = true;
    private final Map<String, Object> extraBody = new LinkedHashMap<>();
    private final Map<String, String> headers = new LinkedHashMap<>();

    private Builder() {}

    /** The output token limit; must be positive. */
    public Builder maxTokens(int n) {
      if (n <= 0) {
        throw new IllegalArgumentException("maxTokens must be > 0, was " + n);
      }
      this.maxTokens = n;
      return this;
    }

    /** Sampling temperature; must be finite and >= 0. */
    public Builder temperature(double t) {
      if (!(t >= 0) || Double.isInfinite(t)) {
        throw new IllegalArgumentException("temperature must be finite and >= 0, was " + t);
      }
      this.temperature = t;
      return this;
    }

    /** Ask the server to ignore end-of-sequence tokens, so it generates exactly max tokens. */
    public Builder ignoreEos(boolean ignore) {
      this.ignoreEos = ignore;
      return this;
    }

    /** Stream the response (default) or not. */
    public Builder stream(boolean stream) {
      this.stream = stream;
      return this;
    }

    /**
     * Adds an extra JSON body field (a string, number, boolean, list or map).
     *
     * @throws IllegalArgumentException if the value cannot be written as JSON, so a bad value fails
     *     here rather than every request of a run
     */
    public Builder extraBody(String name, Object value) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(value, "value");
      try {
        JSON.writeValueAsBytes(value);
      } catch (com.fasterxml.jackson.core.JsonProcessingException | RuntimeException e) {
        throw new IllegalArgumentException("extraBody field \"" + name + "\" cannot be written as JSON: "
            + e.getMessage(), e);
      }
      extraBody.put(name, value);
      return this;
    }

    /**
     * Adds an HTTP header. Its value never appears in records, logs or reports.
     *
     * @throws IllegalArgumentException if the name is not an HTTP token or the value holds CR, LF or
     *     NUL (which would split the request); the message never shows the value
     */
    public Builder header(String name, String value) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(value, "value");
      HeaderRules.check(name, value);
      headers.put(name, value);
      return this;
    }

    /** Returns the parameters. */
    public GenerationParams build() {
      return new GenerationParams(this);
    }
  }
}
