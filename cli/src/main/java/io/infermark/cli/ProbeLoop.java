package io.infermark.cli;

import io.infermark.core.Benchmark;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * vLLM's {@code --probe-request-rate}: beside the run, one text-only request ("Hi", one output token) after another,
 * {@code 1 / rate} seconds apart, outside {@code --max-concurrency}, so their latency shows how the main load stalls
 * an unrelated request. Reported as vLLM reports them: {@code probe_completed}, {@code probe_failed} and the
 * median, P99 and maximum end-to-end latency (ms) of the successful ones.
 */
final class ProbeLoop implements AutoCloseable {

  private final Thread thread;
  private final CountDownLatch stop = new CountDownLatch(1);
  private final List<RequestRecord> records = new ArrayList<>();

  /** Starts probing {@code target} at {@code rate} requests per second. */
  ProbeLoop(Target target, GenerationParams base, double rate) {
    long intervalNanos = (long) (1e9 / rate);
    Benchmark probe = Benchmark.target(target).preflight(false).prompts(Prompt.user("Hi"))
        .params(base.toBuilder().maxTokens(1).build()).load(LoadProfile.concurrency(1).requests(1));
    thread = new Thread(() -> {
      try {
        while (stop.getCount() > 0) {
          RequestRecord r = probe.run().records().get(0);
          synchronized (records) {
            records.add(r);
          }
          if (stop.await(intervalNanos, TimeUnit.NANOSECONDS)) {
            return;
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "infermark-probe");
    thread.setDaemon(true);
    thread.start();
  }

  /** Stops probing after the probe in flight and returns vLLM's probe keys (empty when no probe succeeded). */
  Map<String, Object> finish() {
    close();
    List<RequestRecord> done;
    synchronized (records) {
      done = List.copyOf(records);
    }
    return stats(done);
  }

  /** vLLM's probe statistics over some probe records. */
  static Map<String, Object> stats(List<RequestRecord> done) {
    double[] lat = done.stream().filter(RequestRecord::succeeded).mapToDouble(r -> r.endOffsetNanos() / 1e6).sorted()
        .toArray();
    Map<String, Object> m = new LinkedHashMap<>();
    if (lat.length == 0) {
      return m; // vLLM writes the probe keys only when a probe succeeded
    }
    m.put("probe_completed", (long) lat.length);
    m.put("probe_failed", (long) (done.size() - lat.length));
    m.put("probe_median_e2el_ms", percentile(lat, 50));
    m.put("probe_p99_e2el_ms", percentile(lat, 99));
    m.put("probe_max_e2el_ms", Arrays.stream(lat).max().getAsDouble());
    return m;
  }

  /** numpy's linear percentile of sorted values. */
  static double percentile(double[] sorted, double p) {
    double h = (sorted.length - 1) * p / 100;
    int lo = (int) Math.floor(h);
    int hi = Math.min(lo + 1, sorted.length - 1);
    return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
  }

  @Override
  public void close() {
    stop.countDown();
    try {
      thread.join(TimeUnit.SECONDS.toMillis(60));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
