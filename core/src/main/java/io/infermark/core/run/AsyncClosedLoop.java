package io.infermark.core.run;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.workload.RequestSpec;
import io.infermark.core.workload.StreamSource;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A closed loop on an asynchronous target: no thread per stream. Each stream's next request is
 * built and started on the single sender thread; when it ends (on the target's I/O thread) the
 * stream's continuation goes back to the sender, after its think time (or its
 * {@link ConnectBackoff} while the target cannot be reached). Under a user ramp a stream sends only
 * while its user is active ({@link UserActivity}).
 */
final class AsyncClosedLoop implements LoadMode {

  private static final Logger LOG = LoggerFactory.getLogger(AsyncClosedLoop.class);

  private final IssuingCore core;
  private final ScheduledExecutorService sender;
  private final UserActivity activity;

  AsyncClosedLoop(IssuingCore core, ScheduledExecutorService sender) {
    this.core = core;
    this.sender = sender;
    this.activity = UserActivity.of(core.load, core.origin);
  }

  @Override
  public void issue() {
    long total = core.load.totalRequests();
    AtomicLong next = new AtomicLong();
    int streams = core.load.concurrency();
    CountDownLatch ended = new CountDownLatch(streams);
    for (int s = 0; s < streams; s++) {
      Stream stream = new Stream(s, next, total, ended);
      sender.execute(stream::step);
    }
    core.await(ended, core.lifecycle.hardDeadline());
  }

  /** One stream; its steps run on the sender thread, one at a time. */
  private final class Stream {
    private final int stream;
    private final AtomicLong next;
    private final long total;
    private final CountDownLatch ended;
    private final long issueDeadline = core.lifecycle.issueDeadline();
    private final ConnectBackoff backoff = new ConnectBackoff();
    private StreamSource source;
    private long due = activity.firstDue(Long.MIN_VALUE);
    private boolean finished;

    Stream(int stream, AtomicLong next, long total, CountDownLatch ended) {
      this.stream = stream;
      this.next = next;
      this.total = total;
      this.ended = ended;
    }

    void step() {
      try {
        if (source == null) {
          source = core.workload.stream(stream);
        }
        if (core.lifecycle.stopRequested()) {
          finish();
          return;
        }
        long now = core.clock.nanoTime();
        long at = activity.activeAt(stream, due == Long.MIN_VALUE ? now : due);
        if (at == Long.MAX_VALUE || at >= issueDeadline) {
          finish(); // this stream's user is not active again before the run stops issuing
          return;
        }
        if (at > now) {
          sender.schedule(this::step, at - now, TimeUnit.NANOSECONDS);
          return;
        }
        due = Long.MIN_VALUE;
        long index = next.getAndIncrement();
        if (index >= total || now >= issueDeadline) {
          finish();
          return;
        }
        RequestSpec spec;
        try {
          spec = IssuingCore.requireSpec(source.next(index, now - core.origin, core.params), index);
        } catch (Throwable t) {
          if (!core.recordWorkloadFailure(index, at, t)) {
            finish();
            return;
          }
          sender.execute(this::step);
          return;
        }
        IssuingCore.Issued request = core.issue(index, at);
        if (request == null) {
          finish();
          return;
        }
        StreamSource s = source;
        core.start(index, request, spec, record -> continueAfter(index, record, s));
      } catch (RejectedExecutionException e) {
        finish(); // the run is over
      } catch (Throwable t) {
        LOG.error("closed-loop stream {} stopped: {}", stream, t.toString());
        finish();
      }
    }

    private void continueAfter(long index, RequestRecord record, StreamSource s) {
      try {
        sender.execute(() -> {
          try {
            s.completed(record);
          } catch (RuntimeException e) {
            LOG.warn("stream source of stream {} threw on completion: {}", stream, e.toString());
          }
          long wait = Math.max(core.thinkNanos(index), backoff.after(record));
          due = core.clock.nanoTime() + wait;
          step();
        });
      } catch (RejectedExecutionException e) {
        finish(); // the run is over
      }
    }

    private void finish() {
      if (!finished) {
        finished = true;
        ended.countDown();
      }
    }
  }
}
