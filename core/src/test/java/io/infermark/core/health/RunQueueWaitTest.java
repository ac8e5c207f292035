package io.infermark.core.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunQueueWaitTest {

  private static final long MS = 1_000_000;

  private static void task(Path dir, String tid, String comm, String schedstat) throws IOException {
    Path t = Files.createDirectories(dir.resolve(tid));
    Files.writeString(t.resolve("comm"), comm + "\n");
    Files.writeString(t.resolve("schedstat"), schedstat + "\n");
  }

  @Test
  void countsTheClientsOwnThreadsBetweenTwoReadingsAndNothingElse(@TempDir Path dir) throws IOException {
    task(dir, "101", "infermark-io-1", "1000000000 200000000 50");
    task(dir, "102", "infermark-sim-clock", "5000000000 9000000000 70");
    task(dir, "103", "C2 CompilerThre", "3000000000 3000000000 10");
    task(dir, "104", "infermark-hiccup", "not numbers");
    RunQueueWait.Snapshot start = RunQueueWait.Snapshot.read(dir);

    task(dir, "101", "infermark-io-1", "1300000000 260000000 80");
    task(dir, "102", "infermark-sim-clock", "9000000000 19000000000 90");
    task(dir, "103", "C2 CompilerThre", "6000000000 9000000000 20");
    task(dir, "105", "infermark-sender", "40000000 100000000 7"); // started during the span: counted from zero
    RunQueueWait w = RunQueueWait.between(start, RunQueueWait.Snapshot.read(dir));

    assertThat(w.threads()).isEqualTo(2);
    assertThat(w.runNanos()).isEqualTo(300 * MS + 40 * MS);
    assertThat(w.waitNanos()).isEqualTo(60 * MS + 100 * MS);
    assertThat(w.waitPerRun().getAsDouble()).isEqualTo(160.0 / 340.0);
    assertThat(w.isJudged()).isTrue();
    assertThat(w).hasToString("RunQueueWait[2 threads ran 340.0 ms, waited 160.0 ms for a core]");
  }

  @Test
  void aThreadIdReusedByAnotherThreadCountsAsANewThread(@TempDir Path dir) throws IOException {
    task(dir, "101", "infermark-io-1", "1000000000 200000000 50");
    RunQueueWait.Snapshot start = RunQueueWait.Snapshot.read(dir);
    task(dir, "101", "infermark-loop-1", "60000000 5000000 3");

    RunQueueWait w = RunQueueWait.between(start, RunQueueWait.Snapshot.read(dir));

    assertThat(w.runNanos()).isEqualTo(60 * MS);
    assertThat(w.waitNanos()).isEqualTo(5 * MS);
  }

  @Test
  void withoutATaskDirectoryNothingIsMeasured(@TempDir Path dir) {
    RunQueueWait.Snapshot none = RunQueueWait.Snapshot.read(dir.resolve("absent"));

    assertThat(none.measured()).isFalse();
    assertThat(RunQueueWait.between(none, none)).isEqualTo(RunQueueWait.UNMEASURED);
    assertThat(RunQueueWait.UNMEASURED.isJudged()).isFalse();
  }

  @Test
  void onLinuxItReadsTheRunTimeOfABusyClientThreadAsTheKernelCountsIt() throws Exception {
    assumeThat(Files.isDirectory(RunQueueWait.Snapshot.SELF)).as("Linux /proc").isTrue();
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    assumeThat(threads.isCurrentThreadCpuTimeSupported()).isTrue();
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    CountDownLatch spunEnough = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(1);
    AtomicLong spun = new AtomicLong();
    Thread busy = new Thread(() -> {
      try {
        running.countDown(); // the JVM names the native thread before run(): from here the kernel knows the name
        go.await();
        long begin = threads.getCurrentThreadCpuTime();
        long x = 0;
        // Spin until this thread has used 60 ms of CPU by its own account, however long that takes here.
        while (threads.getCurrentThreadCpuTime() - begin < 60 * MS) {
          x += System.nanoTime() & 1;
        }
        spun.set(threads.getCurrentThreadCpuTime() - begin + (x & 0));
        spunEnough.countDown();
        done.await(); // stay alive for the second reading
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "infermark-test-busy");
    busy.start();
    try {
      running.await();
      RunQueueWait.Snapshot before = RunQueueWait.Snapshot.read(RunQueueWait.Snapshot.SELF);
      go.countDown();
      spunEnough.await();
      RunQueueWait w = RunQueueWait.between(before, RunQueueWait.Snapshot.read(RunQueueWait.Snapshot.SELF));

      // Linux keeps the first 15 bytes of a thread's name.
      assertThat(before.threads().keySet()).anyMatch(k -> k.endsWith("/infermark-test-"));
      // The thread's CPU clock and schedstat's first field are the same kernel count (sum_exec_runtime).
      assertThat(w.runNanos()).isGreaterThanOrEqualTo(spun.get());
      assertThat(w.waitNanos()).isGreaterThanOrEqualTo(0);
      assertThat(w.isJudged()).isTrue();
    } finally {
      done.countDown();
      busy.join();
    }
  }
}
