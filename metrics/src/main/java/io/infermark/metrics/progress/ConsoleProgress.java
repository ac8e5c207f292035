package io.infermark.metrics.progress;

import io.infermark.core.RunListener;
import io.infermark.core.RunResult;
import io.infermark.core.RunStart;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.health.HealthThresholds;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.time.Clock;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An opt-in progress display for long runs: register it with {@code Benchmark.listener(...)} and it
 * writes, to the {@link Appendable} you give it, how many requests are done out of how many, the
 * elapsed time, the completion rate, the live TTFT median and P99, and the errors so far:
 *
 * <pre>{@code
 * [  1200/5000  24.0%] 00:01:20 elapsed, 15.0 req/s, TTFT p50 61.9 ms p99 193 ms, 12 errors
 * }</pre>
 *
 * <p>On a terminal ({@link Builder#terminal(boolean) terminal(true)}) the line is rewritten in place
 * with a carriage return every {@code refresh} (250 ms by default); otherwise one line is printed
 * every {@code refresh} (10 s by default), which suits CI logs. A final line always follows the run.
 * Updates are driven by records arriving and timed on the run's {@link Clock}, so nothing sleeps and
 * tests drive it with a fake clock; during a stretch with no records, nothing is printed.
 *
 * <p>Counts include warmup requests (they are part of "done/total"); the TTFT percentiles are over
 * successful measured requests, from an HdrHistogram (3 significant digits). A failing
 * {@code Appendable} is logged once and then left alone; the run is never disturbed.
 *
 * <p>{@link Builder#detailed(boolean) detailed(true)} gives the {@code infermark bench} line: "done" counts the
 * requests sent and ended, errors are of sent requests, and the line adds the ETA, the requests in flight, those a
 * stop left unsent and a client-health hint from the send lag (actual minus intended send) P99, judged against the
 * default {@link HealthThresholds} (1 ms degraded, 10 ms behind); TTFTs under 1 ms show two decimals.
 * {@link Builder#width(int) width(columns)} fits a terminal line in its width: the least useful parts are dropped
 * first, so a narrow terminal keeps one row instead of leaving wrapped rows behind.
 */
public final class ConsoleProgress implements RunListener {

  private static final Logger LOG = LoggerFactory.getLogger(ConsoleProgress.class);

  private final Appendable out;
  private final boolean terminal;
  private final boolean detailed;
  private final int width;
  private final long refreshNanos;
  private final Histogram ttft = new Histogram(3);
  private final Histogram lag = new Histogram(3);
  private final AtomicLong sent = new AtomicLong();
  private final long degradedLag;
  private final long behindLag;
  private Clock clock;
  private long origin;
  private OptionalLong total = OptionalLong.empty();
  private long done;
  private long notSent;
  private long errors;
  private long lastPrint = Long.MIN_VALUE;
  private int lastLength;
  private boolean broken;

  private ConsoleProgress(Builder b) {
    this.out = b.out;
    this.terminal = b.terminal;
    this.detailed = b.detailed;
    this.width = b.width;
    this.refreshNanos = b.refresh.toNanos();
    ttft.setAutoResize(true);
    lag.setAutoResize(true);
    HealthThresholds t = HealthThresholds.defaults();
    this.degradedLag = t.degradedSendLagP99().toNanos();
    this.behindLag = t.clientBoundSendLagP99().toNanos();
  }

  /** A builder writing to the given stream or buffer ({@code System.err} is usual). */
  public static Builder builder(Appendable out) {
    return new Builder(out);
  }

  @Override
  public synchronized void onRunStarted(RunStart start) {
    clock = start.clock();
    origin = start.originNanos();
    total = start.plannedRequests();
    lastPrint = clock.nanoTime();
  }

  @Override
  public InferenceRequest beforeSend(InferenceRequest request) {
    sent.incrementAndGet();
    return request;
  }

  @Override
  public synchronized void onRecord(RequestRecord r) {
    boolean counted = !detailed || r.wasSent(); // detailed: a stop (or the run's end) left it unsent, not done
    if (counted) {
      done++;
      if (detailed) {
        lag.recordValue(Math.max(0, r.scheduleLagNanos()));
      }
    } else {
      notSent++;
    }
    if (r.failure().isPresent()) {
      errors += counted ? 1 : 0;
    } else if (r.measured()) {
      r.chunks().firstTokenOffsetNanos().ifPresent(t -> ttft.recordValue(Math.max(t, 0)));
    }
    if (clock == null) {
      return;
    }
    long now = clock.nanoTime();
    if (now - lastPrint >= refreshNanos) {
      lastPrint = now;
      print(line(now, fit()), false);
    }
  }

  @Override
  public synchronized void onRunFinished(RunResult result) {
    if (clock != null) {
      print(line(clock.nanoTime(), fit()), true);
    }
  }

  /** The current line, without a line end. */
  public synchronized String line() {
    return clock == null ? "[not started]" : line(clock.nanoTime(), Integer.MAX_VALUE);
  }

  /**
   * The line at {@code nowNanos} on the run's clock in at most {@code maxChars} characters, without a line end: the
   * parts a reader needs least go first (send lag, in flight, rate, TTFT, elapsed, ETA, errors), the counter stays;
   * a counter wider than {@code maxChars} is cut.
   *
   * @throws IllegalStateException before the run started
   */
  public synchronized String line(long nowNanos, int maxChars) {
    if (clock == null) {
      throw new IllegalStateException("the run has not started");
    }
    double elapsed = Math.max(0, nowNanos - origin) / 1e9;
    double rate = elapsed > 0 ? done / elapsed : 0;
    String[] parts = new String[9];
    StringBuilder counter = new StringBuilder("[");
    if (total.isPresent()) {
      long planned = total.getAsLong();
      int w = Long.toString(planned).length();
      counter.append(String.format(Locale.ROOT, "%" + w + "d/%d %5.1f%%", done, planned,
          planned == 0 ? 100.0 : 100.0 * done / planned));
    } else {
      counter.append(done).append(" done");
    }
    parts[0] = counter.append(']').toString();
    parts[1] = " " + clockText(elapsed) + " elapsed";
    if (detailed && total.isPresent() && done < total.getAsLong() && rate > 0 && notSent == 0) {
      parts[2] = ", ETA " + clockText((total.getAsLong() - done) / rate);
    }
    parts[3] = String.format(Locale.ROOT, ", %.1f req/s", rate);
    if (detailed) {
      parts[4] = String.format(Locale.ROOT, ", %d in flight", Math.max(0, sent.get() - done));
    }
    if (ttft.getTotalCount() > 0) {
      parts[5] = ", TTFT p50 " + ms(ttft.getValueAtPercentile(50)) + " p99 " + ms(ttft.getValueAtPercentile(99));
    }
    parts[6] = ", " + errors + (errors == 1 ? " error" : " errors");
    if (notSent > 0) {
      parts[8] = ", " + notSent + " never sent";
    }
    if (detailed && lag.getTotalCount() > 0) {
      long p99 = lag.getValueAtPercentile(99);
      parts[7] = ", client " + (p99 >= behindLag ? "behind" : p99 >= degradedLag ? "degraded" : "ok")
          + " (send lag p99 " + ms(p99) + ")";
    }
    // Dropped first to last when the line is too long; the counter (0) is never dropped.
    int[] dropOrder = {7, 4, 3, 5, 1, 2, 6, 8};
    for (int i = 0; length(parts) > maxChars && i < dropOrder.length; i++) {
      parts[dropOrder[i]] = null;
    }
    StringBuilder line = new StringBuilder();
    for (int i : new int[] {0, 1, 2, 3, 4, 5, 6, 8, 7}) {
      if (parts[i] != null) {
        line.append(parts[i]);
      }
    }
    return line.length() > maxChars ? line.substring(0, maxChars) : line.toString();
  }

  private static int length(String[] parts) {
    int n = 0;
    for (String p : parts) {
      n += p == null ? 0 : p.length();
    }
    return n;
  }

  private static String clockText(double seconds) {
    long s = (long) seconds;
    return String.format(Locale.ROOT, "%02d:%02d:%02d", s / 3600, s / 60 % 60, s % 60);
  }

  private String ms(long nanos) {
    double v = nanos / 1e6;
    return String.format(Locale.ROOT, v >= 100 ? "%.0f ms" : v >= 1 || !detailed ? "%.1f ms" : "%.2f ms", v);
  }

  /** The longest line that will not wrap: a line filling the last column wraps on some terminals. */
  private int fit() {
    return terminal && width != Integer.MAX_VALUE ? Math.max(1, width - 1) : Integer.MAX_VALUE;
  }

  private void print(String line, boolean last) {
    if (broken) {
      return;
    }
    try {
      if (terminal) {
        // Pad over the previous line's tail: the new line may be shorter.
        String padded = line.length() < lastLength ? line + " ".repeat(lastLength - line.length()) : line;
        out.append('\r').append(padded);
        if (last) {
          out.append('\n');
        }
        lastLength = line.length();
      } else {
        out.append(line).append('\n');
      }
      if (out instanceof java.io.Flushable f) {
        f.flush();
      }
    } catch (IOException e) {
      broken = true;
      LOG.warn("progress output failed, no more progress will be shown: {}", e.toString());
    }
  }

  @Override
  public String toString() {
    return "ConsoleProgress[" + (terminal ? "terminal" : "lines") + " every " + Duration.ofNanos(refreshNanos) + "]";
  }

  /** Builds a {@link ConsoleProgress}. */
  public static final class Builder {
    private final Appendable out;
    private boolean terminal;
    private boolean detailed;
    private int width = Integer.MAX_VALUE;
    private Duration refresh;

    private Builder(Appendable out) {
      this.out = Objects.requireNonNull(out, "out");
    }

    /** Rewrite one line in place (true, for a terminal) or print periodic lines (false, the default). */
    public Builder terminal(boolean terminal) {
      this.terminal = terminal;
      return this;
    }

    /**
     * The bench command's line (false by default): done and errors count sent requests, and the line adds the ETA,
     * requests in flight, those a stop left unsent and the client-health hint from the send lag.
     */
    public Builder detailed(boolean detailed) {
      this.detailed = detailed;
      return this;
    }

    /**
     * The terminal's width in columns: on a terminal a line stays shorter than it (unlimited by default).
     *
     * @throws IllegalArgumentException if below 1
     */
    public Builder width(int columns) {
      if (columns < 1) {
        throw new IllegalArgumentException("width must be >= 1 column, was " + columns);
      }
      this.width = columns;
      return this;
    }

    /**
     * How often to update; 250 ms on a terminal and 10 s otherwise by default.
     *
     * @throws IllegalArgumentException if not positive
     */
    public Builder refresh(Duration refresh) {
      Objects.requireNonNull(refresh, "refresh");
      if (refresh.isNegative() || refresh.isZero()) {
        throw new IllegalArgumentException("refresh must be positive, was " + refresh);
      }
      this.refresh = refresh;
      return this;
    }

    /** The listener. */
    public ConsoleProgress build() {
      if (refresh == null) {
        refresh = terminal ? Duration.ofMillis(250) : Duration.ofSeconds(10);
      }
      return new ConsoleProgress(this);
    }
  }
}
