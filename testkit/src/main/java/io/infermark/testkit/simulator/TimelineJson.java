package io.infermark.testkit.simulator;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * Writes timelines as JSON for {@code GET /simulator/timelines[/{id}]}. Times are given twice:
 * as raw {@code System.nanoTime()} readings of the simulator's JVM ({@code *_nanos}, comparable
 * with a client in the same JVM) and as milliseconds after the request's arrival ({@code *_ms},
 * meaningful anywhere).
 */
final class TimelineJson {

  private final JsonFactory json;

  TimelineJson(JsonFactory json) {
    this.json = json;
  }

  /**
   * The list: summaries without per-token times, oldest first, how many were dropped by retention,
   * and the sequence number the next request will get (to ask for only newer ones with {@code ?since=}).
   */
  byte[] list(List<ServerTimeline> timelines, long dropped, long nextSequence) {
    return write(g -> {
      g.writeStartObject();
      g.writeNumberField("count", timelines.size());
      g.writeNumberField("dropped", dropped);
      g.writeNumberField("next_sequence", nextSequence);
      g.writeArrayFieldStart("timelines");
      for (ServerTimeline t : timelines) {
        writeTimeline(g, t, false);
      }
      g.writeEndArray();
      g.writeEndObject();
    });
  }

  /** One timeline with every token's write time. */
  byte[] one(ServerTimeline t) {
    return write(g -> writeTimeline(g, t, true));
  }

  private void writeTimeline(JsonGenerator g, ServerTimeline t, boolean tokens) throws IOException {
    long arrival = t.arrivalNanos();
    g.writeStartObject();
    g.writeStringField("request_id", t.requestId());
    g.writeNumberField("sequence", t.sequence());
    g.writeStringField("endpoint", t.endpoint());
    g.writeBooleanField("stream", t.streaming());
    g.writeStringField("outcome", t.outcome().name().toLowerCase(Locale.ROOT));
    if (t.status().isPresent()) {
      g.writeNumberField("status", t.status().getAsInt());
    }
    if (t.fault().isPresent()) {
      g.writeStringField("fault", t.fault().get().toString());
    }
    if (t.promptTokens().isPresent()) {
      g.writeNumberField("prompt_tokens", t.promptTokens().getAsInt());
    }
    g.writeNumberField("output_tokens", t.tokenCount());
    g.writeNumberField("arrival_nanos", arrival);
    time(g, "admission", t.admissionNanos(), arrival);
    time(g, "prefill_start", t.prefillStartNanos(), arrival);
    time(g, "prefill_end", t.prefillEndNanos(), arrival);
    time(g, "first_token", t.firstTokenNanos(), arrival);
    time(g, "last_token", t.lastTokenNanos(), arrival);
    time(g, "finish", OptionalLong.of(t.finishNanos()), arrival);
    if (t.engine().isPresent()) {
      g.writeNumberField("cached_prompt_tokens", t.engine().get().cachedPromptTokens());
    }
    long[] preemptions = t.preemptionNanos();
    g.writeArrayFieldStart("preemptions_ms");
    for (long p : preemptions) {
      g.writeNumber(ms(p - arrival));
    }
    g.writeEndArray();
    if (tokens) {
      g.writeArrayFieldStart("token_nanos");
      for (int i = 0; i < t.tokenCount(); i++) {
        g.writeNumber(t.tokenNanos(i));
      }
      g.writeEndArray();
      g.writeArrayFieldStart("token_ms");
      for (int i = 0; i < t.tokenCount(); i++) {
        g.writeNumber(ms(t.tokenNanos(i) - arrival));
      }
      g.writeEndArray();
    }
    g.writeEndObject();
  }

  private static void time(JsonGenerator g, String name, OptionalLong nanos, long arrival) throws IOException {
    if (nanos.isPresent()) {
      g.writeNumberField(name + "_nanos", nanos.getAsLong());
      g.writeNumberField(name + "_ms", ms(nanos.getAsLong() - arrival));
    }
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }

  private interface Body {
    void write(JsonGenerator g) throws IOException;
  }

  private byte[] write(Body body) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
    try (JsonGenerator g = json.createGenerator(out)) {
      body.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not fail
    }
    return out.toByteArray();
  }
}
