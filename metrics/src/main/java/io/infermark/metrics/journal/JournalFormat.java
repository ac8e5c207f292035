package io.infermark.metrics.journal;

import com.fasterxml.jackson.core.JsonGenerator;
import io.infermark.core.Interruption;
import io.infermark.core.RunEnvironment;
import io.infermark.core.RunResult;
import io.infermark.core.RunStart;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import java.io.IOException;
import java.util.BitSet;
import java.util.List;
import java.util.Map;

/**
 * The header and end lines of a {@link RecordsJournal}. Their first field names them
 * ({@value #HEADER} and {@value #END}, holding the format version), which is how a reader tells them
 * from records.
 *
 * <pre>{@code
 * {"infermark_journal": 1, "started_at": "2026-12-02T08:00:00Z", "origin_ns": 123, "target": "...",
 *  "planned_requests": 300, "load": {"description": "...", "mode": "open_loop", "concurrency": null,
 *  "requested_rate_rps": 5.0, "requests": 300, "warmup_requests": 0, "seed": 0, "shard_index": 0,
 *  "shard_count": 1}, "params": {"stream": true, "max_tokens": 128, "temperature": null, "ignore_eos": true},
 *  "environment": {...}, "context": {...}}
 * ... one record per line ...
 * {"infermark_journal_end": 1, "duration_ns": 61000000000, "records": 57, "not_sent": {"count": 243,
 *  "ranges": [[57, 299]]}, "prompt_count": 1, "insecure_tls": false, "environment": {...},
 *  "client_health": {"verdict": "OK", "floor_ns": 1200000, "reasons": []},
 *  "interruption": {"reason": "SIGINT", "at": "...", "at_ns": 10000000000, "completed": 55, "cancelled": 2,
 *  "not_sent": 243, "unknown": 0}}
 * }</pre>
 */
final class JournalFormat {

  static final String HEADER = "infermark_journal";
  static final String END = "infermark_journal_end";
  private static final String HEADER_PREFIX = "{\"" + HEADER + "\"";
  private static final String END_PREFIX = "{\"" + END + "\"";

  private JournalFormat() {}

  /** True for a header or end line starting at {@code from}. */
  static boolean isMarkerLine(CharSequence text, int from) {
    return startsWith(text, from, HEADER_PREFIX) || startsWith(text, from, END_PREFIX);
  }

  static boolean isHeader(String line) {
    return line.startsWith(HEADER_PREFIX);
  }

  static boolean isEnd(String line) {
    return line.startsWith(END_PREFIX);
  }

