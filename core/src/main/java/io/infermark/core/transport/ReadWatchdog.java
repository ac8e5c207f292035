package io.infermark.core.transport;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import okhttp3.Call;

/**
 * Enforces read timeouts (the longest silence allowed between two reads, counted from the moment
 * the request was sent) and call timeouts (counted from the send, as the transport contract says,
 * not from when OkHttp's call began) for every call in the JVM with one shared daemon thread that looks at all
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
    private final long callTimeoutNanos;
    private volatile long lastReadNanos = Long.MIN_VALUE;
    private volatile boolean expired;
    private volatile boolean callExpired;

    Watch(Call call, PhaseListener progress, long timeoutNanos, long callTimeoutNanos) {
      this.call = call;
      this.progress = progress;
      this.timeoutNanos = timeoutNanos;
      this.callTimeoutNanos = callTimeoutNanos;
    }

    /** Whether the watchdog cancelled the call for outliving its call timeout (rather than for silence). */
    boolean callExpired() {
      return callExpired;
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

    /**
     * Cancels the call if it has lasted longer than its call timeout since its send, or has been
     * silent for longer than its read timeout since the request was written.
     */
    void check(long now) {
      if (expired) {
        return;
      }
      long sent = progress.sendSystemNanos();
      if (sent != Long.MIN_VALUE && now - sent > callTimeoutNanos) {
        callExpired = true;
        expired = true;
        call.cancel();
        return;
      }
      if (!progress.requestSent()) {
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
  private static volatile Thread thread; // started under ReadWatchdog.class

  private ReadWatchdog() {}

  /** Starts watching {@code call}; {@link #unwatch} it when the call has ended. */
  static Watch watch(Call call, PhaseListener progress, long timeoutNanos, long callTimeoutNanos) {
    if (timeoutNanos <= 0 || callTimeoutNanos <= 0) {
      throw new IllegalArgumentException("timeouts must be > 0, were " + timeoutNanos + " and " + callTimeoutNanos);
    }
    Watch w = new Watch(call, progress, timeoutNanos, callTimeoutNanos);
    long t = tickNanos(Math.min(timeoutNanos, callTimeoutNanos));
    WATCHED.add(w);
    ensureStarted();
    if (t < tick) {
      tick = t;
      LockSupport.unpark(thread); // it may be parked for the old, longer tick
    }
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
