package io.infermark.metrics.server;

import io.infermark.core.capture.RequestRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Memory thresholds as events: every crossing of a {@link MemoryThreshold} by a scraped gauge, up or down, with
 * when it happened, placed on the requests it overlaps as the counter events of {@link ServerEvents} are
 * (preemptions). The defaults are the seeds' three: KV usage 85 % (seed 003 ch. 1, shrink the batch and scale out),
 * KV usage 92 % (seed 000 §3.3, KV eviction) and memory bandwidth 95 % of peak (seed 000 §3.3).
 *
 * <pre>{@code
 * MemoryThresholds t = MemoryThresholds.defaults();
 * List<MemoryThresholds.Crossing> c = t.crossings(scraper.series());
 * // [vllm:kv_cache_usage_perc crossed up 92% (KV eviction (seed 000 §3.3)) between scrapes at 1203.4 and 1213.5 ms: 0.9 -> 0.95]
 * List<RequestRecord> tagged = t.tag(scraper.series(), run.records());   // tag memory_events
 * }</pre>
 *
 * <p>A gauge is read between a scrape's request and its answer ({@link ServerSeries#fromNanos},
 * {@link ServerSeries#toNanos}), so a crossing seen between samples {@code i − 1} and {@code i} happened in
 * {@code (fromNanos(i − 1), toNanos(i)]}, on the run's clock. Up means the earlier sample was below the level and the
 * later at or above it; down the reverse. A gauge already at or above the level at its first sample crossed up
 * before it: that crossing's interval is the first scrape's ({@code before} NaN). A threshold reads the first of its
 * series that has samples; one with none among the scraped series has no crossings (and
 * {@link #unread(List)} names it). A gauge that moves up and down between two scrapes is not seen: shorter scrape
 * intervals see more. Immutable.
 */
public final class MemoryThresholds {

  /** The tag {@link #tag} puts on records a crossing overlaps: its descriptions, "; "-separated. */
  public static final String TAG = "memory_events";

  private final List<MemoryThreshold> thresholds;

  private MemoryThresholds(List<MemoryThreshold> thresholds) {
    this.thresholds = List.copyOf(thresholds);
  }

  /** The seeds' three: KV 85 % (seed 003), KV 92 % and bandwidth 95 % (seed 000 §3.3). */
  public static MemoryThresholds defaults() {
    return of(List.of(MemoryThreshold.seed003ShrinkBatch(), MemoryThreshold.seed000KvEviction(),
        MemoryThreshold.seed000BandwidthStarvation()));
  }

  /** These thresholds (none: no events). */
  public static MemoryThresholds of(List<MemoryThreshold> thresholds) {
    Objects.requireNonNull(thresholds, "thresholds");
    return new MemoryThresholds(thresholds);
  }

  /** The thresholds. */
  public List<MemoryThreshold> thresholds() {
    return thresholds;
  }

  /** Every series any threshold may read, each once, in order. */
  public List<String> seriesNames() {
    List<String> names = new ArrayList<>();
    for (MemoryThreshold t : thresholds) {
      for (String s : t.series()) {
        if (!names.contains(s)) {
          names.add(s);
        }
      }
    }
    return List.copyOf(names);
  }

  /** The thresholds none of whose series has a sample among {@code scraped}: they could not be watched. */
  public List<MemoryThreshold> unread(List<ServerSeries> scraped) {
    return thresholds.stream().filter(t -> source(t, scraped).isEmpty()).toList();
  }

  /** Every crossing of every threshold in {@code scraped}, by the time of the scrape that saw it. */
  public List<Crossing> crossings(List<ServerSeries> scraped) {
    Objects.requireNonNull(scraped, "scraped");
    List<Crossing> out = new ArrayList<>();
    for (MemoryThreshold t : thresholds) {
      Optional<ServerSeries> found = source(t, scraped);
      if (found.isEmpty()) {
        continue;
      }
      ServerSeries s = found.get();
      boolean above = false;
      double before = Double.NaN;
      long from = s.fromNanos(0);
      for (int i = 0; i < s.size(); i++) {
        double v = s.value(i);
        if (!Double.isFinite(v)) {
          continue; // a NaN sample says nothing; the next finite one is compared with the last finite one
        }
        boolean now = v >= t.level();
        if (now != above) {
          out.add(new Crossing(t, s.name(), now ? Direction.UP : Direction.DOWN, from, s.toNanos(i), before, v));
        }
        above = now;
        before = v;
        from = s.fromNanos(i);
      }
    }
    out.sort((x, y) -> Long.compare(x.toNanos(), y.toNanos()));
    return List.copyOf(out);
  }

  /** The crossings overlapping the request's window, each in words with where in the request it fell. */
  public List<String> annotate(List<Crossing> crossings, RequestRecord r) {
    List<String> out = new ArrayList<>();
    for (Crossing c : crossings) {
      ServerEvents.Phase phase = ServerEvents.phaseOf(r, c.fromNanos(), c.toNanos());
      if (phase != null) {
        out.add(c.describe(phase));
      }
    }
    return out;
  }

  /**
   * The records, each overlapped by a crossing tagged {@value #TAG} with its descriptions (e.g. {@code
   * vllm:kv_cache_usage_perc crossed up 92% (KV eviction (seed 000 §3.3)) during decode (between scrapes at 100.0
   * and 200.0 ms: 0.9 -> 0.95)}); the others unchanged.
   */
  public List<RequestRecord> tag(List<ServerSeries> scraped, List<RequestRecord> records) {
    List<Crossing> crossings = crossings(scraped);
    List<RequestRecord> out = new ArrayList<>(records.size());
    for (RequestRecord r : records) {
      List<String> a = annotate(crossings, r);
      if (a.isEmpty()) {
        out.add(r);
        continue;
      }
      Map<String, String> tags = new HashMap<>(r.tags());
      tags.put(TAG, String.join("; ", a));
      out.add(r.toBuilder().tags(tags).build());
    }
    return List.copyOf(out);
  }

  private static Optional<ServerSeries> source(MemoryThreshold t, List<ServerSeries> scraped) {
    for (String name : t.series()) {
      for (ServerSeries s : scraped) {
        if (s.name().equals(name) && s.size() > 0) {
          return Optional.of(s);
        }
      }
    }
    return Optional.empty();
  }

  @Override
  public String toString() {
    return "MemoryThresholds" + thresholds;
  }

  /** Which way a gauge crossed its level. */
  public enum Direction {
    /** From below the level to at or above it. */
    UP,
    /** From at or above the level to below it. */
    DOWN;

    /** {@code up} or {@code down}. */
    public String word() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * One crossing of a threshold.
   *
   * @param threshold the threshold crossed
   * @param series the gauge that crossed it
   * @param direction up or down
   * @param fromNanos when the earlier scrape was sent (run clock, from the origin): the crossing came after
   * @param toNanos when the scrape that saw it was answered: the crossing came no later
   * @param before the earlier sample's value; NaN when the gauge was already past the level at its first sample
   * @param after the value the scrape that saw it read
   */
  public record Crossing(MemoryThreshold threshold, String series, Direction direction, long fromNanos, long toNanos,
      double before, double after) {

    /** Validates. */
    public Crossing {
      Objects.requireNonNull(threshold, "threshold");
      Objects.requireNonNull(series, "series");
      Objects.requireNonNull(direction, "direction");
    }

    /** The crossing with where in a request it fell, for a record's tag. */
    String describe(ServerEvents.Phase phase) {
      return head() + " " + phase.words() + tail();
    }

    private String head() {
      return series + " crossed " + direction.word() + " " + threshold.levelText() + " (" + threshold.meaning() + ")";
    }

    private String tail() {
      return String.format(Locale.ROOT, " (between scrapes at %.1f and %.1f ms: %s -> %s)", fromNanos / 1e6,
          toNanos / 1e6, Double.isNaN(before) ? "already at the first scrape" : value(before), value(after));
    }

    /** Four significant digits without trailing zeros: {@code 0.86}, {@code 0.9}, {@code 12}. */
    private static String value(double v) {
      if (v == Math.rint(v) && Math.abs(v) < 1e15) {
        return Long.toString((long) v);
      }
      String s = String.format(Locale.ROOT, "%.4g", v);
      return s.contains(".") && !s.contains("e") ? s.replaceAll("0+$", "").replaceAll("\\.$", "") : s;
    }

    /** E.g. {@code vllm:kv_cache_usage_perc crossed up 92% (KV eviction (seed 000 §3.3)) between scrapes at ...}. */
    @Override
    public String toString() {
      return head() + tail();
    }
  }
}
