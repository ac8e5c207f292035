package io.infermark.core.run;

import java.lang.reflect.Method;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Threads that run in-flight requests: one per request, virtual on Java 21+ (found reflectively so
 * the library still runs on 17), otherwise an unbounded pool of daemon platform threads. Unbounded
 * on purpose: a bounded pool would be a hidden cap on concurrency.
 */
final class RequestThreads {

  private static final Logger LOG = LoggerFactory.getLogger(RequestThreads.class);
  private static final Method VIRTUAL_FACTORY = findVirtualFactory();

  private RequestThreads() {}

  /** True when requests run on virtual threads. */
  static boolean virtual() {
    return VIRTUAL_FACTORY != null;
  }

  /** A new executor starting one thread per task: virtual ones if asked for and available. */
  static ExecutorService newExecutor(boolean virtual) {
    if (virtual && VIRTUAL_FACTORY != null) {
      try {
        return (ExecutorService) VIRTUAL_FACTORY.invoke(null);
      } catch (ReflectiveOperationException e) {
        LOG.warn("virtual threads unavailable, using platform threads: {}", e.toString());
      }
    }
    AtomicInteger n = new AtomicInteger();
    ThreadFactory factory = r -> {
      Thread t = new Thread(r, "infermark-request-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
    return Executors.newCachedThreadPool(factory);
  }

  /**
   * The single thread that builds and starts closed-loop requests on an asynchronous target and
   * runs each stream's continuation (think time included) when its request ends.
   */
  static ScheduledExecutorService newSender() {
    ScheduledThreadPoolExecutor sender = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "infermark-sender");
      t.setDaemon(true);
      return t;
    });
    sender.setRemoveOnCancelPolicy(true);
    return sender;
  }

  private static Method findVirtualFactory() {
    try {
      return Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
    } catch (NoSuchMethodException e) {
      return null;
    }
  }
}
