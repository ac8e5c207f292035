package io.infermark.cli;

import io.infermark.core.RunListener;
import io.infermark.core.RunResult;
import io.infermark.core.RunStart;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.health.HealthThresholds;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.time.Clock;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * The bench command's progress: requests done (sent and ended) of planned, completion rate, requests in flight, TTFT
 * P50/P99 so far, ETA, errors (of sent requests), those a stop left unsent, and a live client-health hint from the
 * send lag. On a terminal the line is
 * rewritten in place ({@code \r}) every 250 ms; otherwise a plain log line is printed every 10 s.
 * Updates are driven by records arriving and timed on the run's clock; a final line follows the run.
 * On a terminal the line fits its width ({@link TerminalWidth}): the least useful parts are dropped
 * first, so a narrow terminal keeps one row instead of leaving wrapped rows behind.
 *
 * <p>The client hint judges the send lag (actual minus intended send) P99 against the default health
 * thresholds (1 ms degraded, 10 ms behind); the run's full verdict (hiccups, CPU, GC) is printed with
 * the summary.
 */
final class LiveProgress implements RunListener {

  private final PrintWriter out;
  private final boolean terminal;
  private final long refreshNanos;
  private final Histogram ttft = new Histogram(3);
  private final Histogram lag = new Histogram(3);
  private final AtomicLong sent = new AtomicLong();
  private final long degradedLag;
  private final long behindLag;
  private final int width;
  private Clock clock;
  private long origin;
  private OptionalLong planned = OptionalLong.empty();
  private long doneSent;
  private long notSent;
  private long errors;
  private long lastPrint;
  private int lastLength;

  LiveProgress(PrintWriter out, boolean terminal, Duration refresh) {
    this(out, terminal, refresh, terminal ? TerminalWidth.detect() : Integer.MAX_VALUE);
  }

  /** With the terminal's width in columns (lines longer than it are shortened on a terminal). */
  LiveProgress(PrintWriter out, boolean terminal, Duration refresh, int width) {
    if (width < 1) {
      throw new IllegalArgumentException("width must be >= 1 column, was " + width);
    }
    this.width = width;
    this.out = out;
    this.terminal = terminal;
    this.refreshNanos = refresh.toNanos();
    ttft.setAutoResize(true);
    lag.setAutoResize(true);
    HealthThresholds t = HealthThresholds.defaults();
    this.degradedLag = t.degradedSendLagP99().toNanos();
    this.behindLag = t.clientBoundSendLagP99().toNanos();
  }

  @Override
  public synchronized void onRunStarted(RunStart start) {
    clock = start.clock();
    origin = start.originNanos();
    planned = start.plannedRequests();
    lastPrint = clock.nanoTime();
  }

  @Override
  public InferenceRequest beforeSend(InferenceRequest request) {
    sent.incrementAndGet();
    return request;
  }

  @Override
  public synchronized void onRecord(RequestRecord r) {
    if (r.wasSent()) {
      doneSent++;
      lag.recordValue(Math.max(0, r.scheduleLagNanos()));
    } else {
      notSent++; // a stop (or the run's end) left it unsent: not done, not an error
    }
    if (r.failure().isPresent()) {
      errors += r.wasSent() ? 1 : 0;
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

  /** The current line, as long as it needs to be. */
  synchronized String line(long now) {
    return line(now, Integer.MAX_VALUE);
  }

  /**
   * The current line in at most {@code max} characters: the parts a reader needs least go first (send lag,
   * in flight, rate, TTFT, elapsed, ETA, errors), the counter stays; a counter wider than {@code max} is cut.
   */
  synchronized String line(long now, int max) {
    double elapsed = Math.max(0, now - origin) / 1e9;
    long done = doneSent;
    double rate = elapsed > 0 ? done / elapsed : 0;
    String[] parts = new String[9];
    StringBuilder counter = new StringBuilder("[");
    if (planned.isPresent()) {
      long total = planned.getAsLong();
      int w = Long.toString(total).length();
      counter.append(String.format(Locale.ROOT, "%" + w + "d/%d %5.1f%%", done, total,
          total == 0 ? 100.0 : 100.0 * done / total));
    } else {
      counter.append(done).append(" done");
    }
    parts[0] = counter.append(']').toString();
    parts[1] = " " + clockText(elapsed) + " elapsed";
    if (planned.isPresent() && done < planned.getAsLong() && rate > 0 && notSent == 0) {
      parts[2] = ", ETA " + clockText((planned.getAsLong() - done) / rate);
    }
    parts[3] = String.format(Locale.ROOT, ", %.1f req/s", rate);
    parts[4] = String.format(Locale.ROOT, ", %d in flight", Math.max(0, sent.get() - doneSent));
    if (ttft.getTotalCount() > 0) {
      parts[5] = ", TTFT p50 " + ms(ttft.getValueAtPercentile(50)) + " p99 " + ms(ttft.getValueAtPercentile(99));
    }
    parts[6] = ", " + errors + (errors == 1 ? " error" : " errors");
    if (notSent > 0) {
      parts[8] = ", " + notSent + " never sent";
    }
    if (lag.getTotalCount() > 0) {
      long p99 = lag.getValueAtPercentile(99);
      parts[7] = ", client " + (p99 >= behindLag ? "behind" : p99 >= degradedLag ? "degraded" : "ok")
          + " (send lag p99 " + ms(p99) + ")";
    }
    // Dropped first to last when the line is too long; the counter (0) is never dropped.
    int[] dropOrder = {7, 4, 3, 5, 1, 2, 6, 8};
    for (int i = 0; length(parts) > max && i < dropOrder.length; i++) {
      parts[dropOrder[i]] = null;
    }
    StringBuilder line = new StringBuilder();
    for (int i : new int[] {0, 1, 2, 3, 4, 5, 6, 8, 7}) {
      if (parts[i] != null) {
        line.append(parts[i]);
      }
    }
    return line.length() > max ? line.substring(0, max) : line.toString();
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

  private static String ms(long nanos) {
    double v = nanos / 1e6;
    return String.format(Locale.ROOT, v >= 100 ? "%.0f ms" : v >= 1 ? "%.1f ms" : "%.2f ms", v);
  }

  /** The longest line that will not wrap: a line filling the last column wraps on some terminals. */
  private int fit() {
    return terminal ? Math.max(1, width - 1) : Integer.MAX_VALUE;
  }

  private void print(String line, boolean last) {
    if (terminal) {
      String padded = line.length() < lastLength ? line + " ".repeat(lastLength - line.length()) : line;
      out.print('\r');
      out.print(padded);
      if (last) {
        out.println();
      }
      lastLength = line.length();
    } else {
      out.println(line);
    }
    out.flush();
  }

  @Override
  public String toString() {
    return "LiveProgress[" + (terminal ? "terminal" : "lines") + "]";
  }
}
