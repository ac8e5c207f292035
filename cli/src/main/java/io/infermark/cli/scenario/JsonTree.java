package io.infermark.cli.scenario;

import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * A kit's verdict as plain JSON values: records become objects of their components (snake_case names), optionals
 * their value or null, a non-finite number null, durations milliseconds, enums their lower-case name, anything else
 * its text.
 */
final class JsonTree {

  private JsonTree() {}

  static Object of(Object v) {
    if (v == null) {
      return null;
    }
    if (v instanceof Double d) {
      return Double.isFinite(d) ? d : null;
    }
    if (v instanceof Float f) {
      return Float.isFinite(f) ? f : null;
    }
    if (v instanceof Number || v instanceof Boolean || v instanceof String) {
      return v;
    }
    if (v instanceof OptionalDouble o) {
      return o.isPresent() ? of(o.getAsDouble()) : null;
    }
    if (v instanceof OptionalInt o) {
      return o.isPresent() ? o.getAsInt() : null;
    }
    if (v instanceof OptionalLong o) {
      return o.isPresent() ? o.getAsLong() : null;
    }
    if (v instanceof Optional<?> o) {
      return o.map(JsonTree::of).orElse(null);
    }
    if (v instanceof Duration d) {
      return d.toNanos() / 1e6;
    }
    if (v instanceof Enum<?> e) {
      return e.name().toLowerCase(Locale.ROOT);
    }
    if (v instanceof Path p) {
      return p.toString();
    }
    if (v instanceof Map<?, ?> m) {
      Map<String, Object> out = new LinkedHashMap<>();
      m.forEach((k, x) -> out.put(String.valueOf(k), of(x)));
      return out;
    }
    if (v instanceof Collection<?> c) {
      List<Object> out = new ArrayList<>();
      c.forEach(x -> out.add(of(x)));
      return out;
    }
    if (v instanceof double[] a) {
      List<Object> out = new ArrayList<>();
      for (double x : a) {
        out.add(of(x));
      }
      return out;
    }
    if (v instanceof int[] a) {
      return java.util.Arrays.stream(a).boxed().toList();
    }
    if (v instanceof long[] a) {
      return java.util.Arrays.stream(a).boxed().toList();
    }
    if (v.getClass().isRecord()) {
      Map<String, Object> out = new LinkedHashMap<>();
      for (RecordComponent c : v.getClass().getRecordComponents()) {
        try {
          java.lang.reflect.Method m = c.getAccessor();
          m.setAccessible(true);
          out.put(snake(c.getName()), of(m.invoke(v)));
        } catch (ReflectiveOperationException e) {
          throw new IllegalStateException("cannot read " + c.getName() + " of " + v.getClass().getSimpleName(), e);
        }
      }
      return out;
    }
    return v.toString();
  }

  /** {@code coldTtftMs} as {@code cold_ttft_ms}. */
  static String snake(String camel) {
    return camel.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
  }
}
