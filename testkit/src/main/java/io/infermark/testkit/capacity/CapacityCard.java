package io.infermark.testkit.capacity;

import io.infermark.core.sweep.CeilingResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.function.Consumer;

/**
 * What one infermark client process can drive on this machine before its own error bound (its health floor)
 * passes a limit, 1 ms by default: streamed tokens per second (one and several per chunk), non-streamed requests
 * per second and concurrent streams (with the heap each holds), over HTTP/1.1, h2c and gRPC, each found by a
 * {@link io.infermark.core.sweep.CeilingSearch} of short steps against the simulator in the same process.
 *
 * <p>The simulator shares the process and the cores, so the card is what a client can drive on this machine with
 * a server beside it that costs about what the simulator costs (a few µs per token): against a remote server the
 * client has the cores to itself and reaches further. The load average before and after is part of the card:
 * other processes' CPU lowers every figure. Size a run from it: a run above a ceiling still runs, but its client's
 * error bound is above the limit. Immutable.
 *
 * @param cores the processors the JVM sees
 * @param loadBefore the 1, 5 and 15-minute load averages before the card, e.g. {@code "0.52 0.80 1.10"}
 * @param loadAfter the same after it
 * @param java the Java version
 * @param collectors the garbage collectors in use (their pauses are part of the error bound)
 * @param settings how it was measured
 * @param elapsed how long it took
 * @param rows one row per wire and figure
 */
public record CapacityCard(int cores, String loadBefore, String loadAfter, String java, String collectors,
    CardSettings settings, Duration elapsed, List<CardRow> rows) {

  /** Validates and copies. */
  public CapacityCard {
    Objects.requireNonNull(loadBefore, "loadBefore");
    Objects.requireNonNull(loadAfter, "loadAfter");
    Objects.requireNonNull(java, "java");
    Objects.requireNonNull(collectors, "collectors");
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(elapsed, "elapsed");
    rows = List.copyOf(rows);
  }

  /**
   * Measures the card on this machine; takes about {@link CardSettings#budget()}.
   *
   * @param settings what to measure, e.g. {@link CardSettings#quick()}
   * @return the card
   */
  public static CapacityCard measure(CardSettings settings) {
    return measure(settings, line -> { });
  }

  /**
   * Measures the card, telling {@code progress} one line per step as it goes (e.g. {@code "HTTP/1.1 streamed
   * tokens/s, 1 per chunk: 25600 pass (error bound 0.41 ms ...)"}).
   *
   * @param settings what to measure
   * @param progress receives a line per step, on the calling thread
   * @return the card
   */
  public static CapacityCard measure(CardSettings settings, Consumer<String> progress) {
    return new CardRunner(settings, progress).run();
  }

  /** The row of one wire and figure, if the card measured it. */
  public java.util.Optional<CardRow> row(CardProtocol protocol, CardFigure figure) {
    return rows.stream().filter(r -> r.protocol() == protocol && r.figure() == figure).findFirst();
  }

  /** The card as a text table with a header line naming the machine, its load and the limit. */
  public String toTable() {
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "infermark capacity card: %d cores, load average %s before, %s after; "
            + "Java %s, GC %s%n", cores, loadBefore, loadAfter, java, collectors));
    out.append(String.format(Locale.ROOT, "ceiling = the highest level whose client error bound (health floor) "
            + "stayed <= %.2f ms at p99, with no failure and >= 90 %% of the offered rate; steps of %d ms, %s, "
            + "%.0f s%n", settings.errorBoundLimit().toNanos() / 1e6, settings.step().toMillis(),
        settings.protocols().size() == 1 ? settings.protocols().iterator().next().label() + " only"
            : settings.protocols().size() + " wires", elapsed.toMillis() / 1e3));
    String[] header = {"protocol", "figure", "ceiling", "first failure", "per client core", "error bound",
        "heap/stream", "search"};
    List<String[]> lines = new ArrayList<>();
    lines.add(header);
    for (CardRow r : rows) {
      String figure = figureName(r.figure());
      CeilingResult s = r.search();
      lines.add(new String[] {r.protocol().label(), figure,
          level(s.ceiling(), s.outcome() == CeilingResult.Outcome.AT_MAX), level(s.firstFailure(), false),
          level(r.perClientCore(), false),
          r.errorBoundMillis().isPresent()
              ? String.format(Locale.ROOT, "%.2f ms %s", r.errorBoundMillis().getAsDouble(), r.boundBy()) : "-",
          r.heapBytesPerStream().isPresent() ? String.format(Locale.ROOT, "%.1f KiB",
              r.heapBytesPerStream().getAsDouble() / 1024) : "-",
          outcome(s)});
    }
    int[] width = new int[header.length];
    for (String[] l : lines) {
      for (int i = 0; i < l.length; i++) {
        width[i] = Math.max(width[i], l[i].length());
      }
    }
    for (String[] l : lines) {
      StringBuilder row = new StringBuilder();
      for (int i = 0; i < l.length; i++) {
        if (i > 0) {
          row.append(" | ");
        }
        row.append(i >= 2 && i <= 4 ? pad(l[i], width[i], true) : pad(l[i], width[i], false));
      }
      out.append(row.toString().stripTrailing()).append(System.lineSeparator());
    }
    if (!rows.isEmpty() && rows.stream().allMatch(r -> r.search().ceiling().isEmpty())) {
      out.append(String.format(Locale.ROOT, "No level passed: every level tried put the client's error "
          + "bound above %.2f ms (see below), so on this machine, at this load (%s), the client's own delays exceed "
          + "the limit whatever it drives. Measure on a quieter machine, or with a larger limit (--error-bound).%n",
          settings.errorBoundLimit().toNanos() / 1e6, loadBefore));
    }
    for (CardRow r : rows) {
      if (!r.limitedBy().isEmpty()) {
        out.append(String.format(Locale.ROOT, "%s %s: first failure at %s%n", r.protocol().label(),
            figureName(r.figure()), r.limitedBy()));
      }
    }
    return out.toString();
  }

  private String figureName(CardFigure f) {
    return switch (f) {
      case BATCHED_TOKENS -> "streamed tokens/s, " + settings.tokensPerChunk() + " per chunk";
      case STREAMS -> "concurrent streams (" + settings.streamGap().toMillis() + " ms gaps)";
      default -> f.label();
    };
  }

  private static String level(OptionalDouble v, boolean atLeast) {
    if (v.isEmpty()) {
      return "-";
    }
    return (atLeast ? ">= " : "") + String.format(Locale.ROOT, "%,.0f", v.getAsDouble());
  }

  private static String outcome(CeilingResult s) {
    String what = switch (s.outcome()) {
      case FOUND -> s.relativeWidth().isPresent()
          ? String.format(Locale.ROOT, "found (+%.0f %%)", 100 * s.relativeWidth().getAsDouble()) : "found";
      case AT_MAX -> "the maximum passed";
      case BELOW_MIN -> "the lowest level failed";
      case BUDGET_SPENT -> "budget spent (a lower bound)";
    };
    return what + ", " + s.steps().size() + (s.steps().size() == 1 ? " step" : " steps");
  }

  private static String pad(String s, int width, boolean right) {
    String fill = " ".repeat(Math.max(0, width - s.length()));
    return right ? fill + s : s + fill;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "CapacityCard[%d cores, load %s, %d rows, %s]", cores, loadBefore, rows.size(),
        elapsed);
  }
}
