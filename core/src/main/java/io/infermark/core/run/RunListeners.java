package io.infermark.core.run;

import io.infermark.core.RunListener;
import io.infermark.core.RunResult;
import io.infermark.core.RunStart;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.request.InferenceRequest;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Dispatches run events to the registered listeners, isolating the run from their exceptions. */
public final class RunListeners {

  private static final Logger LOG = LoggerFactory.getLogger(RunListeners.class);

  private final List<RunListener> listeners;
  private final AtomicBoolean[] warned;

  /** Dispatches to {@code listeners} in order; a listener that throws is logged and skipped. */
  public RunListeners(List<RunListener> listeners) {
    this.listeners = List.copyOf(listeners);
    this.warned = new AtomicBoolean[this.listeners.size()];
    for (int i = 0; i < warned.length; i++) {
      warned[i] = new AtomicBoolean();
    }
  }

  boolean isEmpty() {
    return listeners.isEmpty();
  }

  void runStarted(RunStart start) {
    for (int i = 0; i < listeners.size(); i++) {
      try {
        listeners.get(i).onRunStarted(start);
      } catch (RuntimeException e) {
        failed(i, "onRunStarted", e);
      }
    }
  }

  InferenceRequest beforeSend(InferenceRequest request) {
    InferenceRequest current = request;
    for (int i = 0; i < listeners.size(); i++) {
      try {
        InferenceRequest next = Objects.requireNonNull(listeners.get(i).beforeSend(current), "beforeSend returned null");
        if (!next.id().equals(request.id()) || !next.prompt().equals(request.prompt())) {
          throw new IllegalStateException("beforeSend changed the request's id or prompt");
        }
        current = next;
      } catch (RuntimeException e) {
        failed(i, "beforeSend", e);
      }
    }
    return current;
  }

  void record(RequestRecord record) {
    for (int i = 0; i < listeners.size(); i++) {
      try {
        listeners.get(i).onRecord(record);
      } catch (RuntimeException e) {
        failed(i, "onRecord", e);
      }
    }
  }

  void runFinished(RunResult result) {
    for (int i = 0; i < listeners.size(); i++) {
      try {
        listeners.get(i).onRunFinished(result);
      } catch (RuntimeException e) {
        failed(i, "onRunFinished", e);
      }
    }
  }

  private void failed(int i, String event, RuntimeException e) {
    if (warned[i].compareAndSet(false, true)) {
      LOG.warn("run listener {} threw in {}; the run goes on (further failures of it are logged at DEBUG)",
          listeners.get(i), event, e);
    } else {
      LOG.debug("run listener {} threw in {}", listeners.get(i), event, e);
    }
  }
}
