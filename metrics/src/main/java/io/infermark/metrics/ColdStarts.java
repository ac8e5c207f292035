package io.infermark.metrics;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.stats.QuantileMethod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Function;

/**
 * Which requests of a run paid a cold start (seed 003 §3.3: the first request after the model was
 * loaded, or reloaded after scaling to zero, waits for its weights), so that warm and cold requests are
 * summarised apart instead of one cold request dragging a run's mean.
 *
 * <pre>{@code
 * ColdStarts rule = ColdStarts.serverReported().afterIdle(Duration.ofSeconds(5));
 * ColdStarts.Split split = rule.split(run.measured());
 * split.ttft(false).p50();   // warm TTFT
 * split.ttft(true).max();    // the slowest cold one
 * List<RequestRecord> marked = rule.mark(run.records());   // tagged cold_start = the reason
 * }</pre>
 *
 * <p>A request is cold when the run can know it:
 * <ol>
 *   <li>the server says so: a server timing {@code load_duration} above 0 (Ollama's, in ns, also sent by
 *       the simulator's Ollama protocol) [always on];
 *   <li>a load time from another source is above 0 ({@link #loadTime}: e.g. the simulator's ground-truth
 *       timelines, or a header your target records);
 *   <li>it carries the {@value #TAG} tag (marked before, by this class or the caller);
 *   <li>with {@link #afterIdle(Duration) afterIdle(gap)}: it was sent when no request had been in flight
 *       for at least {@code gap} (a server that scales to zero after that long reloads), the run's first
 *       request included (nothing was in flight before it). Only the request that breaks the idle spell
 *       is marked: others sent while it waits are not, though they may wait too (a server signal finds
 *       them).
 * </ol>
 * An OpenAI-compatible stream carries no load signal, so against such a server only the idle rule (or
 * a source you plug in) can mark anything. Warmup and cooldown records are neither cold nor warm; a
 * failed request is judged like any other but only successful ones enter the distributions.
 * Immutable.
 */
public final class ColdStarts {

  /** The tag a marked record carries; its value is the reason. */
  public static final String TAG = "cold_start";
  /** The server timing read as the server's own load time, in nanoseconds (Ollama's). */
  public static final String LOAD_DURATION = "load_duration";

  private static final ColdStarts SERVER = new ColdStarts(null, -1);

  private final Function<RequestRecord, OptionalDouble> loadMillis;
  private final long idleNanos; // -1: no idle rule

  private ColdStarts(Function<RequestRecord, OptionalDouble> loadMillis, long idleNanos) {
    this.loadMillis = loadMillis;
    this.idleNanos = idleNanos;
  }

  /** Cold when the server reports a load ({@code load_duration} &gt; 0) or the record is tagged. */
  public static ColdStarts serverReported() {
    return SERVER;
  }

  /** The same, also cold when {@code loadMillis} gives a load time above 0 ms for the record. */
  public ColdStarts loadTime(Function<RequestRecord, OptionalDouble> loadMillis) {
    return new ColdStarts(Objects.requireNonNull(loadMillis, "loadMillis"), idleNanos);
  }

  /**
   * The same, also cold when the request was sent after at least {@code gap} with nothing in flight
   * (and the run's first request).
   *
   * @throws IllegalArgumentException if the gap is negative
   */
  public ColdStarts afterIdle(Duration gap) {
    Objects.requireNonNull(gap, "gap");
    if (gap.isNegative()) {
      throw new IllegalArgumentException("idle gap must be >= 0, was " + gap);
    }
    return new ColdStarts(loadMillis, gap.toNanos());
  }

  /**
   * Why each cold record is cold, by request index; records not in the map are warm. Judges every
   * record (warmup included: it can break an idle spell) but reports only measured ones.
   */
  public Map<Long, String> reasons(List<RequestRecord> records) {
    Map<Long, String> out = new LinkedHashMap<>();
    Map<Long, String> idle = idleNanos >= 0 ? idleReasons(records) : Map.of();
    for (RequestRecord r : records) {
      if (!r.measured()) {
        continue;
      }
      Optional<String> why = serverReason(r);
      if (why.isEmpty() && idle.containsKey(r.index())) {
        why = Optional.of(idle.get(r.index()));
      }
      why.ifPresent(w -> out.put(r.index(), w));
    }
    return out;
  }

