package io.infermark.metrics.progress;

import io.infermark.core.RunListener;
import io.infermark.core.RunResult;
import io.infermark.core.RunStart;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.time.Clock;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;
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
 */
public final class ConsoleProgress implements RunListener {

  private static final Logger LOG = LoggerFactory.getLogger(ConsoleProgress.class);

  private final Appendable out;
  private final boolean terminal;
  private final long refreshNanos;
  private final Histogram ttft = new Histogram(3);
  private Clock clock;
  private long origin;
  private OptionalLong total = OptionalLong.empty();
  private long done;
  private long errors;
  private long lastPrint = Long.MIN_VALUE;
  private int lastLength;
  private boolean broken;

  private ConsoleProgress(Builder b) {
    this.out = b.out;
    this.terminal = b.terminal;
    this.refreshNanos = b.refresh.toNanos();
    ttft.setAutoResize(true);
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
  public synchronized void onRecord(RequestRecord r) {
    done++;
    if (r.failure().isPresent()) {
      errors++;
    } else if (r.measured()) {
      r.chunks().firstTokenOffsetNanos().ifPresent(t -> ttft.recordValue(Math.max(t, 0)));
    }
    if (clock == null) {
      return;
    }
    long now = clock.nanoTime();
    if (now - lastPrint >= refreshNanos) {
      lastPrint = now;
      print(line(now), false);
    }
  }

  @Override
  public synchronized void onRunFinished(RunResult result) {
    if (clock != null) {
      print(line(clock.nanoTime()), true);
    }
  }

  /** The current line, without a line end. */
  public synchronized String line() {
    return clock == null ? "[not started]" : line(clock.nanoTime());
  }

  private String line(long now) {
    double elapsed = Math.max(0, now - origin) / 1e9;
    StringBuilder s = new StringBuilder("[");
    if (total.isPresent()) {
      int width = Long.toString(total.getAsLong()).length();
      s.append(String.format(Locale.ROOT, "%" + width + "d/%d %5.1f%%", done, total.getAsLong(),
          total.getAsLong() == 0 ? 100.0 : 100.0 * done / total.getAsLong()));
    } else {
      s.append(done).append(" done");
    }
    long seconds = (long) elapsed;
    s.append(String.format(Locale.ROOT, "] %02d:%02d:%02d elapsed", seconds / 3600, seconds / 60 % 60, seconds % 60));
    s.append(String.format(Locale.ROOT, ", %.1f req/s", elapsed > 0 ? done / elapsed : 0.0));
    if (ttft.getTotalCount() > 0) {
      s.append(", TTFT p50 ").append(ms(ttft.getValueAtPercentile(50))).append(" p99 ")
          .append(ms(ttft.getValueAtPercentile(99)));
    }
    s.append(", ").append(errors).append(errors == 1 ? " error" : " errors");
    return s.toString();
  }

  private static String ms(long nanos) {
    double v = nanos / 1e6;
    return String.format(Locale.ROOT, v >= 100 ? "%.0f ms" : "%.1f ms", v);
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
