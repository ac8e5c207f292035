package io.infermark.metrics.server;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Which samples of a scrape form one series: a metric name and, optionally, labels that must match
 * exactly. When several samples match (vLLM writes one per model or engine), their values are
 * summed; pin labels to pick one.
 *
 * @param name the metric name, e.g. {@code vllm:num_requests_running}
 * @param labels labels every matching sample must have with these values
 */
public record SeriesSelector(String name, Map<String, String> labels) {

  /** Validates and copies. */
  public SeriesSelector {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("metric name must not be blank");
    }
    labels = Map.copyOf(labels);
  }

  /** A selector of every sample of the metric. */
  public static SeriesSelector of(String name) {
    return new SeriesSelector(name, Map.of());
  }

  /** True when the sample belongs to this series. */
  public boolean matches(PrometheusText.Sample s) {
    if (!s.name().equals(name)) {
      return false;
    }
    for (Map.Entry<String, String> e : labels.entrySet()) {
      if (!e.getValue().equals(s.labels().get(e.getKey()))) {
        return false;
      }
    }
    return true;
  }

  /** The display name: the metric name, with the pinned labels in braces when there are any. */
  public String displayName() {
    if (labels.isEmpty()) {
      return name;
    }
    StringBuilder b = new StringBuilder(name).append('{');
    new TreeMap<>(labels).forEach((k, v) -> b.append(k).append("=\"").append(v).append("\","));
    b.setLength(b.length() - 1);
    return b.append('}').toString();
  }

  @Override
  public String toString() {
    return "SeriesSelector[" + displayName() + "]";
  }
}
