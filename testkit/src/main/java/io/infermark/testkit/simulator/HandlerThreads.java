package io.infermark.testkit.simulator;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the executor that runs request handlers. A stream written by its handler (one with a
 * fault, or any stream without an engine profile) holds its thread for the whole response, parked
 * between tokens, so the pool must grow to thousands of threads: virtual threads where the runtime
 * has them (Java 21+), otherwise an unbounded cached pool.
 */
final class HandlerThreads {

  private static final Logger log = LoggerFactory.getLogger(HandlerThreads.class);

  private HandlerThreads() {}

  static ExecutorService create() {
    ExecutorService virtual = virtualThreadPerTask();
    if (virtual != null) {
      log.debug("simulator handlers run on virtual threads");
      return virtual;
    }
    log.debug("simulator handlers run on cached daemon platform threads");
    return Executors.newCachedThreadPool(daemonThreads());
  }

  // The code compiles with --release 17, where newVirtualThreadPerTaskExecutor does not exist,
  // so it is looked up reflectively.
  private static ExecutorService virtualThreadPerTask() {
    try {
      Method factory = Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
      return (ExecutorService) factory.invoke(null);
    } catch (NoSuchMethodException e) {
      return null; // before Java 19
    } catch (ReflectiveOperationException | RuntimeException e) {
      log.debug("virtual threads unavailable, using platform threads", e);
      return null;
    }
  }

  // Daemon threads, so a simulator a test forgot to close never keeps the JVM alive.
  private static ThreadFactory daemonThreads() {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "infermark-sim-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
