package io.infermark.testkit.simulator;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Creates the executor that runs request handlers. Each streaming request holds its thread for
 * the whole response (it parks between tokens), so the pool must grow to thousands of threads:
 * virtual threads where the runtime has them (Java 21+), otherwise an unbounded cached pool.
 */
final class HandlerThreads {

  private HandlerThreads() {}

  static ExecutorService create() {
    ExecutorService virtual = virtualThreadPerTask();
    return virtual != null ? virtual : Executors.newCachedThreadPool(daemonThreads());
  }

  static boolean virtualThreadsAvailable() {
    return virtualFactoryMethod() != null;
  }

  // The code compiles with --release 17, where newVirtualThreadPerTaskExecutor does not exist,
  // so it is looked up reflectively.
  private static ExecutorService virtualThreadPerTask() {
    Method m = virtualFactoryMethod();
    if (m == null) {
      return null;
    }
    try {
      return (ExecutorService) m.invoke(null);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  private static Method virtualFactoryMethod() {
    try {
      return Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
    } catch (NoSuchMethodException e) {
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
