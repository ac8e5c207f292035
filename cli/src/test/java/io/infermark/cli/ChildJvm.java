package io.infermark.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * An {@code infermark} command in a JVM of its own (as {@link DurableBenchTest} runs bench), its output in files, so a
 * test can send it real signals. {@link #close} kills it if it is still alive.
 */
final class ChildJvm implements AutoCloseable {

  /**
   * A build started in the background without job control ignores SIGINT and its children inherit that: the child
   * gets SIGINT's default back through coreutils' {@code env --default-signal} where there is one.
   */
  static final List<String> DEFAULT_SIGINT = defaultSigint();

  private final Process process;
  private final Path out;
  private final Path err;

  private ChildJvm(Process process, Path out, Path err) {
    this.process = process;
    this.out = out;
    this.err = err;
  }

  /** Starts {@code infermark args...}, its output going to {@code out.txt} and {@code err.txt} in {@code dir}. */
  static ChildJvm start(Path dir, List<String> args) throws IOException {
    List<String> command = new ArrayList<>(DEFAULT_SIGINT);
    command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:-UsePerfData",
        "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), Infermark.class.getName()));
    command.addAll(args);
    Path o = dir.resolve("out.txt");
    Path e = dir.resolve("err.txt");
    Process p = new ProcessBuilder(command).redirectOutput(o.toFile()).redirectError(e.toFile()).start();
    return new ChildJvm(p, o, e);
  }

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

  /** Skips the test when SIGINT cannot reach a child (ignored here, and no env to restore it). */
  static void assumeSigintReachesTheChild() throws IOException {
    if (!DEFAULT_SIGINT.isEmpty() || !Files.isReadable(Path.of("/proc/self/status"))) {
      return;
    }
    String ignored = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("SigIgn:"))
        .map(l -> l.substring("SigIgn:".length()).trim()).findFirst().orElse("0");
    Assumptions.assumeTrue((Long.parseLong(ignored, 16) & 2) == 0,
        "SIGINT is ignored in this process (started in the background) and env --default-signal is missing");
  }

  Process process() {
    return process;
  }

  String out() {
    return read(out);
  }

  String err() {
    return read(err);
  }

  private static String read(Path p) {
    try {
      return Files.readString(p, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /**
   * Waits (at most two minutes) until the standard output matches {@code pattern}, and returns the first group.
   * Polls the file the child writes: there is nothing else to wait on.
   */
  String awaitOutput(Pattern pattern) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (System.nanoTime() < deadline) {
      Matcher m = pattern.matcher(out());
      if (m.find()) {
        return m.groupCount() > 0 ? m.group(1) : m.group();
      }
      if (!process.isAlive()) {
        throw new AssertionError("the child exited " + process.exitValue() + " before printing " + pattern + "; out: "
            + out() + " err: " + err());
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
    throw new AssertionError("the child never printed " + pattern + "; out: " + out() + " err: " + err());
  }

  /** Sends signal {@code name} (INT, TERM) with kill(1). */
  void signal(String name) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new AssertionError("kill -" + name + " failed");
    }
  }

  /** The exit code if the child exits within {@code seconds}. */
  Optional<Integer> exitWithin(double seconds) throws InterruptedException {
    return process.waitFor(Math.round(seconds * 1000), TimeUnit.MILLISECONDS) ? Optional.of(process.exitValue())
        : Optional.empty();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroyForcibly();
      process.waitFor(30, TimeUnit.SECONDS);
    }
  }

}
