package io.infermark.metrics.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.RunResult;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.health.ClientMeasurements;
import io.infermark.core.health.CpuUsage;
import io.infermark.core.health.GcPauses;
import io.infermark.core.health.HealthThresholds;
import io.infermark.core.health.HealthVerdict;
import io.infermark.core.health.LatencyStats;
import io.infermark.core.health.ProbeReading;
import io.infermark.core.health.RunQueueWait;
import io.infermark.core.health.SendFigures;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.TestRuns;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Every report shows the run's client health: the verdict, its reasons and the measurement floor. */
class ClientHealthReportsTest {

  private static final long MS = 1_000_000;

  /** A starved client: 12.3 ms hiccup p99, 1.9 of 2 cores, and a probe with a hostile name. */
  private static ClientHealth starved() {
    ClientMeasurements m = new ClientMeasurements(2_000 * MS, new LatencyStats(1900, 80_000, 12_300_000, 20 * MS,
        25 * MS), new CpuUsage(OptionalLong.of(3_800 * MS), 2_000 * MS, 2, OptionalDouble.of(3.5)),
        new RunQueueWait(1_800 * MS, 900 * MS, 5), new GcPauses(2, 6 * MS, 4 * MS),
        List.of(new ProbeReading("<b>loop</b>", new LatencyStats(200, 10_000,
            300_000, 400_000, 500_000))), new SendFigures(true, 100, 200_000, OptionalDouble.of(50), 49.9));
    return ClientHealth.evaluate(m, HealthThresholds.defaults());
  }

  private static RunSummary summary(ClientHealth health) {
    return RunSummary.of(TestRuns.mixedRun().withClientHealth(health));
  }

  @Test
  void theHealthIsWhatTheFiguresSay() {
    ClientHealth h = starved();
    assertThat(h.verdict()).isEqualTo(HealthVerdict.CLIENT_BOUND);
    assertThat(h.reasons()).hasSize(2);
    assertThat(h.floorNanos()).isEqualTo(12_300_000);
    assertThat(summary(h).clientHealth()).isEqualTo(h);
    assertThat(summary(h).toString()).startsWith("RunSummary[client CLIENT_BOUND, ");
  }

  @Test
  void theConsoleTableOpensWithAWarningAndEndsWithTheFigures() {
    String table = ConsoleTable.render(summary(starved()));

    assertThat(table).contains("\nWARNING: client CLIENT_BOUND, differences below 12.300 ms are client noise\n"
        + "  The client could not keep up: these figures describe it as much as the server.\n"
        + "  - hiccup p99 12.3 ms > 10 ms: the client's threads could not run on time\n"
        + "  - process CPU 1.90 of 2 cores (95 %) > 90 %: the client ran out of CPU (a server in the same JVM\n"
        + "    counts too)\n");
    assertThat(table).contains("\nClient      CLIENT_BOUND, floor 12.300 ms, hiccup p50 0.080 p99 12.300 p99.9 "
        + "20.000 max 25.000 ms,");
    assertThat(table).contains("CPU 1.90 of 2 cores (95 %)", "load average 3.50",
        "run-queue wait 900.000 ms per 1800.000 ms run (0.50)", "GC 2 pauses, total 6.000 ms, "
        + "max 4.000 ms", "<b>loop</b> lag p99 0.300 ms");
    assertThat(table.lines()).allMatch(l -> l.length() <= ConsoleTable.WIDTH);
  }

  @Test
  void anOkOrUnmeasuredRunHasNoWarning() {
    RunResult ok = TestRuns.mixedRun().withClientHealth(starved().reevaluate(HealthThresholds.builder()
        .hiccupP99(java.time.Duration.ofMillis(50), java.time.Duration.ofMillis(50)).cpuShare(1, 1).build()));
    assertThat(ok.clientHealth().verdict()).isEqualTo(HealthVerdict.OK);

    assertThat(ConsoleTable.render(RunSummary.of(ok))).doesNotContain("WARNING").contains("\nClient      OK, floor "
        + "12.300 ms, ");
    assertThat(ConsoleTable.render(RunSummary.of(TestRuns.mixedRun()))).doesNotContain("WARNING")
        .contains("\nClient      unmeasured\n");
  }

