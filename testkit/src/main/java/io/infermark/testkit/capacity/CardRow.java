package io.infermark.testkit.capacity;

import io.infermark.core.sweep.CeilingResult;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalDouble;

/**
 * One row of a {@link CapacityCard}: a figure's ceiling on one wire, and what was measured at it.
 *
 * @param protocol the wire
 * @param figure what was searched
 * @param search the search: ceiling (the highest level whose step passed), first failure, every step
 * @param achieved what the client measured at the ceiling, in the figure's unit (tokens/s and requests/s in the
 *     measured window; streams held); empty when no level passed
 * @param perClientCore tokens or requests per second of the client's CPU at the ceiling (units over the process's
 *     CPU less the simulator's threads: one fully busy core's worth); empty for streams or when no level passed
 * @param errorBoundMillis the client's error bound at the ceiling, ms; empty when no level passed
 * @param boundBy which figure set that bound (hiccup p99, GC pause, an I/O thread's backlog, send lag)
 * @param heapBytesPerStream for {@link CardFigure#STREAMS}: heap in use per open stream after a full collection,
 *     client and in-process simulator together (so an upper bound of the client's), measured at the ceiling or at
 *     1,024 streams (fewer if the card's maximum is lower), whichever is more, whether or not a level passed; else
 *     empty
 * @param limitedBy what the first failing level measured (its error bound, failures or shortfall); empty text
 *     when none failed
 */
public record CardRow(CardProtocol protocol, CardFigure figure, CeilingResult search, OptionalDouble achieved,
    OptionalDouble perClientCore, OptionalDouble errorBoundMillis, String boundBy, OptionalDouble heapBytesPerStream,
    String limitedBy) {

  /** Validates. */
  public CardRow {
    Objects.requireNonNull(protocol, "protocol");
    Objects.requireNonNull(figure, "figure");
    Objects.requireNonNull(search, "search");
    Objects.requireNonNull(achieved, "achieved");
    Objects.requireNonNull(perClientCore, "perClientCore");
    Objects.requireNonNull(errorBoundMillis, "errorBoundMillis");
    Objects.requireNonNull(boundBy, "boundBy");
    Objects.requireNonNull(heapBytesPerStream, "heapBytesPerStream");
    Objects.requireNonNull(limitedBy, "limitedBy");
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "CardRow[%s %s: %s]", protocol.label(), figure.label(), search);
  }
}
