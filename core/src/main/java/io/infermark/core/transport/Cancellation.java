package io.infermark.core.transport;

import java.util.ArrayList;
import java.util.List;

/**
 * Lets the engine cancel one in-flight request. A {@code Target} registers how to abort its call
 * (for OkHttp, {@code call::cancel}); the engine calls {@link #cancel()} at the run's deadline.
 * Thread-safe; an action registered after cancellation runs at once.
 */
public final class Cancellation {

  private final List<Runnable> actions = new ArrayList<>(1);
  private boolean cancelled;

  /** Registers an action to run on cancellation (immediately if already cancelled). */
  public void onCancel(Runnable action) {
    boolean runNow;
    synchronized (this) {
      runNow = cancelled;
      if (!runNow) {
        actions.add(action);
      }
    }
    if (runNow) {
      action.run();
    }
  }

  /** Cancels: runs every registered action once. Later calls do nothing. */
  public void cancel() {
    List<Runnable> toRun;
    synchronized (this) {
      if (cancelled) {
        return;
      }
      cancelled = true;
      toRun = new ArrayList<>(actions);
      actions.clear();
    }
    for (Runnable r : toRun) {
      r.run();
    }
  }

  /** True once {@link #cancel()} has been called. */
  public synchronized boolean isCancelled() {
    return cancelled;
  }

  @Override
  public synchronized String toString() {
    return cancelled ? "Cancellation[cancelled]" : "Cancellation[active]";
  }
}
