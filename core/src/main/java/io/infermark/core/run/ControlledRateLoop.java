package io.infermark.core.run;

import io.infermark.core.control.RateController;
import io.infermark.core.workload.RequestSpec;
import java.util.concurrent.ExecutorService;

/**
 * An open loop at a rate its controller decides: requests evenly spaced at the current rate, the
 * rate reset every interval from the controller's reading of the run so far.
 */
final class ControlledRateLoop implements LoadMode {

  private final IssuingCore core;
  private final ExecutorService executor;

  ControlledRateLoop(IssuingCore core, ExecutorService executor) {
    this.core = core;
    this.executor = executor;
  }

  @Override
  public void issue() {
    RateController controller = core.load.controller().orElseThrow();
    RateController.Loop control = core.control();
    long origin = core.origin;
    long hardDeadline = core.lifecycle.hardDeadline();
    long interval = controller.interval().toNanos();
    long stopAt = Math.min(core.lifecycle.issueDeadline(), hardDeadline);
    double rate = controller.initialRate();
    long nextUpdate = origin + interval;
    long last = Long.MIN_VALUE;
    long total = core.load.totalRequests();
    for (long index = 0; index < total; index++) {
      long due = due(last, rate);
      while (nextUpdate <= due && nextUpdate < stopAt) {
        if (!core.waitUntil(nextUpdate, hardDeadline)) {
          return;
        }
        rate = control.update(core.clock.nanoTime() - origin);
        nextUpdate += interval;
        due = due(last, rate);
      }
      if (due >= stopAt || !core.waitUntil(due, hardDeadline) || !core.acquirePermit(hardDeadline)) {
        return;
      }
      long i = index;
      RequestSpec spec;
      try {
        spec = IssuingCore.requireSpec(core.workload.request(i, due - origin, core.params), i);
      } catch (Throwable t) {
        core.releasePermit();
        if (!core.recordWorkloadFailure(i, due, t)) {
          return;
        }
        last = due;
        continue;
      }
      if (!core.pace(spec, hardDeadline)) {
        return;
      }
      IssuingCore.Issued request = core.issue(i, due);
      if (request == null) {
        return;
      }
      if (core.async) {
        core.start(i, request, spec, r -> {});
      } else {
        executor.execute(() -> core.send(i, request, spec));
      }
      last = due;
    }
  }

  /** The next send time after one at {@code last} at {@code rate}: the origin first, never for rate 0. */
  private long due(long last, double rate) {
    if (last == Long.MIN_VALUE) {
      return core.origin;
    }
    return rate > 0 ? last + Math.round(1e9 / rate) : Long.MAX_VALUE;
  }
}
