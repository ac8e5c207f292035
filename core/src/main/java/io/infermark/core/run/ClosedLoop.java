package io.infermark.core.run;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.workload.RequestSpec;
import io.infermark.core.workload.StreamSource;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A closed loop on a blocking target: one thread per stream, each asking its {@link StreamSource}
 * for the next request, sending it, waiting for it to end, then for its think time (and, while the
 * target cannot be reached, its {@link ConnectBackoff}), and again. Under a user ramp a stream sends
 * only while its user is active ({@link UserActivity}). A request is intended at the moment its
 * stream was due to send it.
 */
final class ClosedLoop implements LoadMode {

  private final IssuingCore core;
  private final ExecutorService executor;
  private final UserActivity activity;

  ClosedLoop(IssuingCore core, ExecutorService executor) {
    this.core = core;
    this.executor = executor;
    this.activity = UserActivity.of(core.load, core.origin);
  }

  @Override
  public void issue() {
    long total = core.load.totalRequests();
    AtomicLong next = new AtomicLong();
    int streams = core.load.concurrency();
    CountDownLatch ended = new CountDownLatch(streams);
    for (int s = 0; s < streams; s++) {
      int stream = s;
      executor.execute(() -> {
        try {
          runStream(stream, core.workload.stream(stream), next, total);
        } finally {
          ended.countDown();
        }
      });
    }
    core.await(ended, core.lifecycle.hardDeadline());
  }

  /** One stream: next request, send, wait for it to end, think (or back off), repeat. */
  private void runStream(int stream, StreamSource source, AtomicLong next, long total) {
    long issueDeadline = core.lifecycle.issueDeadline();
    long hardDeadline = core.lifecycle.hardDeadline();
    ConnectBackoff backoff = new ConnectBackoff();
    long due = activity.firstDue(core.clock.nanoTime());
    while (true) {
      long at = activity.activeAt(stream, due);
      if (at == Long.MAX_VALUE || at >= issueDeadline || !core.waitUntil(at, issueDeadline)) {
        return;
      }
      long index = next.getAndIncrement();
      long now = core.clock.nanoTime();
      if (index >= total || now >= issueDeadline) {
        return;
      }
      RequestSpec spec;
      try {
        spec = IssuingCore.requireSpec(source.next(index, now - core.origin, core.params), index);
      } catch (Throwable t) {
        if (!core.recordWorkloadFailure(index, at, t)) {
          return;
        }
        due = core.clock.nanoTime();
        continue;
      }
      if (!core.acquirePermit(hardDeadline) || !core.pace(spec, issueDeadline)) {
        return;
      }
      IssuingCore.Issued request = core.issue(index, at);
      if (request == null) {
        return;
      }
      Optional<RequestRecord> record = core.send(index, request, spec);
      record.ifPresent(source::completed);
      long wait = Math.max(core.thinkNanos(index), record.map(backoff::after).orElse(0L));
      due = core.clock.nanoTime() + wait;
    }
  }
}
