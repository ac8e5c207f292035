package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.metrics.journal.Journal;
import io.infermark.testkit.junit.InjectSimulator;
import io.infermark.testkit.junit.SimulatorExtension;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real {@code bench} process (a child JVM) interrupted by SIGINT, SIGTERM and SIGKILL, and given a result
 * directory it cannot write: nothing measured is lost, every output is whole or absent, and the exit code
 * says what happened.
 */
class DurableBenchTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int PROMPTS = 400;
  private static final int DRAIN_SECONDS = 3;
  @InjectSimulator
  private Simulator sim;

  @TempDir
  Path dir;

  /** The bench processes a test started: none outlives it, whatever it asserted. */
  private final List<Process> started = new ArrayList<>();

  @org.junit.jupiter.api.AfterEach
  void killLeftovers() throws InterruptedException {
    for (Process p : started) {
      if (p.isAlive()) {
        p.destroyForcibly();
        p.waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  // 40 tokens 20 ms apart: each request streams for about 0.8 s, so a run of 400 at 20 req/s takes 20 s.
  @RegisterExtension
  static final SimulatorExtension SIMULATOR = SimulatorExtension.withConfig(
      SimulatorConfig.builder().port(0).timeToFirstToken(Duration.ofMillis(5))
        .interTokenInterval(Duration.ofMillis(20)).build());

  /** bench's arguments with some flags' values replaced ({@code flag, value} pairs) or added. */
  private List<String> benchArgsWith(String... flagValuePairs) {
    List<String> args = benchArgs();
    for (int i = 0; i < flagValuePairs.length; i += 2) {
      int at = args.indexOf(flagValuePairs[i]);
      if (at >= 0) {
        args.set(at + 1, flagValuePairs[i + 1]);
      } else {
        args.add(flagValuePairs[i]);
        args.add(flagValuePairs[i + 1]);
      }
    }
    return args;
  }

  private List<String> benchArgs(String... extra) {
    List<String> args = new ArrayList<>(List.of("bench", "--backend", "openai-chat", "--base-url",
        "http://127.0.0.1:" + sim.port(), "--model", sim.config().model(), "--dataset-name", "random",
        "--random-input-len", "16", "--random-output-len", "40", "--ignore-eos", "--num-prompts",
        Integer.toString(PROMPTS), "--request-rate", "20", "--seed", "3", "--progress", "none",
        "--result-dir", dir.toString(), "--result-filename", "run.json", "--drain-timeout",
        Integer.toString(DRAIN_SECONDS)));
    args.addAll(List.of(extra));
    return args;
  }

  /** A bench process in a JVM of its own, its output going to files in the temp dir. */
  /**
   * A command run in the background by a shell without job control ({@code mvn verify &}, some CI runners) starts
   * with SIGINT ignored, and its children inherit that: the JVM then installs no SIGINT handler, as it must not.
   * The child JVM gets SIGINT's default back through coreutils' {@code env --default-signal}; where that is
   * missing and SIGINT is ignored here, the SIGINT tests are skipped and say why.
   */
  private static final List<String> DEFAULT_SIGINT = defaultSigint();

  private static List<String> defaultSigint() {
    try {
      Process p = new ProcessBuilder("env", "--default-signal=INT", "true").redirectErrorStream(true).start();
      p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
      if (p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0) {
        return List.of("env", "--default-signal=INT");
      }
    } catch (IOException | InterruptedException e) {
      // no env that can: the check below decides
    }
    return List.of();
  }

  private static void assumeSigintReachesTheChild() throws IOException {
    if (!DEFAULT_SIGINT.isEmpty() || !Files.isReadable(Path.of("/proc/self/status"))) {
      return;
    }
    String ignored = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("SigIgn:"))
        .map(l -> l.substring("SigIgn:".length()).trim()).findFirst().orElse("0");
    org.junit.jupiter.api.Assumptions.assumeTrue((Long.parseLong(ignored, 16) & 2) == 0,
        "SIGINT is ignored in this process (started in the background) and env --default-signal is missing");
  }

  private Process startBench(String shellPrefix, List<String> args) throws IOException {
    List<String> java = new ArrayList<>(DEFAULT_SIGINT);
    java.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:-UsePerfData", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
        Infermark.class.getName()));
    java.addAll(args);
    List<String> command;
    if (shellPrefix.isEmpty()) {
      command = java;
    } else {
      StringBuilder line = new StringBuilder(shellPrefix).append("; exec");
      for (String a : java) {
        line.append(" '").append(a.replace("'", "'\\''")).append('\'');
      }
      command = List.of("/bin/sh", "-c", line.toString());
    }
    if (shellPrefix.isEmpty()) {
      Process p = new ProcessBuilder(command).redirectOutput(dir.resolve("out.txt").toFile())
          .redirectError(dir.resolve("err.txt").toFile()).start();
      started.add(p);
      return p;
    }
    // A limit the prefix sets (ulimit -f) would cut the child's own output files too: read its output through
    // pipes, which no file-size limit applies to, and write the files here.
    Process p = new ProcessBuilder(command).start();
    started.add(p);
    drain(p.getInputStream(), dir.resolve("out.txt"));
    drain(p.getErrorStream(), dir.resolve("err.txt"));
    return p;
  }

  private static void drain(java.io.InputStream in, Path file) {
    Thread t = new Thread(() -> {
      try (in; java.io.OutputStream out = Files.newOutputStream(file)) {
        in.transferTo(out);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }, "drain-" + file.getFileName());
    t.setDaemon(true);
    t.start();
  }

  /** Waits until the journal holds at least {@code n} records (the run is going), at most two minutes. */
  private void awaitRecords(Process p, int n) throws InterruptedException {
    Path journal = dir.resolve("run.records.jsonl");
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (System.nanoTime() < deadline) {
      assertThat(p.isAlive()).as("bench died early: %s", text("err.txt")).isTrue();
      if (Files.exists(journal) && journalRecords(journal) >= n) {
        return;
      }
      TimeUnit.MILLISECONDS.sleep(50); // polling the file a child process writes: nothing to wait on but time
    }
    throw new AssertionError("the journal never reached " + n + " records");
  }

  private static int journalRecords(Path journal) {
    try {
      return Journal.read(journal).records().size();
    } catch (RuntimeException e) {
      return 0; // header not written yet
    }
  }

  private String text(String name) {
    try {
      return Files.readString(dir.resolve(name), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  private void signal(Process p, String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(p.pid())).start();
    assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(kill.exitValue()).isZero();
  }

  @Test
  void sigintDrainsWritesEveryOutputMarkedInterruptedAndExits130() throws Exception {
    interruptedBy("INT", 130);
  }

  @Test
  void sigtermAsKubernetesSendsItDoesTheSameAndExits143() throws Exception {
    interruptedBy("TERM", 143);
  }

  private void interruptedBy(String signal, int expectedExit) throws Exception {
    if (signal.equals("INT")) {
      assumeSigintReachesTheChild();
    }
    Process p = startBench("", benchArgs());
    awaitRecords(p, 10);
    long signalled = System.nanoTime();
    signal(p, signal);
    assertThat(p.waitFor(DRAIN_SECONDS + 2, TimeUnit.SECONDS)).as("exited within the drain timeout + 2 s; err: %s",
        text("err.txt")).isTrue();
    double took = (System.nanoTime() - signalled) / 1e9;
    assertThat(p.exitValue()).as("out: %s%nerr: %s", text("out.txt"), text("err.txt")).isEqualTo(expectedExit);
    assertThat(took).isLessThan(DRAIN_SECONDS + 2);

    String out = text("out.txt");
    assertThat(out).contains("Serving Benchmark Result", "INTERRUPTED:", "SIG" + signal);
    assertThat(text("err.txt")).contains("SIG" + signal + ": stopping", "exit code " + expectedExit);

    JsonNode vllm = JSON.readTree(dir.resolve("run.json").toFile());
    assertThat(vllm.get("interrupted").asBoolean()).isTrue();
    JsonNode report = JSON.readTree(dir.resolve("run.infermark.json").toFile());
    JsonNode how = report.get("run").get("interruption");
    assertThat(how.get("reason").asText()).isEqualTo("SIG" + signal);
    long completed = how.get("completed").asLong();
    long cancelled = how.get("cancelled").asLong();
    long notSent = how.get("not_sent").asLong();
    assertThat(completed).isGreaterThanOrEqualTo(10);
    assertThat(completed + cancelled + notSent).isEqualTo(PROMPTS);
    assertThat(notSent).isPositive();

    Journal journal = Journal.read(dir.resolve("run.records.jsonl"));
    assertThat(journal.complete()).isTrue();
    assertThat(journal.unreadableLines()).isZero();
    assertThat(journal.records()).hasSize((int) (completed + cancelled));
    assertThat(journal.records().stream().filter(r -> r.failure().map(f -> f.category() == ErrorCategory.CANCELLED)
        .orElse(false))).hasSize((int) cancelled);
    assertThat(journal.end().orElseThrow().path("not_sent").path("count").asLong()).isEqualTo(notSent);

    // the outputs count only what happened: a never-sent request is not a failure, the duration ends at the last
    // sent request's end (or the stop, if later), and the throughputs are over it
    long vllmCompleted = vllm.get("completed").asLong();
    long vllmFailed = vllm.get("failed").asLong();
    assertThat(vllmCompleted + vllmFailed).isEqualTo(completed + cancelled);
    assertThat(report.get("vllm").get("failed").asLong()).as("infermark's report, vLLM's block").isEqualTo(vllmFailed);
    double lastEnd = journal.records().stream().mapToLong(r -> r.sendNanos() + r.endOffsetNanos()).max()
        .orElse(0) / 1e9;
    double expectedDuration = Math.max(lastEnd, vllm.get("interruption").get("at_s").asDouble());
    assertThat(vllm.get("duration").asDouble()).isCloseTo(expectedDuration, org.assertj.core.data.Offset.offset(1e-6));
    assertThat(vllm.get("request_throughput").asDouble()).isCloseTo(vllmCompleted / vllm.get("duration").asDouble(),
        org.assertj.core.data.Offset.offset(1e-9));
    assertThat(out).containsPattern("Failed requests: +" + vllmFailed + " *\\R")
        .containsPattern("Successful requests: +" + vllmCompleted + " *\\R")
        .doesNotContain("not_sent " + notSent);
    assertNoTemporaryFiles();
  }

  @Test
  void afterKillMinusNineReportRebuildsEveryOutputFromTheJournal() throws Exception {
    Process p = startBench("", benchArgs());
    awaitRecords(p, 8);
    p.destroyForcibly(); // SIGKILL: no handler runs, nothing more is written
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(dir.resolve("run.json")).doesNotExist();
    int journaled = Journal.read(dir.resolve("run.records.jsonl")).records().size();

    InfermarkCliTest.Outcome report = InfermarkCliTest.run("report", dir.resolve("run.records.jsonl").toString());

    assertThat(report.code()).as(report.out() + report.err()).isZero();
    assertThat(report.err()).contains("the run never ended");
    assertThat(report.out()).contains("Rebuilt " + dir.resolve("run.json"), "Rebuilt " + dir.resolve("run.infermark.json"),
        "Wrote " + dir.resolve("run.html"), "INTERRUPTED");
    JsonNode vllm = JSON.readTree(dir.resolve("run.json").toFile());
    assertThat(vllm.get("num_prompts").asInt()).isEqualTo(PROMPTS);
    assertThat(vllm.get("interrupted").asBoolean()).isTrue();
    JsonNode how = JSON.readTree(dir.resolve("run.infermark.json").toFile()).get("run").get("interruption");
    assertThat(how.get("reason").asText()).contains("process died");
    assertThat(how.get("completed").asLong() + how.get("cancelled").asLong()).isEqualTo(journaled);
    assertThat(how.get("unknown").asLong()).isEqualTo(PROMPTS - journaled);
    assertThat(Files.readString(dir.resolve("run.html"))).contains("Interrupted</strong>");

    // Run again: the rebuilt outputs are kept, not overwritten, unless asked.
    InfermarkCliTest.Outcome again = InfermarkCliTest.run("report", dir.resolve("run.json").toString());
    assertThat(again.out()).contains("Kept " + dir.resolve("run.json"));
  }

  @Test
  void aFullDiskFailsTheOutputsNamesThemPrintsTheSummaryAndLeavesNoTruncatedFile() throws Exception {
    // A file-size limit (48 blocks) stands for a full disk: writes past it fail with EFBIG ("File too large").
    Process p = startBench("ulimit -f 48", benchArgsWith("--num-prompts", "60", "--request-rate", "60"));
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
    awaitDrained();

    assertThat(p.exitValue()).as("err: %s", text("err.txt")).isEqualTo(Infermark.FAILED);
    assertThat(text("out.txt")).contains("Serving Benchmark Result");
    List<String> errLines = text("err.txt").lines().filter(l -> l.startsWith("infermark: cannot write")).toList();
    assertThat(errLines).as("err: %s", text("err.txt")).hasSize(1);
    assertThat(errLines.get(0)).contains("File too large", "exit code 3");
    for (String name : List.of("run.json", "run.infermark.json")) {
      Path f = dir.resolve(name);
      if (Files.exists(f)) {
        JSON.readTree(f.toFile()); // whole, or absent
      }
    }
    Journal journal = Journal.read(dir.resolve("run.records.jsonl"));
    assertThat(journal.unreadableLines()).as("the journal is cut at its last whole line").isZero();
    assertThat(journal.records()).allMatch(r -> r.index() >= 0);
    assertNoTemporaryFiles();
  }

  @Test
  void aReadOnlyResultDirFailsWithOneLineAfterPrintingTheSummary() throws Exception {
    Path readOnly = Files.createDirectory(dir.resolve("read-only"));
    makeReadOnly(readOnly);
    try {
      List<String> args = benchArgsWith("--num-prompts", "6", "--request-rate", "inf", "--max-concurrency", "3",
          "--random-output-len", "4", "--result-dir", readOnly.toString());

      InfermarkCliTest.Outcome o = InfermarkCliTest.run(args.toArray(String[]::new));

      assertThat(o.code()).as(o.out() + o.err()).isEqualTo(Infermark.FAILED);
      assertThat(o.out()).contains("Serving Benchmark Result", "Successful requests:                     6");
      List<String> failures = o.err().lines().filter(l -> l.startsWith("infermark: cannot write")).toList();
      assertThat(failures).hasSize(1);
      assertThat(failures.get(0)).contains("run.json", "run.infermark.json", "run.records.jsonl", "exit code 3");
      try (Stream<Path> files = Files.list(readOnly)) {
        assertThat(files).isEmpty();
      }
    } finally {
      makeWritable(readOnly);
    }
  }

  /** Waits (at most a minute) until the threads copying a child's pipes have ended. */
  private static void awaitDrained() throws InterruptedException {
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("drain-")) {
        t.join(60_000);
      }
    }
  }

  @Test
  void aSignalBeforeTheRunStartsExitsAtOnce() throws Exception {
    assumeSigintReachesTheChild();
    // A server still loading its model: every request gets 503, and bench's ready check would wait a minute.
    com.sun.net.httpserver.HttpServer loading = com.sun.net.httpserver.HttpServer.create(
        new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 8);
    java.util.concurrent.CountDownLatch asked = new java.util.concurrent.CountDownLatch(1);
    loading.createContext("/", exchange -> {
      exchange.getRequestBody().readAllBytes();
      byte[] body = "loading".getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(503, body.length);
      try (java.io.OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
      asked.countDown();
    });
    loading.start();
    try {
      List<String> args = benchArgsWith("--base-url", "http://127.0.0.1:" + loading.getAddress().getPort(),
          "--ready-check-timeout-sec", "60");
      Process p = startBench("", args);
      assertThat(asked.await(2, TimeUnit.MINUTES)).as("the ready check began").isTrue();
      signal(p, "INT");
      assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("exited at once; err: %s", text("err.txt")).isTrue();
      assertThat(p.exitValue()).isEqualTo(130);
      assertThat(text("err.txt")).contains("SIGINT before the run started: nothing was measured");
    } finally {
      loading.stop(0);
    }
  }

  private void assertNoTemporaryFiles() throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(f -> f.getFileName().toString())).noneMatch(n -> n.contains(".tmp-"));
    }
  }

  /**
   * A directory nobody can write: mode 555 for an ordinary user; as root, which ignores modes, the
   * immutable attribute.
   */
  private static void makeReadOnly(Path d) throws Exception {
    File f = d.toFile();
    assertThat(f.setWritable(false, false)).isTrue();
    if (Files.isWritable(d) || "root".equals(System.getProperty("user.name"))) {
      Process p = new ProcessBuilder("chattr", "+i", d.toString()).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor()).as("chattr +i: %s", out).isZero();
    }
    assertThat(canCreateIn(d)).as("the directory is read-only").isFalse();
  }

  private static boolean canCreateIn(Path d) {
    try {
      Files.delete(Files.createTempFile(d, "probe", ".tmp"));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static void makeWritable(Path d) throws Exception {
    new ProcessBuilder("chattr", "-i", d.toString()).redirectErrorStream(true).start().waitFor();
    d.toFile().setWritable(true, false);
  }
}
