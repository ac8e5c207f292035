package io.infermark.metrics.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.RunInfo;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.TestRuns;
import java.io.StringReader;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A run whose TLS was not verified says so at the top of every report, and its records keep the
 * mark, their retries and their redirects through JSONL.
 */
class InsecureTlsReportsTest {

  private static RunResult insecureRun() {
    return TestRuns.run(TestRuns.mixedRun().records().stream()
        .map(r -> r.toBuilder().insecureTls(true).build()).toList());
  }

  @Test
  void aRunWithAnInsecureRecordIsInsecure() {
    assertThat(insecureRun().insecureTls()).isTrue();
    assertThat(TestRuns.mixedRun().insecureTls()).isFalse();
    assertThat(RunInfo.of(insecureRun()).insecureTls()).isTrue();
  }

  @Test
  void everyReportCarriesTheBanner() throws Exception {
    RunSummary insecure = RunSummary.of(insecureRun());
    RunSummary secure = RunSummary.of(TestRuns.mixedRun());

    assertThat(ConsoleTable.render(insecure)).contains("WARNING: TLS verification was OFF");
    assertThat(ConsoleTable.render(secure)).doesNotContain("TLS verification");

    JsonNode json = new ObjectMapper().readTree(JsonReport.toJson(insecure));
    assertThat(json.findValue("insecure_tls").asBoolean()).isTrue();
    assertThat(json.findValue("warning").asText()).isEqualTo(RunInfo.INSECURE_TLS_WARNING);
    assertThat(new ObjectMapper().readTree(JsonReport.toJson(secure)).findValue("insecure_tls").asBoolean()).isFalse();

    String html = HtmlReport.builder(insecureRun()).build().html();
    assertThat(html).contains("<strong>Insecure TLS</strong>");
    assertThat(HtmlReport.builder(TestRuns.mixedRun()).build().html()).doesNotContain("Insecure TLS");
  }

  @Test
  void jsonlKeepsTheMarkRetriesAndRedirects() {
    RequestRecord marked = RequestRecord.builder().index(4).httpStatus(200).retries(1).redirects(2)
        .finalUrl("https://other.example/v1/chat/completions").insecureTls(true).endOffsetNanos(5).build();
    RequestRecord plain = RequestRecord.builder().index(5).httpStatus(200).endOffsetNanos(5).build();
    StringWriter out = new StringWriter();

    RecordsJsonl.write(List.of(marked, plain), out);

    String[] lines = out.toString().split("\n");
    assertThat(lines[0]).contains("\"retries\":1", "\"redirects\":2",
        "\"final_url\":\"https://other.example/v1/chat/completions\"", "\"insecure_tls\":true");
    assertThat(lines[1]).doesNotContain("retries", "redirects", "final_url", "insecure_tls");
    assertThat(RecordsJsonl.read(new StringReader(out.toString()))).containsExactly(marked, plain);
  }
}
