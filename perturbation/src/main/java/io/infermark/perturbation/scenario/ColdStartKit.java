package io.infermark.perturbation.scenario;

import io.infermark.core.capture.RequestRecord;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.concurrent.locks.LockSupport;

/**
 * Scenario kit: the cost of a cold start (seed 003 §3.3). A server that loads its model's weights
 * on start, or again after scaling to zero, is not ready for a while and makes its first requests
 * wait; this kit measures how long until it is ready and how much slower the first (cold) requests
 * are than warm ones.
 *
 * <pre>{@code
 * ColdStartKit kit = ColdStartKit.builder().maxTimeToReady(Duration.ofSeconds(30))
 *     .maxColdPenalty(Duration.ofSeconds(5)).build();
 * long loadStarted = System.nanoTime(); // e.g. just before starting or waking the server
 * Duration ready = ColdStartKit.awaitReady(URI.create(base + "/health"), loadStarted, Duration.ofMinutes(2));
 * ColdStartVerdict v = kit.verdict(OptionalDouble.of(ready.toNanos() / 1e6), coldRecords, warmRecords);
 * }</pre>
 *
 * <p><b>Verdict:</b> cold TTFT is the slowest successful cold request's TTFT; the penalty is that
 * minus the warm requests' median TTFT. The kit passes when time to ready (if measured) is at most
 * {@code maxTimeToReady}, the penalty at most {@code maxColdPenalty}, and every cold and warm
 * request succeeded (a cold request that timed out is the failure this kit looks for).
 */
public final class ColdStartKit {

  private final Duration maxTimeToReady;
  private final Duration maxColdPenalty;

  private ColdStartKit(Builder b) {
    this.maxTimeToReady = b.maxTimeToReady;
    this.maxColdPenalty = b.maxColdPenalty;
  }

  /** A builder; both limits default to unlimited (the verdict then only checks that requests succeed). */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Polls {@code healthUrl} with {@code GET} until it answers 2xx and returns the time from
   * {@code sinceNanos} (a {@link System#nanoTime()} reading, e.g. when the load began) to that
   * answer. Polls every 5 ms; connection failures and non-2xx answers count as not ready.
   *
   * @throws IllegalStateException if it is not ready within {@code timeout}
   */
  public static Duration awaitReady(URI healthUrl, long sinceNanos, Duration timeout) {
    Objects.requireNonNull(healthUrl, "healthUrl");
    Objects.requireNonNull(timeout, "timeout");
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest get = HttpRequest.newBuilder(healthUrl).timeout(Duration.ofSeconds(2)).GET().build();
    long deadline = System.nanoTime() + timeout.toNanos();
    int polls = 0;
    while (true) {
      polls++;
      try {
        int status = client.send(get, HttpResponse.BodyHandlers.discarding()).statusCode();
        if (status >= 200 && status < 300) {
          return Duration.ofNanos(System.nanoTime() - sinceNanos);
        }
      } catch (IOException e) {
        // not listening yet: not ready
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for " + redact(healthUrl) + " to be ready", e);
      }
      if (System.nanoTime() >= deadline) {
        throw new IllegalStateException(redact(healthUrl) + " was not ready after " + timeout + " (" + polls
            + " polls); raise the timeout or check that the server is loading");
      }
      LockSupport.parkNanos(5_000_000);
    }
  }

  private static String redact(URI uri) {
    return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() < 0 ? "" : ":" + uri.getPort()) + uri.getPath();
  }

  /**
   * The verdict from a measured time to ready (empty if not measured), the cold requests (sent
   * while the model loaded or right after a scale to zero) and warm requests.
   *
   * @throws IllegalArgumentException if either list has no successful request to measure
   */
  public ColdStartVerdict verdict(OptionalDouble timeToReadyMs, List<RequestRecord> cold, List<RequestRecord> warm) {
    Objects.requireNonNull(timeToReadyMs, "timeToReadyMs");
    double[] coldTtft = ttftMs(cold, "cold");
    double[] warmTtft = ttftMs(warm, "warm");
    double coldMax = Arrays.stream(coldTtft).max().getAsDouble();
    Arrays.sort(warmTtft);
    double warmP50 = median(warmTtft);
    double penalty = coldMax - warmP50;
    List<String> reasons = new ArrayList<>();
    int failed = (int) (cold.stream().filter(r -> !r.succeeded()).count()
        + warm.stream().filter(r -> !r.succeeded()).count());
    if (failed > 0) {
      reasons.add(failed + " request(s) failed");
    }
    if (maxTimeToReady != null && timeToReadyMs.isPresent() && timeToReadyMs.getAsDouble() > ms(maxTimeToReady)) {
      reasons.add(String.format(Locale.ROOT, "time to ready %.1f ms > %.1f ms", timeToReadyMs.getAsDouble(),
          ms(maxTimeToReady)));
    }
    if (maxColdPenalty != null && penalty > ms(maxColdPenalty)) {
      reasons.add(String.format(Locale.ROOT, "cold-start penalty %.1f ms > %.1f ms", penalty, ms(maxColdPenalty)));
    }
    return new ColdStartVerdict(reasons.isEmpty(), timeToReadyMs, coldMax, warmP50, penalty, coldTtft.length,
        warmTtft.length, reasons);
  }

  private static double[] ttftMs(List<RequestRecord> records, String which) {
    Objects.requireNonNull(records, which);
    double[] out = records.stream().filter(RequestRecord::succeeded)
        .filter(r -> r.chunks().firstTokenOffsetNanos().isPresent())
        .mapToDouble(r -> r.chunks().firstTokenOffsetNanos().getAsLong() / 1e6).toArray();
    if (out.length == 0) {
      throw new IllegalArgumentException("no successful " + which + " request with a first token to measure");
    }
    return out;
  }

  private static double median(double[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private static double ms(Duration d) {
    return d.toNanos() / 1e6;
  }

  @Override
  public String toString() {
    return "ColdStartKit[maxTimeToReady " + (maxTimeToReady == null ? "none" : maxTimeToReady) + ", maxColdPenalty "
        + (maxColdPenalty == null ? "none" : maxColdPenalty) + "]";
  }

  /** Collects a {@link ColdStartKit}'s limits. */
  public static final class Builder {
    private Duration maxTimeToReady;
    private Duration maxColdPenalty;

    private Builder() {}

    /** The longest acceptable time from a load's start to ready. */
    public Builder maxTimeToReady(Duration d) {
      this.maxTimeToReady = positive(d, "maxTimeToReady");
      return this;
    }

    /** The most a cold request's TTFT may exceed the warm median TTFT. */
    public Builder maxColdPenalty(Duration d) {
      this.maxColdPenalty = positive(d, "maxColdPenalty");
      return this;
    }

    private static Duration positive(Duration d, String name) {
      Objects.requireNonNull(d, name);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(name + " must be > 0, was " + d);
      }
      return d;
    }

    /** The kit. */
    public ColdStartKit build() {
      return new ColdStartKit(this);
    }
  }
}
