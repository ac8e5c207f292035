package io.infermark.core.control;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link ControlSignal} read from a server's Prometheus text endpoint: the sum of one gauge over
 * the series whose labels include the given ones, e.g. vLLM's queue length:
 *
 * <pre>{@code
 * ControlSignal waiting = PrometheusGauge.of("http://localhost:8000/metrics", "vllm:num_requests_waiting");
 * PidController pid = PidController.builder(waiting, 4).initialRate(5).build();   // hold 4 waiting
 * }</pre>
 *
 * <p>Each control step fetches the endpoint once, on the controller's thread, with a call timeout
 * (default 250 ms): sends due during the fetch wait for it, so keep the endpoint local or the
 * timeout short. A failed fetch, or a gauge the page does not have, reads as empty (the controller
 * then holds its rate). Only the text format's sample lines are read: {@code name{labels} value}.
 */
public final class PrometheusGauge implements ControlSignal {

  private static final Logger LOG = LoggerFactory.getLogger(PrometheusGauge.class);

  private final String url;
  private final String metric;
  private final Map<String, String> labels;
  private final OkHttpClient client;

  private PrometheusGauge(String url, String metric, Map<String, String> labels, Duration timeout) {
    this.url = url;
    this.metric = metric;
    this.labels = labels;
    this.client = new OkHttpClient.Builder().callTimeout(timeout).build();
  }

  /** The gauge {@code metric} summed over all its series at {@code url}. */
  public static PrometheusGauge of(String url, String metric) {
    return of(url, metric, Map.of(), Duration.ofMillis(250));
  }

  /**
   * The gauge {@code metric} summed over the series whose labels include {@code labels}, fetched
   * with the given call timeout.
   */
  public static PrometheusGauge of(String url, String metric, Map<String, String> labels, Duration timeout) {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(metric, "metric");
    Objects.requireNonNull(timeout, "timeout");
    if (metric.isBlank()) {
      throw new IllegalArgumentException("metric name must not be blank");
    }
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be > 0, was " + timeout);
    }
    return new PrometheusGauge(url, metric, Map.copyOf(labels), timeout);
  }

  @Override
  public String name() {
    return metric + (labels.isEmpty() ? "" : labels.toString());
  }

  @Override
  public Probe open() {
    return elapsed -> fetch();
  }

  /** Fetches the endpoint now and returns the gauge's value, or empty if it failed or is absent. */
  public OptionalDouble fetch() {
    Request request = new Request.Builder().url(url).build();
    try (Response response = client.newCall(request).execute()) {
      ResponseBody body = response.body();
      if (!response.isSuccessful() || body == null) {
        LOG.debug("{} answered HTTP {}", url, response.code());
        return OptionalDouble.empty();
      }
      return parse(body.string(), metric, labels);
    } catch (IOException | RuntimeException e) {
      LOG.debug("fetching {} failed: {}", url, e.toString());
      return OptionalDouble.empty();
    }
  }

  /** The sum of {@code metric} over the sample lines of {@code text} whose labels include {@code labels}. */
  public static OptionalDouble parse(String text, String metric, Map<String, String> labels) {
    double sum = 0;
    boolean found = false;
    for (String raw : text.split("\n")) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#") || !line.startsWith(metric)) {
        continue;
      }
      int at = metric.length();
      if (at < line.length() && line.charAt(at) != '{' && line.charAt(at) != ' ') {
        continue; // a longer name with this prefix
      }
      Map<String, String> seen = new LinkedHashMap<>();
      if (at < line.length() && line.charAt(at) == '{') {
        int close = line.indexOf('}', at);
        if (close < 0) {
          continue;
        }
        for (String pair : line.substring(at + 1, close).split(",")) {
          int eq = pair.indexOf('=');
          if (eq > 0) {
            String v = pair.substring(eq + 1).strip();
            seen.put(pair.substring(0, eq).strip(), v.length() >= 2 ? v.substring(1, v.length() - 1) : v);
          }
        }
        at = close + 1;
      }
      if (!seen.entrySet().containsAll(labels.entrySet())) {
        continue;
      }
      String[] rest = line.substring(at).strip().split("\\s+");
      try {
        sum += Double.parseDouble(rest[0]);
        found = true;
      } catch (NumberFormatException e) {
        // not a sample line after all
      }
    }
    return found ? OptionalDouble.of(sum) : OptionalDouble.empty();
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "PrometheusGauge[%s at %s]", name(), url);
  }
}
