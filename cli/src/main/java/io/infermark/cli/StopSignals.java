package io.infermark.cli;

import io.infermark.core.BenchmarkRun;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What SIGINT (Ctrl-C) and SIGTERM (Kubernetes' eviction, preemption, {@code activeDeadlineSeconds})
 * do to a running command: the first stops the run in progress gracefully (nothing more is sent,
 * requests in flight get {@code --drain-timeout}, every output is written marked interrupted, and
 * the process exits 130 or 143); the second cancels what is still in flight at once; the third exits
 * at once without writing anything more.
 *
 * <p>Installed only by {@link Infermark#main}: commands run in-process ({@code Infermark.run}, tests,
 * host applications) keep the host's own signal handling, and get a {@link #detached(PrintWriter)} instance
 * that a test can still {@link #raise} on. Signals are caught with the JDK's {@code sun.misc.Signal}
 * (in {@code jdk.unsupported}), reached reflectively so the build needs no internal API; where it
 * is missing the JVM's default (exit at once) stays.
 */
final class StopSignals {

  private static final Logger LOG = LoggerFactory.getLogger(StopSignals.class);
  private static volatile StopSignals installed;

  private final PrintWriter err;
  private final AtomicInteger count = new AtomicInteger();
  private volatile String first;
  private BenchmarkRun run;
  private Duration drain = Duration.ZERO;
  private Optional<Runnable> whenIdle = Optional.empty();

  private StopSignals(PrintWriter err) {
    this.err = err;
  }

  /** Catches SIGINT and SIGTERM for this process; the handlers report on {@code err}. */
  static StopSignals install(PrintWriter err) {
    StopSignals s = new StopSignals(err);
    boolean any = false;
    for (String name : new String[] {"INT", "TERM"}) {
      any |= handle(name, s);
    }
    if (any) {
      installed = s;
    }
    return s;
  }

  /** The process's instance when {@link #install} ran, else a fresh one no signal reaches. */
  static StopSignals current(PrintWriter err) {
    StopSignals s = installed;
    return s != null ? s : new StopSignals(err);
  }

  /** An instance no signal reaches (for in-process use). */
  static StopSignals detached(PrintWriter err) {
    return new StopSignals(err);
  }

  /**
   * Stops {@code run} (drain {@code drainTimeout}) when a signal comes; if one came already, at once.
   * One run is watched at a time: a sweep watches each level's run in turn.
   */
  void watch(BenchmarkRun run, Duration drainTimeout) {
    boolean stopNow;
    synchronized (this) {
      this.run = run;
      this.drain = drainTimeout;
      stopNow = first != null;
    }
    if (stopNow) {
      run.stop("SIG" + first, count.get() > 1 ? Duration.ZERO : drainTimeout);
    }
  }

  /**
   * What the first signal does while no run is watched, instead of saying it stops and being {@link #received()}
   * (a sweep then starts no further level): {@code bench} exits at once before its run starts (its test request,
   * a ready check that waits for a loading server, warm-ups), as nothing is measured yet.
   */
  synchronized void whenIdle(Runnable action) {
    this.whenIdle = Optional.of(action);
  }

  /** Back to the default: the first signal while no run is watched says it stops, and is {@link #received()}. */
  synchronized void clearWhenIdle() {
    this.whenIdle = Optional.empty();
  }

  /** Stops watching a run that has ended. */
  synchronized void unwatch(BenchmarkRun ended) {
    if (run == ended) {
      run = null;
    }
  }

  /** True once a signal came: a command with several runs starts no new one. */
  boolean received() {
    return first != null;
  }

  /** The first signal's name ({@code SIGINT}, {@code SIGTERM}), if one came. */
  Optional<String> signal() {
    String f = first;
    return f == null ? Optional.empty() : Optional.of("SIG" + f);
  }

  /** The exit code for the first signal: 128 + its number (130 for SIGINT, 143 for SIGTERM); 0 if none came. */
  int exitCode() {
    String f = first;
    return f == null ? 0 : f.equals("INT") ? 130 : 143;
  }

  /** What a signal named {@code INT} or {@code TERM} does; called by the handler, and by tests. */
  void raise(String name) {
    int n = count.incrementAndGet();
    BenchmarkRun current;
    Duration d;
    synchronized (this) {
      if (first == null) {
        first = name;
      }
      current = run;
      d = drain;
    }
    if (n == 1) {
      Optional<Runnable> idle;
      synchronized (this) {
        idle = whenIdle;
      }
      if (current == null && idle.isPresent()) {
        idle.get().run();
        return;
      }
      err.printf("%nSIG%s: stopping; requests in flight get up to %s to finish (again: cancel them now)%n", name,
          seconds(d));
      err.flush();
      if (current != null) {
        current.stop("SIG" + name, d);
      }
    } else if (n == 2) {
      err.printf("%nSIG%s again: cancelling the requests in flight; the outputs are still written (again: exit now)%n",
          name);
      err.flush();
      if (current != null) {
        current.stop("SIG" + first, Duration.ZERO);
      }
    } else {
      err.printf("%nSIG%s a third time: exiting at once; the journal holds what was measured%n", name);
      err.flush();
      Runtime.getRuntime().halt(exitCode());
    }
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() / 1000.0 + " s";
  }

  /** Installs a handler for one signal through {@code sun.misc.Signal}; false where that is not possible. */
  private static boolean handle(String name, StopSignals target) {
    try {
      Class<?> signalClass = Class.forName("sun.misc.Signal");
      Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
      Object signal = signalClass.getConstructor(String.class).newInstance(name);
      Object handler = Proxy.newProxyInstance(StopSignals.class.getClassLoader(), new Class<?>[] {handlerClass},
          (proxy, method, args) -> {
            if (method.getName().equals("handle")) {
              target.raise(name);
              return null;
            }
            return switch (method.getName()) {
              case "hashCode" -> System.identityHashCode(proxy);
              case "equals" -> proxy == args[0];
              case "toString" -> "infermark SIG" + name + " handler";
              default -> null;
            };
          });
      Method handle = signalClass.getMethod("handle", signalClass, handlerClass);
      handle.invoke(null, signal, handler);
      return true;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      LOG.debug("cannot catch SIG{} ({}); it ends the process at once", name, e.toString());
      return false;
    }
  }

  @Override
  public String toString() {
    return "StopSignals[" + (first == null ? "none received" : count.get() + " received, first SIG" + first) + "]";
  }
}
