package io.infermark.core.transport;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import okhttp3.Call;

/**
 * Enforces read timeouts (the longest silence allowed between two reads, counted from the moment
 * the request was sent) for every call in the JVM with one shared daemon thread that looks at all
 * watched calls every {@link #tickNanos(long) tick} and cancels those silent for too long.
 *
 * <p>It replaces OkHttp's own read timeout, which costs CPU on every read: OkHttp sets the socket's
 * {@code SO_TIMEOUT}, and the JDK reads a socket with a timeout as a non-blocking read that fails,
 * a {@code poll}, and a second read (three system calls instead of one), and OkHttp enters and
 * exits its timeout queue around each read. At thousands of streamed chunks per second that was a
 * large part of the client's CPU per token. Here a read costs one volatile write.
 *
 * <p>A timeout fires between {@code timeout} and {@code timeout + tick} of silence; the tick is a
 * sixteenth of the shortest timeout watched, between 1 ms and 1 s.
 */
final class ReadWatchdog {

  /** One call's read activity; the reading thread {@link #touch touches} it after every read. */
  static final class Watch {
    private final Call call;
    private final PhaseListener progress;
    private final long timeoutNanos;
    private volatile long lastReadNanos = Long.MIN_VALUE;
    private volatile boolean expired;

    Watch(Call call, PhaseListener progress, long timeoutNanos) {
      this.call = call;
      this.progress = progress;
      this.timeoutNanos = timeoutNanos;
    }

    /** Records a read (or the response headers) at {@code systemNanos}, a {@link System#nanoTime()} value. */
    void touch(long systemNanos) {
      lastReadNanos = systemNanos;
    }

    /** Whether the watchdog cancelled the call for its silence. */
    boolean expired() {
      return expired;
    }

    long timeoutNanos() {
      return timeoutNanos;
    }

    /** Cancels the call if it has been silent for longer than its timeout since it was sent. */
    void check(long now) {
      if (expired || !progress.requestSent()) {
        return; // connecting and writing have OkHttp's own timeouts
      }
      long since = Math.max(lastReadNanos, progress.requestSentNanos());
      if (now - since > timeoutNanos) {
        expired = true;
        call.cancel();
      }
    }
  }

  private static final long MIN_TICK = TimeUnit.MILLISECONDS.toNanos(1);
  private static final long MAX_TICK = TimeUnit.SECONDS.toNanos(1);
  private static final Set<Watch> WATCHED = ConcurrentHashMap.newKeySet();
  private static volatile long tick = MAX_TICK;
  private static Thread thread; // guarded by ReadWatchdog.class

  private ReadWatchdog() {}

  /** Starts watching {@code call}; {@link #unwatch} it when the call has ended. */
  static Watch watch(Call call, PhaseListener progress, long timeoutNanos) {
    if (timeoutNanos <= 0) {
      throw new IllegalArgumentException("timeoutNanos must be > 0, was " + timeoutNanos);
    }
    Watch w = new Watch(call, progress, timeoutNanos);
    long t = tickNanos(timeoutNanos);
    if (t < tick) {
      tick = t;
    }
    WATCHED.add(w);
    ensureStarted();
    return w;
  }

  static void unwatch(Watch w) {
    WATCHED.remove(w);
  }

  /** How often calls with this timeout must be checked. */
  static long tickNanos(long timeoutNanos) {
    return Math.max(MIN_TICK, Math.min(MAX_TICK, timeoutNanos / 16));
  }

  private static synchronized void ensureStarted() {
    if (thread == null) {
      thread = new Thread(ReadWatchdog::run, "infermark-read-watchdog");
      thread.setDaemon(true);
      thread.start();
    }
  }

  private static void run() {
    while (true) {
      LockSupport.parkNanos(tick);
      long now = System.nanoTime();
      for (Watch w : WATCHED) {
        w.check(now);
      }
    }
  }
}
