package io.infermark.metrics.server;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A parser of the Prometheus text exposition format (version 0.0.4), enough to read gauges and
 * counters from vLLM, SGLang, TGI or the simulator: {@code name{label="value",...} value [timestamp]}
 * lines; {@code #} lines (HELP, TYPE, comments) and blank lines are skipped; label values may
 * contain escaped {@code \\}, {@code \"} and {@code \n}; values may be {@code NaN}, {@code +Inf},
 * {@code -Inf}. A line that does not parse is skipped and counted, so one odd line does not lose a
 * scrape.
 */
public final class PrometheusText {

  /**
   * One sample.
   *
   * @param name the metric name, e.g. {@code vllm:num_requests_running}
   * @param labels the labels in the order written
   * @param value the value
   */
  public record Sample(String name, Map<String, String> labels, double value) {

    /** Validates and copies. */
    public Sample {
      Objects.requireNonNull(name, "name");
      labels = Collections.unmodifiableMap(new LinkedHashMap<>(labels));
    }
  }

  /**
   * What a page held.
   *
   * @param samples the samples, in page order
   * @param skippedLines lines that did not parse
   */
  public record Page(List<Sample> samples, int skippedLines) {

    /** Copies. */
    public Page {
      samples = List.copyOf(samples);
    }
  }

  private PrometheusText() {}

  /** Parses a page. */
  public static Page parse(String text) {
    Objects.requireNonNull(text, "text");
    List<Sample> samples = new ArrayList<>();
    int skipped = 0;
    for (String raw : text.split("\n")) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      Sample s = parseLine(line);
      if (s == null) {
        skipped++;
      } else {
        samples.add(s);
      }
    }
    return new Page(samples, skipped);
  }

  private static Sample parseLine(String line) {
    int i = 0;
    int n = line.length();
    while (i < n && line.charAt(i) != '{' && !Character.isWhitespace(line.charAt(i))) {
      i++;
    }
    String name = line.substring(0, i);
    if (name.isEmpty()) {
      return null;
    }
    Map<String, String> labels = new LinkedHashMap<>();
    if (i < n && line.charAt(i) == '{') {
      i++;
      while (true) {
        while (i < n && (line.charAt(i) == ' ' || line.charAt(i) == ',')) {
          i++;
        }
        if (i >= n) {
          return null;
        }
        if (line.charAt(i) == '}') {
          i++;
          break;
        }
        int eq = line.indexOf('=', i);
        if (eq < 0 || eq + 1 >= n || line.charAt(eq + 1) != '"') {
          return null;
        }
        String key = line.substring(i, eq).strip();
        StringBuilder value = new StringBuilder();
        int j = eq + 2;
        boolean closed = false;
        while (j < n) {
          char c = line.charAt(j);
          if (c == '\\' && j + 1 < n) {
            char e = line.charAt(j + 1);
            value.append(e == 'n' ? '\n' : e);
            j += 2;
          } else if (c == '"') {
            closed = true;
            j++;
            break;
          } else {
            value.append(c);
            j++;
          }
        }
        if (!closed) {
          return null;
        }
        labels.put(key, value.toString());
        i = j;
      }
    }
    String[] rest = line.substring(i).strip().split("\\s+");
    if (rest.length < 1 || rest[0].isEmpty()) {
      return null;
    }
    try {
      return new Sample(name, labels, parseValue(rest[0]));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static double parseValue(String s) {
    switch (s) {
      case "+Inf":
      case "Inf":
        return Double.POSITIVE_INFINITY;
      case "-Inf":
        return Double.NEGATIVE_INFINITY;
      case "NaN":
        return Double.NaN;
      default:
        return Double.parseDouble(s);
    }
  }
}
