package io.infermark.cli;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Result keys vLLM's client derives from the run's schedule: its ramp-up's {@code rps_change_events}. */
final class VllmRunFacts {

  private VllmRunFacts() {}

  /**
   * vLLM's {@code rps_change_events}: the ramp's starting rate at the run's start, then an event each time the
   * whole-number rate of the next request to be sent rises, stamped (local time, ISO, as vLLM's
   * {@code datetime.now().isoformat()}) when that request was due.
   */
  static Map<String, Object> rpsChangeEvents(RunResult run, VllmRampArrivals ramp) {
    List<Object> events = new ArrayList<>();
    int last = (int) ramp.rate(0);
    events.add(event(last, run.startedAt()));
    List<RequestRecord> records = run.records();
    for (int i = 0; i < records.size(); i++) {
      int now = (int) ramp.rate(i);
      if (now > last) {
        Instant at = run.startedAt().plusNanos(records.get(i).intendedNanos());
        for (int r = last + 1; r <= now; r++) {
          events.add(event(r, at));
        }
        last = now;
      }
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("rps_change_events", events);
    return m;
  }

  private static Map<String, Object> event(int rps, Instant at) {
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("rps", (long) rps);
    e.put("timestamp", LocalDateTime.ofInstant(at, ZoneId.systemDefault()).toString());
    return e;
  }
}
