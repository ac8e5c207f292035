package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The progress line on a terminal fits its width, so rewriting it in place leaves no wrapped rows behind. */
class LiveProgressTest {

  @Test
  void terminalLineNeverReachesTheLastColumn() {
    StringWriter text = new StringWriter();
    LiveProgress progress = new LiveProgress(new PrintWriter(text), true, Duration.ZERO, 40);
    try (Simulator sim = Simulator.start(SimulatorConfig.builder().port(0).timeToFirstToken(Duration.ofMillis(2))
        .interTokenInterval(Duration.ofMillis(1)).build());
        OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", sim.config().model()).build()) {
      Benchmark.target(target).prompts(Prompt.user("Hi")).params(GenerationParams.builder().maxTokens(4).build())
          .load(LoadProfile.concurrency(4).requests(40)).listener(progress).run();
    }

    List<String> rows = List.of(text.toString().split("[\r\n]+"));
    assertThat(rows).hasSizeGreaterThan(10);
    assertThat(rows).allSatisfy(r -> assertThat(r.length()).as(r).isLessThanOrEqualTo(39));
    assertThat(rows.get(rows.size() - 1)).startsWith("[40/40 100.0%]");
  }

  @Test
  void shortensByDroppingTheLeastUsefulPartsFirst() {
    LiveProgress progress = new LiveProgress(new PrintWriter(new StringWriter()), true, Duration.ZERO, 200);
    long[] now = {0};
    progress.onRunStarted(new io.infermark.core.RunStart(java.time.Instant.EPOCH, 0, () -> now[0], "t",
        LoadProfile.concurrency(1).requests(200), GenerationParams.defaults(), java.util.OptionalLong.of(200)));
    now[0] = 12_000_000_000L;

    assertThat(progress.line(now[0])).isEqualTo("[  0/200   0.0%] 00:00:12 elapsed, 0.0 req/s, 0 in flight, 0 errors");
    assertThat(progress.line(now[0], 50)).isEqualTo("[  0/200   0.0%] 00:00:12 elapsed, 0 errors");
    assertThat(progress.line(now[0], 30)).isEqualTo("[  0/200   0.0%], 0 errors");
    assertThat(progress.line(now[0], 10)).isEqualTo("[  0/200  ");
  }

  @Test
  void requestsAStopLeftUnsentAreNeitherDoneNorErrors() {
    LiveProgress progress = new LiveProgress(new PrintWriter(new StringWriter()), false, Duration.ofHours(1));
    long[] now = {0};
    progress.onRunStarted(new io.infermark.core.RunStart(java.time.Instant.EPOCH, 0, () -> now[0], "t",
        LoadProfile.concurrency(1).requests(10), GenerationParams.defaults(), java.util.OptionalLong.of(10)));
    for (int i = 0; i < 10; i++) {
      io.infermark.core.capture.RequestRecord.Builder r = io.infermark.core.capture.RequestRecord.builder().index(i)
          .intendedNanos(i * 1_000_000_000L).sendNanos(i * 1_000_000_000L);
      if (i == 3) {
        r.failure(java.util.Optional.of(io.infermark.core.capture.Failure.of(
            io.infermark.core.capture.ErrorCategory.HTTP_STATUS, "HTTP 500")));
      } else if (i > 3) {
        r.failure(java.util.Optional.of(io.infermark.core.capture.Failure.of(
            io.infermark.core.capture.ErrorCategory.NOT_SENT, "the run was stopped before this request was sent")));
      }
      progress.onRecord(r.build());
    }
    now[0] = 8_000_000_000L; // stopped 8 s in: 4 sent and ended, 6 never sent

    assertThat(progress.line(now[0])).isEqualTo(
        "[ 4/10  40.0%] 00:00:08 elapsed, 0.5 req/s, 0 in flight, 1 error, 6 never sent, client ok (send lag p99 0.00 ms)");
  }

  @Test
  void widthComesFromColumnsWhenSet() {
    assertThat(TerminalWidth.fromEnvironment(Map.of("COLUMNS", "132"))).hasValue(132);
    assertThat(TerminalWidth.fromEnvironment(Map.of("COLUMNS", "wide"))).isEmpty();
    assertThat(TerminalWidth.fromEnvironment(Map.of("COLUMNS", "0"))).isEmpty();
    assertThat(TerminalWidth.fromEnvironment(Map.of())).isEmpty();
  }
}
