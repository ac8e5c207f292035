package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.cli.InfermarkCliTest.Outcome;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Seed 000's Locust command line runs as {@code infermark bench} and writes Locust's four CSV files. */
class LocustCliTest {

  /** Locust's columns, as locust/stats.py's StatsCSV writes them (default percentiles). */
  private static final List<String> PERCENTILES = List.of("50%", "66%", "75%", "80%", "90%", "95%", "98%", "99%",
      "99.9%", "99.99%", "100%");

  @TempDir
  Path dir;

  private static List<String> with(List<String> head, List<String> tail) {
    List<String> all = new ArrayList<>(head);
    all.addAll(tail);
    return all;
  }

  private static List<String> header(Path csv) throws IOException {
    return List.of(Files.readAllLines(csv).get(0).split(",", -1));
  }

  @Test
  void seed000sLocustLineRunsAndWritesLocustsCsvFiles() throws IOException {
    String line = VllmDocCommandsTest.fixture("seed-commands.txt").stream().filter(l -> l.startsWith("locust "))
        .findFirst().orElseThrow();
    try (Simulator sim = Simulator.start(SimulatorConfig.builder().port(0).timeToFirstToken(Duration.ofMillis(2))
        .interTokenInterval(Duration.ofMillis(2)).build())) {
      List<String> args = new ArrayList<>(List.of("bench"));
      for (String w : VllmDocCommandsTest.words(line).subList(1, VllmDocCommandsTest.words(line).size())) {
        args.add(w.equals("https://api.example.ai/v1/chat") ? "http://127.0.0.1:" + sim.port() + "/v1/chat" : w);
      }
      args.addAll(List.of("--run-time", "3s", "--result-dir", dir.toString(), "--progress", "none"));
      Outcome o = InfermarkCliTest.run(args.toArray(String[]::new));

      assertThat(o.code()).as("%s%n%s", o.out(), o.err()).isZero();
      assertThat(o.out()).contains("locustfile.py: infermark does not run Locust's Python; it sends instead",
          "chat completions with a system and a user message");
      Path prefix = dir.resolve("ai_benchmark_20240520");
      assertThat(header(Path.of(prefix + "_stats.csv"))).isEqualTo(with(List.of("Type", "Name", "Request Count",
          "Failure Count", "Median Response Time", "Average Response Time", "Min Response Time", "Max Response Time",
          "Average Content Size", "Requests/s", "Failures/s"), PERCENTILES));
      assertThat(header(Path.of(prefix + "_stats_history.csv"))).isEqualTo(with(with(List.of("Timestamp",
          "User Count", "Type", "Name", "Requests/s", "Failures/s"), PERCENTILES), List.of("Total Request Count",
          "Total Failure Count", "Total Median Response Time", "Total Average Response Time",
          "Total Min Response Time", "Total Max Response Time", "Total Average Content Size")));
      assertThat(header(Path.of(prefix + "_failures.csv"))).containsExactly("Method", "Name", "Error", "Occurrences");
      assertThat(header(Path.of(prefix + "_exceptions.csv"))).containsExactly("Count", "Message", "Traceback",
          "Nodes");

      List<String> stats = Files.readAllLines(Path.of(prefix + "_stats.csv"));
      assertThat(stats).hasSize(3);
      String[] endpoint = stats.get(1).split(",");
      String[] aggregated = stats.get(2).split(",");
      assertThat(endpoint[0]).isEqualTo("POST");
      assertThat(endpoint[1]).isEqualTo("/v1/chat/completions");
      assertThat(aggregated[1]).isEqualTo("Aggregated");
      // the counts are the run's: vLLM's completed + failed (sent requests) in its result file
      try (Stream<Path> files = Files.list(dir)) {
        Path vllm = files.filter(p -> p.toString().endsWith(".json") && !p.toString().endsWith(".infermark.json"))
            .findFirst().orElseThrow();
        JsonNode r = new ObjectMapper().readTree(vllm.toFile());
        assertThat(Long.parseLong(aggregated[2])).isPositive()
            .isEqualTo(r.get("completed").asLong() + r.get("failed").asLong());
        assertThat(Long.parseLong(aggregated[3])).isEqualTo(r.get("failed").asLong());
      }
      List<String> history = Files.readAllLines(Path.of(prefix + "_stats_history.csv"));
      assertThat(history.size()).isGreaterThanOrEqualTo(3); // header and a row a second of the 3 s run
      int lastUsers = 0;
      for (String row : history.subList(1, history.size())) {
        String[] f = row.split(",");
        assertThat(f[3]).isEqualTo("Aggregated");
        int users = Integer.parseInt(f[1]);
        assertThat(users).as("users never exceed the 30 spawned in 3 s at 10/s").isBetween(lastUsers, 30);
        lastUsers = users;
      }
    }
  }

  @Test
  void withALocustfileTheChatRequestsCarryASystemAndAUserMessage() throws IOException {
    try (WireCapture server = new WireCapture()) {
      Outcome o = InfermarkCliTest.run("bench", "-f", "locustfile.py", "--headless", "--host", server.baseUrl()
          + "/v1/chat", "--model", "m", "-u", "2", "-r", "2", "-t", "1s", "--random-input-len", "8",
          "--random-output-len", "2", "--result-dir", dir.toString(), "--progress", "none", "--no-html");

      assertThat(o.code()).as("%s%n%s", o.out(), o.err()).isZero();
      List<WireCapture.Received> all = server.received();
      assertThat(all.size()).isGreaterThan(1);
      for (WireCapture.Received r : all.subList(1, all.size())) {
        assertThat(r.path()).isEqualTo("/v1/chat/completions");
        JsonNode messages = r.body().get("messages");
        assertThat(messages.get(0).get("role").asText()).isEqualTo("system");
        assertThat(messages.get(1).get("role").asText()).isEqualTo("user");
      }
    }
  }
}
