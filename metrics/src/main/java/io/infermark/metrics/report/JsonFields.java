package io.infermark.metrics.report;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.Set;

/** Small field writers the JSON report sections share: nulls for absent or non-finite numbers, lower-cased enums. */
final class JsonFields {

  private JsonFields() {}

  /** An object of enum keys, lower-cased, to their counts; the maps hold only non-zero counts. */
  static void counts(JsonGenerator g, String name, Map<? extends Enum<?>, Integer> counts)
      throws IOException {
    g.writeObjectFieldStart(name);
    for (Map.Entry<? extends Enum<?>, Integer> e : counts.entrySet()) {
      g.writeNumberField(lower(e.getKey()), e.getValue());
    }
    g.writeEndObject();
  }
  static void names(JsonGenerator g, String name, Set<String> names) throws IOException {
    g.writeArrayFieldStart(name);
    for (String n : names) {
      g.writeString(n);
    }
    g.writeEndArray();
  }
  static void number(JsonGenerator g, String name, OptionalDouble v) throws IOException {
    // JSON has no infinity (a Hill index over identical values is infinite): write null instead.
    if (v.isPresent() && Double.isFinite(v.getAsDouble())) {
      g.writeNumberField(name, v.getAsDouble());
    } else {
      g.writeNullField(name);
    }
  }

  static void number(JsonGenerator g, String name, OptionalInt v) throws IOException {
    if (v.isPresent()) {
      g.writeNumberField(name, v.getAsInt());
    } else {
      g.writeNullField(name);
    }
  }

  /** A finite number, or null: JSON has no infinity or NaN. */
  static void number(JsonGenerator g, String name, double v) throws IOException {
    if (Double.isFinite(v)) {
      g.writeNumberField(name, v);
    } else {
      g.writeNullField(name);
    }
  }

  static void seconds(JsonGenerator g, String name, Optional<Duration> d) throws IOException {
    if (d.isPresent()) {
      g.writeNumberField(name, d.get().toNanos() / 1e9);
    } else {
      g.writeNullField(name);
    }
  }

  static String lower(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT);
  }
}
