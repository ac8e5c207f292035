package io.infermark.core.run;

import io.infermark.core.workload.RequestSpec;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * An open loop: walks a precomputed schedule of intended send times (only its shard's indices when
 * sharded) and sends each request at its time, whether or not earlier ones have ended. Requests the
 * walk never got to (a deadline, a stop) are recorded as not sent.
 */
final class OpenLoop implements LoadMode {

  /**
   * How long before its intended time a request is handed to its thread, which then parks and
   * spins until the time itself: starting or waking a thread takes tens of microseconds to
   * milliseconds on a busy machine, and that delay must not land between the intended time and the
   * send.
   */
  private static final long DISPATCH_LEAD_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

  private final IssuingCore core;
  private final ExecutorService executor;
  private final long[] schedule;

  OpenLoop(IssuingCore core, ExecutorService executor, long[] schedule) {
    this.core = core;
    this.executor = executor;
    this.schedule = schedule;
  }

  @Override
  public void issue() {
    long origin = core.origin;
    long hardDeadline = core.lifecycle.hardDeadline();
    int stride = core.load.shardCount();
    int i = core.load.shardIndex();
    // A blocking target's thread is started ahead of the send time unless rate limits or an in-flight
    // cap must decide at the send time itself. An asynchronous target needs no thread.
    boolean early = !core.async && !core.limitsAtSend();
    LookAhead ahead = new LookAhead(core.workload, core.params, schedule, i, stride);
    try {
      for (; i < schedule.length; i += stride) {
        long intended = origin + schedule[i];
        LookAhead.Built built = ahead.take(i, hardDeadline, core.clock);
        if (!core.waitUntil(early ? intended - DISPATCH_LEAD_NANOS : intended, hardDeadline)
            || !core.acquirePermit(hardDeadline)) {
          break;
        }
        long index = i;
        if (built.failure() != null) {
          core.releasePermit();
          if (!core.recordWorkloadFailure(index, intended, built.failure())) {
            break;
          }
          continue;
        }
        RequestSpec spec = built.spec();
        if (!core.pace(spec, hardDeadline)) {
          break;
        }
        IssuingCore.Issued request = core.issue(index, intended);
        if (request == null) {
          break;
        }
        if (core.async) {
          core.start(index, request, spec, r -> {});
        } else {
          executor.execute(() -> {
            if (early && !core.waitUntil(intended, hardDeadline)) {
              core.abandonUnsent(index, request);
              return;
            }
            core.send(index, request, spec);
          });
        }
      }
    } finally {
      ahead.close();
    }
    for (; i < schedule.length; i += stride) {
      core.recordNotSent(i, origin + schedule[i]);
    }
  }
}
