package io.infermark.perturbation.scenario;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The outcome of a {@link KvPressureKit} grid: each cell's numbers and quadrant, where preemption
 * began, and the overall verdict.
 *
 * @param pass true when no cell is {@link Quadrant#SCALE_OUT} and none preempted
 * @param preemptionOnset the first cell (in context, then concurrency order) whose server counted a
 *     preemption, if any
 * @param cells every cell, in context then concurrency order
 */
public record KvPressureVerdict(boolean pass, Optional<Cell> preemptionOnset, List<Cell> cells) {

  /** Where a cell falls against the two thresholds: KV memory and latency. */
  public enum Quadrant {
    /** KV usage and latency both under their thresholds. */
    OK,
    /** KV usage at or over its threshold while latency holds: preemption is near; add memory before it starts. */
    MEMORY_BOUND,
    /** Latency over its threshold with KV memory to spare: compute-bound; more KV will not help. */
    LATENCY_BOUND,
    /** Both over: KV memory is full and latency suffers; scale out (more replicas). */
    SCALE_OUT
  }

  /**
   * One context length x concurrency.
   *
   * @param contextTokens the prompt length asked for, tokens
   * @param concurrency concurrent streams
   * @param requests successful measured requests
   * @param failed failed measured requests
   * @param ttftP99Ms P99 TTFT of the successful requests, ms (linear interpolation)
   * @param e2eP95Ms P95 end to end of the successful requests, ms: seed 003 §2.4's "P95推理延迟" (P95 inference
   *     latency), whose threshold it sets at 120 ms
   * @param peakKvUsage the highest {@code vllm:kv_cache_usage_perc} the server reported, 0 to 1
   * @param preemptions the server's {@code vllm:num_preemptions_total} increase during the cell
   * @param peakFragmentation the highest KV fragmentation the server reported, 0 to 1 (NaN if not reported)
   * @param quadrant where it falls
   */
  public record Cell(int contextTokens, int concurrency, int requests, int failed, double ttftP99Ms,
      double e2eP95Ms, double peakKvUsage, double preemptions, double peakFragmentation, Quadrant quadrant) {

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "%d tokens x %d streams: kv %.1f%%, %.0f preemptions, ttft p99 %.1f ms, "
          + "e2e p95 %.1f ms, %s", contextTokens, concurrency, 100 * peakKvUsage, preemptions, ttftP99Ms, e2eP95Ms,
          quadrant);
    }
  }

  /** Copies. */
  public KvPressureVerdict {
    cells = List.copyOf(cells);
  }

  /** A text table of the cells. */
  public String table() {
    StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "%8s %6s %8s %6s %8s %8s %11s %10s %s%n",
        "context", "conc", "requests", "failed", "kv peak", "frag", "preemptions", "ttft p99", "quadrant"));
    for (Cell c : cells) {
      s.append(String.format(Locale.ROOT, "%8d %6d %8d %6d %7.1f%% %7s %11.0f %10.2f %s%n", c.contextTokens(),
          c.concurrency(), c.requests(), c.failed(), 100 * c.peakKvUsage(),
          Double.isNaN(c.peakFragmentation()) ? "-"
              : String.format(Locale.ROOT, "%.1f%%", 100 * c.peakFragmentation()),
          c.preemptions(), c.ttftP99Ms(), c.quadrant()));
    }
    return s.toString();
  }

  @Override
  public String toString() {
    return "KvPressureVerdict[" + (pass ? "PASS" : "FAIL") + ", " + cells.size() + " cells"
        + preemptionOnset.map(c -> ", preemption from " + c.contextTokens() + " tokens x " + c.concurrency()
            + " streams").orElse(", no preemption") + "]";
  }
}
