package io.infermark.metrics.server;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * What a {@link PrometheusScraper} collected during a run: where and how often it scraped, how many scrapes succeeded,
 * came late (ended after the next was due) or failed, and the series. Immutable.
 *
 * @param endpoint the scraped URL without user info or query
 * @param interval how often scrapes were scheduled
 * @param timeout how long one scrape could take before it counted as failed
 * @param successful scrapes that returned a page
 * @param late scrapes that ended after the next one was due (successful or not)
 * @param failed scrapes that failed (error, non-2xx, timeout)
 * @param series the selected series, in selector order (a series no scrape matched has no points)
 * @param memoryThresholds the memory thresholds watched in the series ({@link #memoryCrossings()}); none unless
 *     {@link #withMemoryThresholds} set them
 */
public record ScrapeReport(String endpoint, Duration interval, Duration timeout, int successful, int late, int failed,
    List<ServerSeries> series, MemoryThresholds memoryThresholds) {

  /** Validates and copies. */
  public ScrapeReport {
    Objects.requireNonNull(endpoint, "endpoint");
    Objects.requireNonNull(interval, "interval");
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(memoryThresholds, "memoryThresholds");
    if (successful < 0 || late < 0 || failed < 0) {
      throw new IllegalArgumentException("scrape counts must be >= 0");
    }
    series = List.copyOf(series);
  }

  /** A report watching no memory threshold. */
  public ScrapeReport(String endpoint, Duration interval, Duration timeout, int successful, int late, int failed,
      List<ServerSeries> series) {
    this(endpoint, interval, timeout, successful, late, failed, series, MemoryThresholds.of(List.of()));
  }

  /** This report watching {@code thresholds} in its series. */
  public ScrapeReport withMemoryThresholds(MemoryThresholds thresholds) {
    return new ScrapeReport(endpoint, interval, timeout, successful, late, failed, series, thresholds);
  }

  /** Every crossing of the watched memory thresholds in the series, by time ({@link MemoryThresholds#crossings}). */
  public List<MemoryThresholds.Crossing> memoryCrossings() {
    return memoryThresholds.crossings(series);
  }

  /** One line: endpoint and {@link #counts()}. */
  public String summary() {
    return endpoint + ": " + counts();
  }

  /** The counts in words, e.g. {@code 12 scrapes every 1 s, 1 late, 0 failed (timeout 30 s)}. */
  public String counts() {
    return successful + " scrape" + (successful == 1 ? "" : "s") + " every " + seconds(interval) + ", " + late
        + " late, " + failed + " failed (timeout " + seconds(timeout) + ")";
  }

  private static String seconds(Duration d) {
    return java.math.BigDecimal.valueOf(d.toNanos(), 9).stripTrailingZeros().toPlainString() + " s";
  }

  @Override
  public String toString() {
    return "ScrapeReport[" + summary() + ", " + series.size() + " series]";
  }
}
