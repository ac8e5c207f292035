package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.cli.InfermarkCliTest.Outcome;
import io.infermark.testkit.simulator.SimulatorProtocol;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code infermark sim}: every option its help lists is accepted, one signal stops it, its help fits 80 columns. */
class SimCommandTest {

  private static final Pattern SERVING = Pattern.compile("serving http://127\\.0\\.0\\.1:(\\d+)/v1");

  @TempDir
  Path dir;

  private static String help() {
    Outcome o = InfermarkCliTest.run("sim", "--help");
    assertThat(o.code()).isZero();
    return o.out();
  }

  @Test
  void helpFitsEightyColumnsAndNoContinuationStartsAtColumnZero() {
    String help = help();
    List<String> lines = help.lines().toList();
    assertThat(lines).allSatisfy(l -> assertThat(l.length()).as(l).isLessThanOrEqualTo(80));
    int section = lines.indexOf("Simulator options:");
    assertThat(section).isPositive();
    assertThat(lines.subList(section + 1, lines.size())).isNotEmpty()
        .allSatisfy(l -> assertThat(l).as("a line of the simulator's options").startsWith(" "));
    assertThat(help).contains("--protocol P", "--fault stream-error:PROB:AFTER_TOKENS").doesNotContain("usage: ");
  }

  /** A value each listed option accepts, by the placeholder its help shows. */
  private static String sample(String option, String placeholder) {
    return switch (option) {
      case "--port" -> "0";
      case "--profile" -> "fixed";
      case "--protocol" -> "h2c";
      case "--cold-start-on" -> "first-request";
      case "--output-tokens" -> "4..9";
      case "--host" -> "127.0.0.1";
      case "--model" -> "m";
      case "--fault" -> "server-error:0.1";
      default -> switch (placeholder) {
        case "N" -> "3";
        case "X" -> "2.5";
        default -> throw new AssertionError("no sample value for " + option + " " + placeholder);
      };
    };
  }

  @Test
  void acceptsEveryOptionItsHelpLists() {
    Map<String, String> listed = new LinkedHashMap<>();
    Matcher m = Pattern.compile("(?<=\\s)(--[a-z][a-z0-9-]+)(?: ([A-Z][A-Z|.]*|[a-z-]+:[A-Z_:\\[\\]]+))?")
        .matcher(help().substring(help().indexOf("Simulator options:")));
    while (m.find()) {
      listed.putIfAbsent(m.group(1), m.group(2) == null ? "" : m.group(2));
    }
    listed.remove("--insecure"); // a client's flag the --protocol h2 text mentions
    assertThat(listed).containsKeys("--protocol", "--port", "--fault", "--no-prefix-caching", "--ttft-ms",
        "--swap-preemption-ms", "--scale-to-zero-ms");
    for (Map.Entry<String, String> e : listed.entrySet()) {
      List<String> args = new ArrayList<>(List.of("--cold-start-ms", "5")); // --cold-start-on and scale-to-zero need it
      args.add(e.getKey());
      if (!e.getValue().isEmpty()) {
        args.add(sample(e.getKey(), e.getValue()));
      }
      SimCommand.Setup setup = SimCommand.parse(args);
      assertThat(setup.config()).as("%s", args).isNotNull();
    }
    assertThat(SimCommand.parse(List.of("--protocol", "h2c")).protocol()).isEqualTo(SimulatorProtocol.H2C);
    assertThat(SimCommand.parse(List.of("--protocol", "h2", "--protocol", "http1")).protocol())
        .isEqualTo(SimulatorProtocol.HTTP_1_1);
    assertThat(SimCommand.parse(List.of("--port", "7")).config().port()).isEqualTo(7);
  }

  @Test
  void aBadProtocolIsAOneLineUsageError() {
    Outcome o = InfermarkCliTest.run("sim", "--protocol", "h3");
    assertThat(o.code()).isEqualTo(Infermark.USAGE);
    assertThat(o.err().strip()).isEqualTo("infermark sim: --protocol must be http1, h2c or h2, was 'h3'");
  }

  @Test
  void servesH2cThatBenchReadsAndTheFirstSigtermStopsItWithinTwoSeconds() throws Exception {
    try (ChildJvm child = ChildJvm.start(dir, List.of("sim", "--port", "0", "--protocol", "h2c", "--profile",
        "fixed", "--ttft-ms", "1", "--itl-ms", "1"))) {
      String port = child.awaitOutput(SERVING);
      assertThat(child.out()).contains("over h2c");
      Outcome bench = InfermarkCliTest.run("bench", "--base-url", "http://127.0.0.1:" + port, "--model",
          "infermark-sim", "--http2", "h2c", "--dataset-name", "random", "--random-input-len", "8",
          "--random-output-len", "4", "--num-prompts", "3", "--result-dir", dir.toString(), "--progress", "none");
      assertThat(bench.code()).as(bench.err()).isZero();
      assertThat(bench.out()).containsPattern("Successful requests: +3\\s");
      stopsOnTheFirst(child, "TERM", 143);
    }
  }

  @Test
  void theFirstSigintStopsItWithinTwoSecondsWithAStreamInFlight() throws Exception {
    ChildJvm.assumeSigintReachesTheChild();
    // a stream of 2,000 tokens 20 ms apart (40 s) is still going when the signal comes
    try (ChildJvm child = ChildJvm.start(dir, List.of("sim", "--port", "0", "--profile", "fixed", "--ttft-ms", "1",
        "--itl-ms", "20", "--output-tokens", "2000"))) {
      String port = child.awaitOutput(SERVING);
      HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      HttpResponse<java.io.InputStream> streaming = client.send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + port + "/v1/completions")).header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"infermark-sim\",\"prompt\":\"hi\",\"stream\":true,"
              + "\"max_tokens\":2000,\"ignore_eos\":true}")).build(), HttpResponse.BodyHandlers.ofInputStream());
      assertThat(streaming.statusCode()).isEqualTo(200);
      assertThat(streaming.body().read(new byte[64])).isPositive(); // the stream has started
      stopsOnTheFirst(child, "INT", 130);
      streaming.body().close();
    }
  }

  private static void stopsOnTheFirst(ChildJvm child, String signal, int code) throws Exception {
    long sent = System.nanoTime();
    child.signal(signal);
    var exit = child.exitWithin(2.0);
    double took = (System.nanoTime() - sent) / 1e9;
    assertThat(exit).as("exited within 2 s of one SIG%s (%.2f s); err: %s", signal, took, child.err())
        .contains(code);
    assertThat(child.err()).contains("SIG" + signal + ": stopping the simulator");
  }
}
