package io.infermark.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.infermark.core.RunResult;
import io.infermark.core.sweep.CapacityAxis;
import io.infermark.core.sweep.CapacityProbe;
import io.infermark.core.sweep.CapacityResult;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.slo.LatencySlo;
import java.io.IOException;
import java.nio.file.Path;

/**
 * {@code capacity --result-json FILE}: the search as JSON, format {@code infermark-capacity/1}.
 *
 * <pre>
 * {"format": "infermark-capacity/1",
 *  "search": "concurrency",            // or "rate": what the search varied
 *  "unit": "streams",                  // or "req/s": the unit of every level and of the capacity
 *  "objective": {"metric": "E2E", "percentile": 95.0, "threshold_ms": 2000.0},
 *  "capacity": 4 | null,               // the highest passing level; null when none passed
 *  "limited_by_max": false,            // even the highest level allowed passed
 *  "stopped_early": null | "why",      // then the capacity is a lower bound
 *  "probes": [{"level": 1, "requests": 20, "value_ms": 50.3 | null, "passed": true,
 *              "client_health": "HEALTHY", "request_throughput_rps": 19.8 | null}, ...],
 *  "warnings": ["..."]}
 * </pre>
 */
final class CapacityJson {

  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private CapacityJson() {}

  /** The search's JSON tree. */
  static ObjectNode tree(CapacityResult result, LatencySlo slo) {
    ObjectNode root = JSON.createObjectNode();
    root.put("format", "infermark-capacity/1");
    root.put("search", result.axis().word());
    root.put("unit", result.axis().unit());
    ObjectNode objective = root.putObject("objective");
    objective.put("metric", slo.metric().name());
    objective.put("percentile", slo.p() * 100);
    objective.put("threshold_ms", slo.thresholdMillis());
    boolean streams = result.axis() == CapacityAxis.CONCURRENCY;
    if (result.capacity().isPresent()) {
      level(root, "capacity", result.capacity().getAsDouble(), streams);
    } else {
      root.putNull("capacity");
    }
    root.put("limited_by_max", result.limitedByMaxRate());
    if (result.stoppedEarly().isPresent()) {
      root.put("stopped_early", result.stoppedEarly().get());
    } else {
      root.putNull("stopped_early");
    }
    ArrayNode probes = root.putArray("probes");
    for (CapacityProbe p : result.probes()) {
      ObjectNode n = probes.addObject();
      level(n, "level", p.rate(), streams);
      RunResult r = p.result();
      n.put("requests", r.schedule().sent());
      if (Double.isFinite(p.value())) {
        n.put("value_ms", p.value());
      } else {
        n.putNull("value_ms");
      }
      n.put("passed", p.passed());
      n.put("client_health", p.clientHealth().verdict().name());
      RunSummary.of(r).requestThroughputRps().ifPresentOrElse(v -> n.put("request_throughput_rps", v),
          () -> n.putNull("request_throughput_rps"));
      r.interruption().ifPresent(i -> n.put("interrupted", i.reason()));
    }
    ArrayNode warnings = root.putArray("warnings");
    result.warnings().forEach(warnings::add);
    return root;
  }

  /** Writes the search's JSON to {@code file}. */
  static void write(CapacityResult result, LatencySlo slo, Path file) throws IOException {
    JSON.writeValue(file.toFile(), tree(result, slo));
  }

  private static void level(ObjectNode n, String name, double level, boolean whole) {
    if (whole) {
      n.put(name, (long) level);
    } else {
      n.put(name, level);
    }
  }
}