  @Test
  void theJsonReportHasAClientHealthObject() throws Exception {
    JsonNode h = new ObjectMapper().readTree(JsonReport.toJson(summary(starved()))).get("client_health");

    assertThat(h.get("verdict").asText()).isEqualTo("client_bound");
    assertThat(h.get("reasons")).hasSize(2);
    assertThat(h.get("reasons").get(0).asText()).isEqualTo(
        "hiccup p99 12.3 ms > 10 ms: the client's threads could not run on time");
    assertThat(h.get("floor_ms").asDouble()).isEqualTo(12.3);
    assertThat(h.get("monitored_s").asDouble()).isEqualTo(2.0);
    assertThat(h.get("hiccup").get("p99_ms").asDouble()).isEqualTo(12.3);
    assertThat(h.get("hiccup").get("samples").asLong()).isEqualTo(1900);
    assertThat(h.get("cpu").get("process_cores").asDouble()).isEqualTo(1.9);
    assertThat(h.get("cpu").get("share_of_cores").asDouble()).isEqualTo(0.95);
    assertThat(h.get("cpu").get("system_load_average").asDouble()).isEqualTo(3.5);
    assertThat(h.get("run_queue").get("threads").asInt()).isEqualTo(5);
    assertThat(h.get("run_queue").get("run_ms").asDouble()).isEqualTo(1800.0);
    assertThat(h.get("run_queue").get("wait_ms").asDouble()).isEqualTo(900.0);
    assertThat(h.get("run_queue").get("wait_per_run").asDouble()).isEqualTo(0.5);
    assertThat(h.get("gc").get("pauses").asInt()).isEqualTo(2);
    assertThat(h.get("gc").get("max_ms").asDouble()).isEqualTo(4.0);
    assertThat(h.get("sends").get("judged").asBoolean()).isTrue();
    assertThat(h.get("sends").get("scheduled_rate_rps").asDouble()).isEqualTo(50.0);
    assertThat(h.get("probes").get(0).get("name").asText()).isEqualTo("<b>loop</b>");

    JsonNode unmeasured = new ObjectMapper().readTree(JsonReport.toJson(RunSummary.of(TestRuns.mixedRun())))
        .get("client_health");
    assertThat(unmeasured.get("verdict").asText()).isEqualTo("unmeasured");
    assertThat(unmeasured.get("floor_ms").asDouble()).isZero();
    assertThat(unmeasured.get("hiccup").isNull()).isTrue();
    assertThat(unmeasured.get("probes")).isEmpty();
    assertThat(unmeasured.has("run_queue")).isFalse();
  }

  @Test
  void theHtmlReportShowsAnEscapedBannerWhenTheClientWasNotOk() {
    String html = HtmlReport.builder(TestRuns.mixedRun().withClientHealth(starved())).build().html();

    assertThat(html).contains("<div class='banner bound' role='alert'><strong>Client CLIENT BOUND</strong>",
        "<li>hiccup p99 12.3 ms &gt; 10 ms: the client&#39;s threads could not run on time</li>",
        "Measurement floor 12.3 ms.", "<h2>Client health</h2>", "&lt;b&gt;loop&lt;/b&gt; lag p99 / max (ms)",
        "client threads: waited for a core / ran (ms)</td><td>900 / 1800 (0.50)");
    assertThat(html).doesNotContain("<b>loop</b>");
    assertThat(html.indexOf("class='banner")).isLessThan(html.indexOf("<h2>Latency</h2>"));

    String sweep = HtmlReport.builder(summary(starved())).sweep(List.of(new LoadCurvePoint("8 req/s", 8,
        summary(starved())))).build().html();
    assertThat(sweep).contains("<th>client</th>", "<span class='warn' title='hiccup p99 12.3 ms &gt; 10 ms: the "
        + "client&#39;s threads could not run on time; process CPU");

    String ok = HtmlReport.builder(TestRuns.mixedRun()).build().html();
    assertThat(ok).doesNotContain("class='banner").contains("Not measured");
  }

  @Test
  void csvAndComparisonsCarryTheVerdictAndTheFloor() {
    RunSummary bound = summary(starved());
    RunSummary unmeasured = RunSummary.of(TestRuns.mixedRun());

    String csv = CsvReport.toCsv(Map.of("starved", bound));
    List<String> header = CsvReport.header();
    String[] row = csv.split("\r\n")[1].split(",", -1);
    assertThat(row[header.indexOf("client_verdict")]).isEqualTo("client_bound");
    assertThat(row[header.indexOf("client_floor_ms")]).isEqualTo("12.3");

    RunComparison c = RunComparison.of("base", unmeasured, "new", bound);
    assertThat(c.warnings()).singleElement().asString().startsWith("candidate 'new': client CLIENT_BOUND: hiccup p99 12.3 ms");
    assertThat(c.floorMillis()).isEqualTo(12.3);
    assertThat(c.toJson()).contains("\"client_floor_ms\" : 12.3", "\"client_warnings\" : [ \"candidate 'new'");
    assertThat(c.toString()).contains("WARNING candidate 'new': client CLIENT_BOUND");
  }
}
