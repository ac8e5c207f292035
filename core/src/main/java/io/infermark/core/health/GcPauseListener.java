package io.infermark.core.health;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts stop-the-world GC pauses from the collectors' JMX notifications between {@link #start()} and
 * {@link #stop()}. Where the JVM sends no notifications (not HotSpot-compatible), it counts nothing and
 * says so once in the log.
 */
final class GcPauseListener implements NotificationListener {

  private static final Logger LOG = LoggerFactory.getLogger(GcPauseListener.class);

  private final List<NotificationEmitter> emitters = new ArrayList<>();
  private long count;
  private long totalNanos;
  private long maxNanos;
  private boolean stopped;

  private GcPauseListener() {}

  /** Starts listening to every garbage collector of this JVM. */
  static GcPauseListener start() {
    GcPauseListener l = new GcPauseListener();
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(l, null, null);
        l.emitters.add(emitter);
      }
    }
    if (l.emitters.isEmpty()) {
      LOG.debug("no garbage collector sends notifications: GC pauses are not counted");
    }
    return l;
  }

  /**
   * Whether a collector's notification is a pause. Concurrent cycles are not: G1's "G1 Concurrent GC"
   * (JDK 20+), ZGC's "ZGC Cycles"/"ZGC Major Cycles", Shenandoah's "Shenandoah Cycles"; their pauses
   * come under the collectors named "… Pauses".
   */
  static boolean isPause(String collector, String action) {
    String name = collector.toLowerCase(Locale.ROOT);
    return !name.contains("concurrent") && !name.contains("cycles")
        && !action.toLowerCase(Locale.ROOT).contains("concurrent");
  }

  @Override
  public void handleNotification(Notification n, Object handback) {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
      return;
    }
    GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
    if (!isPause(info.getGcName(), info.getGcAction())) {
      return;
    }
    add(TimeUnit.MILLISECONDS.toNanos(info.getGcInfo().getDuration()));
  }

  /** Counts one pause. */
  synchronized void add(long pauseNanos) {
    if (stopped) {
      return;
    }
    count++;
    totalNanos += pauseNanos;
    maxNanos = Math.max(maxNanos, pauseNanos);
  }

  /** Stops listening and returns what was counted; later calls return the same. */
  synchronized GcPauses stop() {
    if (!stopped) {
      stopped = true;
      for (NotificationEmitter e : emitters) {
        try {
          e.removeNotificationListener(this);
        } catch (ListenerNotFoundException ignored) {
          // already gone: nothing to remove
        }
      }
    }
    return new GcPauses(count, totalNanos, maxNanos);
  }
}
