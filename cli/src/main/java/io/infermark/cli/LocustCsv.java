package io.infermark.cli;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.UserRamp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Locust's {@code --csv PREFIX} files from a run's records, with Locust's columns ({@code locust/stats.py},
 * {@code StatsCSV}): {@code _stats.csv} (one row per request name, then {@code Aggregated}), {@code
 * _stats_history.csv} (the {@code Aggregated} row once a second of the run), {@code _failures.csv} (occurrences by
 * method, name and error) and {@code _exceptions.csv} (errors in user code: Locust's Python, none here, so the header
 * only). Response times are milliseconds from send to the stream's end, as Locust times a request it reads whole;
 * percentiles are exact (nearest rank) where Locust rounds times into buckets first; content size is the reply's
 * text in UTF-8 bytes (the SSE framing around it is not counted). Never-sent requests are not requests here.
 */
final class LocustCsv {

  /** Locust's default percentiles ({@code PERCENTILES_TO_REPORT}). */
  static final double[] PERCENTILES = {0.50, 0.66, 0.75, 0.80, 0.90, 0.95, 0.98, 0.99, 0.999, 0.9999, 1.0};
  static final List<String> STATS_COLUMNS = columns("Type", "Name", "Request Count", "Failure Count",
      "Median Response Time", "Average Response Time", "Min Response Time", "Max Response Time",
      "Average Content Size", "Requests/s", "Failures/s");
  static final List<String> HISTORY_COLUMNS;
  static final List<String> FAILURES_COLUMNS = List.of("Method", "Name", "Error", "Occurrences");
  static final List<String> EXCEPTIONS_COLUMNS = List.of("Count", "Message", "Traceback", "Nodes");

  static {
    List<String> h = new ArrayList<>(List.of("Timestamp", "User Count", "Type", "Name", "Requests/s", "Failures/s"));
    h.addAll(percentileNames());
    h.addAll(List.of("Total Request Count", "Total Failure Count", "Total Median Response Time",
        "Total Average Response Time", "Total Min Response Time", "Total Max Response Time",
        "Total Average Content Size"));
    HISTORY_COLUMNS = List.copyOf(h);
  }

  private LocustCsv() {}

  private static List<String> columns(String... first) {
    List<String> c = new ArrayList<>(List.of(first));
    c.addAll(percentileNames());
    return List.copyOf(c);
  }

  /** Locust's {@code get_readable_percentiles}: 50%, 66%, ..., 99.9%, 99.99%, 100%. */
  static List<String> percentileNames() {
    List<String> names = new ArrayList<>();
    for (double p : PERCENTILES) {
      double pct = p * 100;
      names.add((pct == Math.rint(pct) ? Long.toString((long) pct) : trim(pct)) + "%");
    }
    return names;
  }

  private static String trim(double v) {
    String s = String.format(Locale.ROOT, "%.6f", v);
    return s.replaceAll("0+$", "").replaceAll("\\.$", "");
  }

  /** The four files' paths for {@code prefix}. */
  static List<Path> files(Path prefix) {
    String p = prefix.toString();
    return List.of(Path.of(p + "_stats.csv"), Path.of(p + "_stats_history.csv"), Path.of(p + "_failures.csv"),
        Path.of(p + "_exceptions.csv"));
  }

  /** The statistics of a set of requests, as Locust's {@code StatsEntry} has them. */
  private static final class Entry {
    final List<Double> times = new ArrayList<>();
    long requests;
    long failures;
    long contentBytes;

    void add(RequestRecord r) {
      requests++;
      if (!r.succeeded()) {
        failures++;
      }
      times.add(r.endOffsetNanos() / 1e6);
      contentBytes += r.text().map(t -> t.getBytes(StandardCharsets.UTF_8).length).orElse(0);
    }

    double[] sorted() {
      return times.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    }

    List<String> percentiles() {
      List<String> out = new ArrayList<>();
      double[] s = sorted();
      for (double p : PERCENTILES) {
        out.add(s.length == 0 ? "N/A" : Long.toString((long) s[Math.max(0, (int) Math.ceil(p * s.length) - 1)]));
      }
      return out;
    }

    String median() {
      double[] s = sorted();
      return s.length == 0 ? "0" : Long.toString(Math.round(s[Math.max(0, (int) Math.ceil(0.5 * s.length) - 1)]));
    }

    String average() {
      return num(times.stream().mapToDouble(Double::doubleValue).average().orElse(0));
    }

    String min() {
      return num(times.stream().mapToDouble(Double::doubleValue).min().orElse(0));
    }

    String max() {
      return num(times.stream().mapToDouble(Double::doubleValue).max().orElse(0));
    }

    String contentSize() {
      return num(requests == 0 ? 0 : (double) contentBytes / requests);
    }
  }

