package io.infermark.metrics.server;

import io.infermark.core.capture.RequestRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Server events placed on client requests (seed 000 §3.3, KV-cache events aligned with the requests
 * they hit): every rise of a scraped counter ({@link PrometheusScraper}, e.g.
 * {@code vllm:num_preemptions_total}) becomes an event known to have happened between two scrapes, and
 * each request whose window overlaps that interval gets an annotation saying when in the request it
 * fell, so a tail request reads "vllm:num_preemptions_total +1 during decode".
 *
 * <pre>{@code
 * ServerEvents events = ServerEvents.of(scraper.series());          // the counters: names ending _total
 * events.annotate(record);   // [+1 vllm:num_preemptions_total during decode (between scrapes at ...)]
 * List<RequestRecord> tagged = events.tag(run.records());             // tag server_events
 * }</pre>
 *
 * <p>Alignment: scrapes and records are on the run's one clock (nanoseconds from its origin). The server
 * reads a scraped value somewhere between the scrape's request and its answer, so a rise between two
 * samples happened in {@code (a, b]}, {@code a} the earlier scrape's send and {@code b} the later's
 * answer ({@link ServerSeries#fromNanos}, {@link ServerSeries#toNanos}; a slow scrape widens it). A request spans
 * {@code [send, send + end offset]}; its client-side phases are "before the first token" (queue and
 * prefill, {@code [send, first token)}) and "during decode" ({@code [first token, last token]}). An
 * annotation names the phase when the whole interval lies in it, else says the interval spans the
 * request's phases. A counter is a fleet-wide number: an event overlapping a request is one that may
 * have hit it, and shorter scrape intervals make the attribution sharper. A value that falls is read as
 * a counter reset (the rise is the new value). Immutable.
 */
public final class ServerEvents {

  /** The tag {@link #tag} puts on records with annotations: their descriptions, "; "-separated. */
  public static final String TAG = "server_events";

  private final List<Event> events;

  private ServerEvents(List<Event> events) {
    this.events = List.copyOf(events);
  }

  /** The events of the counters among {@code series}: those whose names end in {@code _total}. */
  public static ServerEvents of(List<ServerSeries> series) {
    return of(series, name -> name.endsWith("_total"));
  }

  /** The events of the series whose names {@code isCounter} accepts. */
  public static ServerEvents of(List<ServerSeries> series, Predicate<String> isCounter) {
    Objects.requireNonNull(series, "series");
    Objects.requireNonNull(isCounter, "isCounter");
    List<Event> out = new ArrayList<>();
    for (ServerSeries s : series) {
      if (!isCounter.test(s.name())) {
        continue;
      }
      for (int i = 1; i < s.size(); i++) {
        double before = s.value(i - 1);
        double now = s.value(i);
        if (!Double.isFinite(before) || !Double.isFinite(now)) {
          continue;
        }
        double rise = now >= before ? now - before : now; // a fall is a reset
        if (rise > 0) {
          // The earlier value was read no earlier than its scrape was sent, the later no later than its answer.
          out.add(new Event(s.name(), s.fromNanos(i - 1), s.toNanos(i), rise));
        }
      }
    }
    out.sort((x, y) -> Long.compare(x.toNanos(), y.toNanos()));
    return new ServerEvents(out);
  }

  /** Every event, by the time of the scrape that saw it. */
  public List<Event> events() {
    return events;
  }

  /** The events overlapping the request's window, each with where in the request it fell. */
  public List<Annotation> annotate(RequestRecord r) {
    List<Annotation> out = new ArrayList<>();
    for (Event e : events) {
      Phase phase = phaseOf(r, e.fromNanos(), e.toNanos());
      if (phase != null) {
        out.add(new Annotation(e, phase));
      }
    }
    return out;
  }

  /**
   * Where in request {@code r} something known to have happened in {@code (from, to]} (run-clock nanoseconds)
   * fell; null when that interval does not overlap the request's window (or the request was never sent).
   */
  static Phase phaseOf(RequestRecord r, long from, long to) {
    if (!r.wasSent()) {
      return null;
    }
    long send = r.sendNanos();
    long end = send + r.endOffsetNanos();
    if (from >= end || to <= send) {
      return null;
    }
    long first = r.chunks().firstTokenOffsetNanos().isPresent() ? send + r.chunks().firstTokenOffsetNanos().getAsLong()
        : -1;
    long last = r.chunks().lastTokenOffsetNanos().isPresent() ? send + r.chunks().lastTokenOffsetNanos().getAsLong()
        : -1;
    if (first >= 0 && from >= first && to <= last) {
      return Phase.DECODE;
    }
    if (from >= send && (first < 0 ? to <= end : to <= first)) {
      return Phase.BEFORE_FIRST_TOKEN;
    }
    return Phase.SPANNING;
  }

  /** The records, each with annotations tagged {@value #TAG}; records no event overlaps are unchanged. */
  public List<RequestRecord> tag(List<RequestRecord> records) {
    List<RequestRecord> out = new ArrayList<>(records.size());
    for (RequestRecord r : records) {
      List<Annotation> a = annotate(r);
      if (a.isEmpty()) {
        out.add(r);
        continue;
      }
      Map<String, String> tags = new HashMap<>(r.tags());
      tags.put(TAG, String.join("; ", a.stream().map(Annotation::toString).toList()));
      out.add(r.toBuilder().tags(tags).build());
    }
    return List.copyOf(out);
  }

  @Override
  public String toString() {
    return "ServerEvents[" + events.size() + " events]";
  }

  /** Where in a request an event fell. */
  public enum Phase {
    /** Between the send and the first token: queueing or prefill. */
    BEFORE_FIRST_TOKEN("before the first token"),
    /** Between the first token and the last. */
    DECODE("during decode"),
    /** The scrapes around it straddle the request's phases or its ends: somewhere in or around the request. */
    SPANNING("spanning the request's phases");

    private final String words;

    Phase(String words) {
      this.words = words;
    }

    /** The phase in words, e.g. {@code during decode}. */
    public String words() {
      return words;
    }
  }

  /**
   * A counter's rise between two scrapes.
   *
   * @param name the series
   * @param fromNanos when the earlier scrape was sent, from the run's origin: the rise came after
   * @param toNanos when the scrape that saw the rise was answered: the rise came no later
   * @param increase how much it rose
   */
  public record Event(String name, long fromNanos, long toNanos, double increase) {

    /** Validates. */
    public Event {
      Objects.requireNonNull(name, "name");
    }
  }

  /**
   * An event placed on a request.
   *
   * @param event the event
   * @param phase where in the request it fell
   */
  public record Annotation(Event event, Phase phase) {

    /** Validates. */
    public Annotation {
      Objects.requireNonNull(event, "event");
      Objects.requireNonNull(phase, "phase");
    }

    /** E.g. {@code +1 vllm:num_preemptions_total during decode (between scrapes at 1203.4 and 1213.5 ms)}. */
    @Override
    public String toString() {
      double inc = event.increase();
      String amount = inc == Math.rint(inc) ? Long.toString((long) inc) : String.format(Locale.ROOT, "%.3f", inc);
      return String.format(Locale.ROOT, "+%s %s %s (between scrapes at %.1f and %.1f ms)", amount, event.name(),
          phase.words(), event.fromNanos() / 1e6, event.toNanos() / 1e6);
    }
  }
}