  private Optional<String> serverReason(RequestRecord r) {
    String tag = r.tags().get(TAG);
    if (tag != null) {
      return Optional.of(tag);
    }
    Double load = r.serverTimings().get(LOAD_DURATION);
    if (load != null && load > 0) {
      return Optional.of(String.format(Locale.ROOT, "server load_duration %.1f ms", load / 1e6));
    }
    if (loadMillis != null) {
      OptionalDouble ms = loadMillis.apply(r);
      if (ms.isPresent() && ms.getAsDouble() > 0) {
        return Optional.of(String.format(Locale.ROOT, "load %.1f ms", ms.getAsDouble()));
      }
    }
    return Optional.empty();
  }

  /** The requests that broke an idle spell of at least the gap, with how long it was. */
  private Map<Long, String> idleReasons(List<RequestRecord> records) {
    List<RequestRecord> sent = records.stream().filter(RequestRecord::wasSent)
        .sorted(Comparator.comparingLong(RequestRecord::sendNanos).thenComparingLong(RequestRecord::index)).toList();
    Map<Long, String> out = new HashMap<>();
    long busyUntil = Long.MIN_VALUE; // the latest end of the requests sent so far
    for (RequestRecord r : sent) {
      if (busyUntil == Long.MIN_VALUE) {
        out.put(r.index(), "first request of the run");
      } else if (r.sendNanos() - busyUntil >= idleNanos) {
        out.put(r.index(), String.format(Locale.ROOT, "after %.1f ms idle", (r.sendNanos() - busyUntil) / 1e6));
      }
      busyUntil = Math.max(busyUntil, r.sendNanos() + r.endOffsetNanos());
    }
    return out;
  }

  /** The measured records split into cold and warm. */
  public Split split(List<RequestRecord> records) {
    Map<Long, String> reasons = reasons(records);
    List<RequestRecord> cold = new ArrayList<>();
    List<RequestRecord> warm = new ArrayList<>();
    for (RequestRecord r : records) {
      if (r.measured()) {
        (reasons.containsKey(r.index()) ? cold : warm).add(r);
      }
    }
    return new Split(List.copyOf(cold), List.copyOf(warm), Map.copyOf(reasons));
  }

  /** The records with every cold measured one tagged {@value #TAG} = its reason (others unchanged). */
  public List<RequestRecord> mark(List<RequestRecord> records) {
    Map<Long, String> reasons = reasons(records);
    List<RequestRecord> out = new ArrayList<>(records.size());
    for (RequestRecord r : records) {
      String why = reasons.get(r.index());
      if (why == null || why.equals(r.tags().get(TAG))) {
        out.add(r);
      } else {
        Map<String, String> tags = new HashMap<>(r.tags());
        tags.put(TAG, why);
        out.add(r.toBuilder().tags(tags).build());
      }
    }
    return List.copyOf(out);
  }

  @Override
  public String toString() {
    return "ColdStarts[server load_duration" + (loadMillis == null ? "" : ", a load-time source")
        + (idleNanos >= 0 ? String.format(Locale.ROOT, ", after %.1f ms idle", idleNanos / 1e6) : "") + "]";
  }

  /**
   * A run's measured records, cold and warm.
   *
   * @param cold the cold ones, in record order
   * @param warm the rest
   * @param reasons why each cold one is cold, by request index
   */
  public record Split(List<RequestRecord> cold, List<RequestRecord> warm, Map<Long, String> reasons) {

    /** Copies. */
    public Split {
      cold = List.copyOf(cold);
      warm = List.copyOf(warm);
      reasons = Map.copyOf(reasons);
    }

    /** TTFT of the successful cold (or warm) requests, ms, linear percentiles. */
    public Distribution ttft(boolean coldOnes) {
      return distribution(LatencyMetric.TTFT, coldOnes);
    }

    /** Any per-request metric of the successful cold (or warm) requests, ms, linear percentiles. */
    public Distribution distribution(LatencyMetric metric, boolean coldOnes) {
      if (metric.isPooled()) {
        throw new IllegalArgumentException(metric + " pools values over requests; split a per-request metric");
      }
      List<Double> values = new ArrayList<>();
      for (RequestRecord r : coldOnes ? cold : warm) {
        if (r.succeeded()) {
          for (double v : metric.valuesMillis(r)) {
            values.add(v);
          }
        }
      }
      return Distribution.of(values.stream().mapToDouble(Double::doubleValue).toArray(), QuantileMethod.LINEAR);
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "ColdStarts.Split[%d cold, %d warm]", cold.size(), warm.size());
    }
  }
}