  private static String num(double v) {
    return String.format(Locale.ROOT, "%s", v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v)
        : Double.toString(v));
  }

  /**
   * Writes the four files for {@code run}; {@code name} is the request's name (its URL path), {@code ramp} the users
   * over time when users shaped the load (otherwise the requests in flight stand for them).
   */
  static void write(Path prefix, RunResult run, String name, Optional<UserRamp> ramp, OutputFiles outputs) {
    List<RequestRecord> sent = run.measured().stream().filter(RequestRecord::wasSent).toList();
    double seconds = Math.max(run.durationNanos(), 1) / 1e9;
    Entry all = new Entry();
    sent.forEach(all::add);
    List<Path> files = files(prefix);

    List<List<String>> stats = new ArrayList<>();
    stats.add(STATS_COLUMNS);
    stats.add(statsRow("POST", name, all, seconds));
    stats.add(statsRow("", "Aggregated", all, seconds));
    outputs.write(files.get(0), p -> csv(p, stats));

    List<List<String>> history = new ArrayList<>();
    history.add(HISTORY_COLUMNS);
    long start = run.startedAt().getEpochSecond();
    for (long t = 1; t <= (long) Math.ceil(seconds); t++) {
      long at = Math.min(t * 1_000_000_000L, run.durationNanos());
      Entry sofar = new Entry();
      long windowStart = at - 10_000_000_000L;
      long inWindow = 0;
      long failedInWindow = 0;
      int inFlight = 0;
      for (RequestRecord r : sent) {
        long end = r.sendNanos() + r.endOffsetNanos();
        if (end <= at) {
          sofar.add(r);
          if (end > windowStart) {
            inWindow++;
            failedInWindow += r.succeeded() ? 0 : 1;
          }
        } else if (r.sendNanos() <= at) {
          inFlight++;
        }
      }
      double window = Math.min(10.0, at / 1e9);
      List<String> row = new ArrayList<>(List.of(Long.toString(start + t), Integer.toString(ramp.map(u -> usersAt(u,
          at)).orElse(inFlight)), "", "Aggregated", String.format(Locale.ROOT, "%f", window > 0 ? inWindow / window
          : 0), String.format(Locale.ROOT, "%f", window > 0 ? failedInWindow / window : 0)));
      row.addAll(sofar.percentiles());
      row.addAll(List.of(Long.toString(sofar.requests), Long.toString(sofar.failures), sofar.median(),
          sofar.average(), sofar.min(), sofar.max(), sofar.contentSize()));
      history.add(row);
    }
    outputs.write(files.get(1), p -> csv(p, history));

    Map<String, Long> errors = new LinkedHashMap<>();
    for (RequestRecord r : sent) {
      r.failure().ifPresent(f -> errors.merge(f.category().name().toLowerCase(Locale.ROOT) + ": " + f.message(), 1L,
          Long::sum));
    }
    List<List<String>> failures = new ArrayList<>();
    failures.add(FAILURES_COLUMNS);
    errors.forEach((error, n) -> failures.add(List.of("POST", name, error, Long.toString(n))));
    outputs.write(files.get(2), p -> csv(p, failures));
    outputs.write(files.get(3), p -> csv(p, List.of(EXCEPTIONS_COLUMNS)));
  }

  private static List<String> statsRow(String type, String name, Entry e, double seconds) {
    List<String> row = new ArrayList<>(Arrays.asList(type, name, Long.toString(e.requests), Long.toString(e.failures),
        e.median(), e.average(), e.min(), e.max(), e.contentSize(), num(e.requests / seconds),
        num(e.failures / seconds)));
    row.addAll(e.percentiles());
    return row;
  }

  /** Users active {@code at} nanoseconds into the run, by the ramp's stages. */
  static int usersAt(UserRamp ramp, long at) {
    int users = ramp.stages().isEmpty() ? ramp.users() : ramp.stages().get(0).fromUsers();
    for (UserRamp.UserStage s : ramp.stages()) {
      if (at >= s.endNanos()) {
        users = s.toUsers();
      } else if (s.contains(at)) {
        if (s.kind() == UserRamp.Kind.HOLD || s.spawnRate() == 0) {
          return s.fromUsers();
        }
        long moved = (long) Math.floor(s.spawnRate() * (at - s.startNanos()) / 1e9);
        int step = s.toUsers() >= s.fromUsers() ? 1 : -1;
        return (int) (s.fromUsers() + step * Math.min(moved, Math.abs(s.toUsers() - s.fromUsers())));
      }
    }
    return users;
  }

  private static void csv(Path p, List<List<String>> rows) throws IOException {
    StringBuilder b = new StringBuilder();
    for (List<String> row : rows) {
      for (int i = 0; i < row.size(); i++) {
        b.append(i == 0 ? "" : ",").append(quote(row.get(i)));
      }
      b.append("\r\n"); // Python's csv module ends rows with \r\n
    }
    try {
      Files.writeString(p, b.toString(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Python csv's minimal quoting: a field with a comma, quote or line break is quoted, quotes doubled. */
  static String quote(String v) {
    if (v.contains(",") || v.contains("\"") || v.contains("\n") || v.contains("\r")) {
      return "\"" + v.replace("\"", "\"\"") + "\"";
    }
    return v;
  }
}