  private static boolean startsWith(CharSequence text, int from, String prefix) {
    if (text.length() - from < prefix.length()) {
      return false;
    }
    for (int i = 0; i < prefix.length(); i++) {
      if (text.charAt(from + i) != prefix.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  static void writeHeader(JsonGenerator g, RunStart start, Map<String, Object> context) throws IOException {
    g.writeStartObject();
    g.writeNumberField(HEADER, RecordsJournal.FORMAT_VERSION);
    g.writeStringField("started_at", start.startedAt().toString());
    g.writeNumberField("origin_ns", start.originNanos());
    g.writeStringField("target", start.target());
    if (start.plannedRequests().isPresent()) {
      g.writeNumberField("planned_requests", start.plannedRequests().getAsLong());
    }
    writeLoad(g, start.load());
    writeParams(g, start.params());
    writeEnvironment(g, RunEnvironment.current(false));
    g.writeFieldName("context");
    writeValue(g, context);
    g.writeEndObject();
  }

  static void writeEnd(JsonGenerator g, RunResult result, BitSet notSent, long notSentCount) throws IOException {
    g.writeStartObject();
    g.writeNumberField(END, RecordsJournal.FORMAT_VERSION);
    g.writeNumberField("duration_ns", result.durationNanos());
    g.writeNumberField("prompt_count", result.promptCount());
    g.writeBooleanField("insecure_tls", result.insecureTls());
    g.writeObjectFieldStart("not_sent");
    g.writeNumberField("count", notSentCount);
    g.writeArrayFieldStart("ranges");
    for (int i = notSent.nextSetBit(0); i >= 0; ) {
      int to = notSent.nextClearBit(i) - 1;
      g.writeStartArray();
      g.writeNumber(i);
      g.writeNumber(to);
      g.writeEndArray();
      i = to == Integer.MAX_VALUE - 1 ? -1 : notSent.nextSetBit(to + 1);
    }
    g.writeEndArray();
    g.writeEndObject();
    writeEnvironment(g, result.environment());
    ClientHealth h = result.clientHealth();
    g.writeObjectFieldStart("client_health");
    g.writeStringField("verdict", h.verdict().name());
    g.writeNumberField("floor_ns", h.floorNanos());
    g.writeArrayFieldStart("reasons");
    for (String r : h.reasons()) {
      g.writeString(r);
    }
    g.writeEndArray();
    g.writeEndObject();
    if (result.interruption().isPresent()) {
      Interruption i = result.interruption().get();
      g.writeObjectFieldStart("interruption");
      g.writeStringField("reason", i.reason());
      g.writeStringField("at", i.at().toString());
      g.writeNumberField("at_ns", i.atNanos());
      g.writeNumberField("completed", i.completed());
      g.writeNumberField("cancelled", i.cancelled());
      g.writeNumberField("not_sent", i.notSent());
      g.writeNumberField("unknown", i.unknown());
      g.writeEndObject();
    }
    g.writeEndObject();
  }

  private static void writeLoad(JsonGenerator g, LoadProfile load) throws IOException {
    g.writeObjectFieldStart("load");
    g.writeStringField("description", load.toString());
    g.writeStringField("mode", load.isClosedLoop() ? "closed_loop" : "open_loop");
    if (load.isClosedLoop()) {
      g.writeNumberField("concurrency", load.concurrency());
    }
    if (load.arrivalProcess().isPresent() && load.arrivalProcess().get().nominalRate().isPresent()) {
      g.writeNumberField("requested_rate_rps", load.arrivalProcess().get().nominalRate().getAsDouble());
    }
    if (load.requests().isPresent()) {
      g.writeNumberField("requests", load.requests().getAsInt());
    }
    if (load.duration().isPresent()) {
      g.writeNumberField("duration_s", load.duration().get().toNanos() / 1e9);
    }
    g.writeNumberField("warmup_requests", load.warmupRequests());
    g.writeNumberField("seed", load.seed());
    g.writeNumberField("shard_index", load.shardIndex());
    g.writeNumberField("shard_count", load.shardCount());
    g.writeEndObject();
  }

  private static void writeParams(JsonGenerator g, GenerationParams p) throws IOException {
    g.writeObjectFieldStart("params");
    g.writeBooleanField("stream", p.stream());
    if (p.maxTokens().isPresent()) {
      g.writeNumberField("max_tokens", p.maxTokens().getAsInt());
    }
    if (p.temperature().isPresent()) {
      g.writeNumberField("temperature", p.temperature().getAsDouble());
    }
    g.writeBooleanField("ignore_eos", p.ignoreEos());
    g.writeEndObject();
  }

  private static void writeEnvironment(JsonGenerator g, RunEnvironment env) throws IOException {
    g.writeObjectFieldStart("environment");
    g.writeStringField("java_version", env.javaVersion());
    g.writeStringField("java_vendor", env.javaVendor());
    g.writeStringField("os_name", env.osName());
    g.writeStringField("os_arch", env.osArch());
    g.writeNumberField("available_processors", env.availableProcessors());
    g.writeNumberField("max_heap_bytes", env.maxHeapBytes());
    g.writeBooleanField("virtual_threads", env.virtualThreads());
    g.writeEndObject();
  }

  /** Throws unless {@link #writeValue} can write the value. */
  static void requireWritable(Object v) {
    if (v instanceof String || v instanceof Number || v instanceof Boolean) {
      return;
    }
    if (v instanceof Map<?, ?> m) {
      m.values().forEach(JournalFormat::requireWritable);
      return;
    }
    if (v instanceof List<?> list) {
      list.forEach(JournalFormat::requireWritable);
      return;
    }
    throw new IllegalArgumentException("a journal's context holds strings, numbers, booleans, lists and maps, not "
        + (v == null ? "null" : v.getClass().getName()));
  }

  /** Writes strings, numbers, booleans, and lists and maps of them. */
  private static void writeValue(JsonGenerator g, Object v) throws IOException {
    if (v instanceof String s) {
      g.writeString(s);
    } else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
      g.writeNumber(((Number) v).longValue());
    } else if (v instanceof Number n) {
      g.writeNumber(n.doubleValue());
    } else if (v instanceof Boolean b) {
      g.writeBoolean(b);
    } else if (v instanceof Map<?, ?> m) {
      g.writeStartObject();
      for (Map.Entry<?, ?> e : m.entrySet()) {
        g.writeFieldName(String.valueOf(e.getKey()));
        writeValue(g, e.getValue());
      }
      g.writeEndObject();
    } else if (v instanceof List<?> list) {
      g.writeStartArray();
      for (Object o : list) {
        writeValue(g, o);
      }
      g.writeEndArray();
    } else {
      throw new IllegalArgumentException("a journal's context holds strings, numbers, booleans, lists and maps, not "
          + (v == null ? "null" : v.getClass().getName()));
    }
  }
}
