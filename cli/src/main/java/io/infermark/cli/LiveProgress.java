package io.infermark.cli;

import io.infermark.core.RunListener;
import io.infermark.core.RunResult;
import io.infermark.core.RunStart;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.request.InferenceRequest;
import io.infermark.metrics.progress.ConsoleProgress;
import java.io.PrintWriter;
import java.time.Duration;

/**
 * The bench command's progress: metrics' {@link ConsoleProgress} in its detailed form (requests done (sent and ended)
 * of planned, completion rate, requests in flight, TTFT P50/P99 so far, ETA, errors of sent requests, those a stop
 * left unsent, and a live client-health hint from the send lag). On a terminal the line is rewritten in place
 * ({@code \r}) every 250 ms and fits the terminal's width ({@link TerminalWidth}); otherwise a plain log line is
 * printed every 10 s. The run's full health verdict (hiccups, CPU, GC) is printed with the summary.
 */
final class LiveProgress implements RunListener {

  private final ConsoleProgress progress;
  private final boolean terminal;

  LiveProgress(PrintWriter out, boolean terminal, Duration refresh) {
    this(out, terminal, refresh, terminal ? TerminalWidth.detect() : Integer.MAX_VALUE);
  }

  /**
   * With the terminal's width in columns (lines longer than it are shortened on a terminal); a zero
   * {@code refresh} updates on every record whose time has moved on.
   */
  LiveProgress(PrintWriter out, boolean terminal, Duration refresh, int width) {
    this.terminal = terminal;
    this.progress = ConsoleProgress.builder(out).terminal(terminal).detailed(true).width(width)
        .refresh(refresh.isZero() ? Duration.ofNanos(1) : refresh).build();
  }

  @Override
  public void onRunStarted(RunStart start) {
    progress.onRunStarted(start);
  }

  @Override
  public InferenceRequest beforeSend(InferenceRequest request) {
    return progress.beforeSend(request);
  }

  @Override
  public void onRecord(RequestRecord r) {
    progress.onRecord(r);
  }

  @Override
  public void onRunFinished(RunResult result) {
    progress.onRunFinished(result);
  }

  /** The line at {@code now} on the run's clock, as long as it needs to be. */
  String line(long now) {
    return progress.line(now, Integer.MAX_VALUE);
  }

  /** The line at {@code now} in at most {@code max} characters (see {@link ConsoleProgress#line(long, int)}). */
  String line(long now, int max) {
    return progress.line(now, max);
  }

  @Override
  public String toString() {
    return "LiveProgress[" + (terminal ? "terminal" : "lines") + "]";
  }
}
