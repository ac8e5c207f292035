package io.infermark.core.run;

import io.infermark.core.capture.RequestRecord;
import java.util.concurrent.TimeUnit;

/**
 * How long a closed-loop stream waits before its next request while the target cannot be reached.
 * Without it, a dead server answers a closed loop's every request at once with a refused connection
 * and the streams spin (a 3.9 s outage once produced 23,650 records). After a request whose
 * connection was refused or reset before any byte of a response, the stream waits
 * {@value #FIRST_MILLIS} ms, doubling with each further such failure up to {@value #MAX_MILLIS} ms;
 * any answer from the server resets it. Every attempt is still sent and recorded; the summary tells
 * how long the target was unreachable. One per stream; not thread-safe.
 */
final class ConnectBackoff {

  static final long FIRST_MILLIS = 5;
  static final long MAX_MILLIS = 1000;
  private static final long FIRST = TimeUnit.MILLISECONDS.toNanos(FIRST_MILLIS);
  private static final long MAX = TimeUnit.MILLISECONDS.toNanos(MAX_MILLIS);

  private long current;

  /** The wait before the stream's next request, given how its last one ended. */
  long after(RequestRecord record) {
    if (unreachable(record)) {
      current = current == 0 ? FIRST : Math.min(current * 2, MAX);
      return current;
    }
    if (record.httpStatus() > 0 || record.chunks().size() > 0) {
      current = 0; // the server answered: it is reachable again
    }
    return 0;
  }

  /** True for a request that never reached a server ({@link RequestRecord#targetUnreachable()}). */
  static boolean unreachable(RequestRecord r) {
    return r.targetUnreachable();
  }
}
