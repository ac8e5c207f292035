package io.infermark.metrics.session;

import io.infermark.core.capture.RequestRecord;
import java.util.List;

/** The hand-timed sessions of {@link SessionRecords}, for tests in other packages. */
public final class SessionSummaryFixtures {

  private SessionSummaryFixtures() {}

  /** Sessions A (completed), B (failed), C (cut) and a warmup one; see {@link SessionRecords}. */
  public static List<RequestRecord> records() {
    return SessionRecords.all();
  }
}
