package io.infermark.metrics.report;

import static io.infermark.metrics.report.JsonFields.lower;
import static io.infermark.metrics.report.JsonFields.names;
import static io.infermark.metrics.report.JsonFields.number;
import static io.infermark.metrics.report.JsonFields.seconds;

import com.fasterxml.jackson.core.JsonGenerator;
import io.infermark.core.RunEnvironment;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.health.ClientMeasurements;
import io.infermark.core.health.LatencyStats;
import io.infermark.core.health.ProbeReading;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.metrics.RunInfo;
import java.io.IOException;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * The run-facts sections of the infermark JSON report ({@link JsonReport}): the run, its interruption, load, generation
 * parameters, environment, target availability and the client's health with its measurements.
 */
final class RunFactsJson {

  private RunFactsJson() {}

  static void writeRun(JsonGenerator g, RunInfo run) throws IOException {
    g.writeObjectFieldStart("run");
    g.writeStringField("started_at", run.startedAt().toString());
    g.writeNumberField("duration_ms", run.durationNanos() / 1e6);
    g.writeStringField("target", run.target());
    g.writeNumberField("prompt_count", run.promptCount());
    g.writeBooleanField("insecure_tls", run.insecureTls());
    if (run.insecureTls()) {
      g.writeStringField("warning", io.infermark.metrics.RunInfo.INSECURE_TLS_WARNING);
    }
    writeLoad(g, run.load());
    writeParams(g, run.params());
    writeEnvironment(g, run.environment());
    writeInterruption(g, run.interruption());
    g.writeEndObject();
  }
  /** {@code null} for a run that ended by its own limits, else why, when and what became of its requests. */
  static void writeInterruption(JsonGenerator g, Optional<io.infermark.core.Interruption> how)
      throws IOException {
    g.writeFieldName("interruption");
    if (how.isEmpty()) {
      g.writeNull();
      return;
    }
    io.infermark.core.Interruption i = how.get();
    g.writeStartObject();
    g.writeStringField("reason", i.reason());
    g.writeStringField("at", i.at().toString());
    g.writeNumberField("at_s", i.atNanos() / 1e9);
    g.writeNumberField("completed", i.completed());
    g.writeNumberField("cancelled", i.cancelled());
    g.writeNumberField("not_sent", i.notSent());
    g.writeNumberField("unknown", i.unknown());
    g.writeEndObject();
  }
  static void writeLoad(JsonGenerator g, LoadProfile load) throws IOException {
    g.writeObjectFieldStart("load");
    g.writeStringField("description", load.toString());
    g.writeStringField("mode", load.isClosedLoop() ? "closed_loop" : "open_loop");
    number(g, "concurrency", load.isClosedLoop() ? OptionalInt.of(load.concurrency()) : OptionalInt.empty());
    g.writeFieldName("arrival_process");
    if (load.arrivalProcess().isPresent()) {
      g.writeString(load.arrivalProcess().get().toString());
    } else {
      g.writeNull();
    }
    number(g, "requested_rate_rps", load.arrivalProcess().map(a -> a.nominalRate()).orElse(OptionalDouble.empty()));
    number(g, "requests", load.requests());
    seconds(g, "duration_s", load.duration());
    g.writeNumberField("warmup_requests", load.warmupRequests());
    number(g, "max_in_flight", load.maxInFlight());
    g.writeNumberField("seed", load.seed());
    seconds(g, "drain_timeout_s", Optional.of(load.drainTimeout()));
    seconds(g, "timeout_s", load.timeout());
    g.writeEndObject();
  }
  static void writeParams(JsonGenerator g, GenerationParams p) throws IOException {
    g.writeObjectFieldStart("params");
    g.writeBooleanField("stream", p.stream());
    number(g, "max_tokens", p.maxTokens());
    number(g, "temperature", p.temperature());
    g.writeBooleanField("ignore_eos", p.ignoreEos());
    // Names only, as GenerationParams.toString does: values can be large, and headers can hold secrets.
    names(g, "extra_body_fields", p.extraBody().keySet());
    names(g, "header_names", p.headers().keySet());
    g.writeEndObject();
  }
  static void writeEnvironment(JsonGenerator g, RunEnvironment env) throws IOException {
    g.writeObjectFieldStart("environment");
    g.writeStringField("java_version", env.javaVersion());
    g.writeStringField("java_vendor", env.javaVendor().strip());
    g.writeStringField("os_name", env.osName().strip());
    g.writeStringField("os_arch", env.osArch());
    g.writeNumberField("available_processors", env.availableProcessors());
    g.writeNumberField("max_heap_bytes", env.maxHeapBytes());
    g.writeBooleanField("virtual_threads", env.virtualThreads());
    g.writeEndObject();
  }
  static void writeAvailability(JsonGenerator g, io.infermark.metrics.TargetAvailability a) throws IOException {
    g.writeObjectFieldStart("availability");
    g.writeNumberField("unreachable_s", a.unreachableNanos() / 1e9);
    g.writeNumberField("outages", a.outages());
    g.writeNumberField("connection_failures", a.connectionFailures());
    g.writeNumberField("retry_after_answers", a.retryAfterAnswers());
    g.writeArrayFieldStart("retry_after_values");
    for (String v : a.retryAfterValues()) {
      g.writeString(v);
    }
    g.writeEndArray();
    g.writeEndObject();
  }
  static void writeClientHealth(JsonGenerator g, ClientHealth h) throws IOException {
    g.writeObjectFieldStart("client_health");
    g.writeStringField("verdict", lower(h.verdict()));
    g.writeArrayFieldStart("reasons");
    for (String r : h.reasons()) {
      g.writeString(r);
    }
    g.writeEndArray();
    g.writeNumberField("floor_ms", h.floorMillis());
    g.writeArrayFieldStart("error_bounds");
    for (io.infermark.core.health.MetricBound b : h.bounds()) {
      g.writeStartObject();
      g.writeStringField("metric", b.metric().toLowerCase(java.util.Locale.ROOT));
      g.writeNumberField("bound_ms", b.boundNanos() / 1e6);
      g.writeNumberField("p50_ms", b.p50Nanos() / 1e6);
      g.writeNumberField("p99_ms", b.p99Nanos() / 1e6);
      double p50 = b.shareOfP50();
      double p99 = b.shareOfP99();
      if (Double.isFinite(p50)) {
        g.writeNumberField("share_of_p50", p50);
      } else {
        g.writeNullField("share_of_p50");
      }
      if (Double.isFinite(p99)) {
        g.writeNumberField("share_of_p99", p99);
      } else {
        g.writeNullField("share_of_p99");
      }
      g.writeBooleanField("judged", b.judged());
      g.writeEndObject();
    }
    g.writeEndArray();
    if (h.measurements().isEmpty()) {
      for (String field : new String[] {"monitored_s", "hiccup", "cpu", "gc", "sends"}) {
        g.writeNullField(field);
      }
      g.writeArrayFieldStart("probes");
      g.writeEndArray();
      g.writeEndObject();
      return;
    }
    ClientMeasurements m = h.measurements().get();
    g.writeNumberField("monitored_s", m.wallNanos() / 1e9);
    g.writeFieldName("hiccup");
    latencyStats(g, m.hiccup());
    g.writeObjectFieldStart("cpu");
    number(g, "process_cores", m.cpu().coresUsed());
    number(g, "share_of_cores", m.cpu().shareOfCores());
    g.writeNumberField("available_processors", m.cpu().availableProcessors());
    number(g, "system_load_average", m.cpu().systemLoadAverage());
    number(g, "machine_busy_share", m.machine().busyShare());
    if (m.machine().localServer().isPresent()) {
      g.writeStringField("local_server", m.machine().localServer().get());
    } else {
      g.writeNullField("local_server");
    }
    g.writeEndObject();
    if (m.runQueue().isMeasured()) {
      g.writeObjectFieldStart("run_queue");
      g.writeNumberField("threads", m.runQueue().threads());
      g.writeNumberField("run_ms", m.runQueue().runNanos() / 1e6);
      g.writeNumberField("wait_ms", m.runQueue().waitNanos() / 1e6);
      number(g, "wait_per_run", m.runQueue().waitPerRun());
      g.writeEndObject();
    }
    g.writeObjectFieldStart("gc");
    g.writeNumberField("pauses", m.gc().count());
    g.writeNumberField("total_ms", m.gc().totalNanos() / 1e6);
    g.writeNumberField("max_ms", m.gc().maxNanos() / 1e6);
    g.writeEndObject();
    g.writeObjectFieldStart("sends");
    g.writeBooleanField("judged", m.sends().judged());
    g.writeNumberField("lag_p99_ms", m.sends().lagP99Nanos() / 1e6);
    number(g, "scheduled_rate_rps", m.sends().scheduledRate());
    g.writeNumberField("achieved_rate_rps", m.sends().achievedRate());
    g.writeEndObject();
    g.writeArrayFieldStart("probes");
    for (ProbeReading p : m.probes()) {
      g.writeStartObject();
      g.writeStringField("name", p.name());
      writeLatencyStatsFields(g, p.lateness());
      g.writeEndObject();
    }
    g.writeEndArray();
    g.writeEndObject();
  }
  static void latencyStats(JsonGenerator g, LatencyStats l) throws IOException {
    g.writeStartObject();
    writeLatencyStatsFields(g, l);
    g.writeEndObject();
  }
  static void writeLatencyStatsFields(JsonGenerator g, LatencyStats l) throws IOException {
    g.writeNumberField("samples", l.samples());
    g.writeNumberField("p50_ms", l.p50Nanos() / 1e6);
    g.writeNumberField("p99_ms", l.p99Nanos() / 1e6);
    g.writeNumberField("p99_9_ms", l.p999Nanos() / 1e6);
    g.writeNumberField("max_ms", l.maxNanos() / 1e6);
  }
}
