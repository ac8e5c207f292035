package io.infermark.cli.vllmsweep;

import io.infermark.core.time.Clock;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A server command run as a process of its own (vLLM's {@code ServerProcess}): started with its output in a log
 * file, polled on {@code GET /health} until it answers 200 (its start-up time measured on the monotonic clock),
 * its caches reset between benchmark runs when it offers it, and stopped with SIGTERM, then SIGKILL after a grace
 * period, its child processes (vLLM's engine cores) included.
 */
final class ServerProcess implements AutoCloseable {

  /** vLLM's reset endpoints ({@code VLLM_RESET_CACHE_ENDPOINTS}), POSTed after each benchmark run. */
  static final List<String> RESET_ENDPOINTS = List.of("/reset_prefix_cache", "/reset_mm_cache",
      "/reset_encoder_cache");
  /** How often {@code /health} is asked while the server starts; the start-up time's resolution. */
  static final Duration POLL = Duration.ofMillis(20);
  /** How long a SIGTERM'd server may take to exit before it is killed. */
  static final Duration STOP_GRACE = Duration.ofSeconds(10);
  /** Lines of the log quoted when the server fails. */
  static final int TAIL_LINES = 20;

  private final List<String> command;
  private final Path log;
  private final String address;
  private final Clock clock;
  private final HttpClient http;
  private Process process;
  private long startedNanos;
  private long readyNanos = -1;
  private long logOffset;
  private Thread hook;

  private ServerProcess(List<String> command, Path log, Clock clock) {
    this.command = List.copyOf(command);
    this.log = log;
    this.address = address(command);
    this.clock = clock;
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  }

  /**
   * Starts {@code command} (its output, both streams, in {@code log}) with {@code env} added to this process's
   * environment and {@code VLLM_SERVER_DEV_MODE=1} (which vLLM's reset endpoints need).
   *
   * @throws IllegalStateException if the command cannot be started
   */
  static ServerProcess start(List<String> command, Path log, Map<String, String> env, Clock clock) {
    ServerProcess s = new ServerProcess(command, log, clock);
    try {
      Files.createDirectories(log.toAbsolutePath().getParent());
      ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      pb.environment().put("VLLM_SERVER_DEV_MODE", "1");
      pb.environment().putAll(env);
      s.logOffset = Files.exists(log) ? Files.size(log) : 0;
      s.startedNanos = clock.nanoTime();
      s.process = pb.start();
      s.hook = new Thread(s::kill, "infermark-sweep-server-stop");
      Runtime.getRuntime().addShutdownHook(s.hook); // a JVM that exits (a third Ctrl-C) leaves no server behind
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the server command " + Shlex.join(command) + ": "
          + e.getMessage());
    }
    return s;
  }

  /**
   * The server's address as vLLM's sweep finds it on the command: {@code --host} (default localhost) and
   * {@code -p}/{@code --port} (default 8000, {@code vllm serve}'s).
   */
  static String address(List<String> command) {
    String host = value(command, List.of("--host")).orElse("localhost");
    String port = value(command, List.of("-p", "--port")).orElse("8000");
    try {
      Integer.parseInt(port);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("the server command's port is not a number: " + port);
    }
    return "http://" + (host.contains(":") && !host.startsWith("[") ? "[" + host + "]" : host) + ":" + port;
  }

  private static java.util.Optional<String> value(List<String> command, List<String> keys) {
    for (String k : keys) {
      int at = command.indexOf(k);
      if (at >= 0 && at + 1 < command.size()) {
        return java.util.Optional.of(command.get(at + 1));
      }
      for (String a : command) {
        if (a.startsWith(k + "=")) {
          return java.util.Optional.of(a.substring(k.length() + 1));
        }
      }
    }
    return java.util.Optional.empty();
  }

  String address() {
    return address;
  }

  Path log() {
    return log;
  }

  /**
   * Polls {@code GET /health} every {@link #POLL} until it answers 200 and returns the start-up time in seconds:
   * from just before the process was started to the healthy answer's arrival (so it includes the process's own
   * launch and at most one poll interval more than the server needed).
   *
   * @throws ServerFailedException if the process exits first, or {@code timeout} passes
   * @throws RuntimeException what {@code check} (run before each poll) throws to give up
   */
  double awaitReady(Duration timeout, Runnable check) {
    long deadline = startedNanos + timeout.toNanos();
    while (true) {
      check.run();
      if (healthy()) {
        readyNanos = clock.nanoTime();
        return (readyNanos - startedNanos) / 1e9;
      }
      if (!process.isAlive()) {
        throw new ServerFailedException("the server command exited with code " + process.exitValue()
            + " before GET " + address + "/health answered 200", this);
      }
      if (clock.nanoTime() - deadline > 0) {
        throw new ServerFailedException("the server did not answer 200 on GET " + address + "/health within "
            + timeout.toSeconds() + " s (--server-ready-timeout)", this);
      }
      try {
        process.waitFor(POLL.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for the server to start");
      }
    }
  }

  private boolean healthy() {
    try {
      HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create(address + "/health"))
          .timeout(Duration.ofSeconds(2)).GET().build(), HttpResponse.BodyHandlers.discarding());
      return r.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Resets the server's caches: POSTs each of vLLM's reset endpoints and says which it offered; 404, 405 and 501
   * mean the server does not offer that reset.
   *
   * @throws IllegalStateException if an endpoint answers with another error, or the server is unreachable
   */
  void resetCaches(PrintWriter out) {
    resetCaches(http, address, out);
  }

  /** {@link #resetCaches(PrintWriter)} for the server at {@code address}. */
  static void resetCaches(HttpClient http, String address, PrintWriter out) {
    out.println("Resetting caches at " + address);
    List<String> absent = new ArrayList<>();
    for (String endpoint : RESET_ENDPOINTS) {
      int status;
      try {
        status = http.send(HttpRequest.newBuilder(URI.create(address + endpoint)).timeout(Duration.ofSeconds(60))
            .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
      } catch (IOException e) {
        throw new IllegalStateException("cannot reset the server's caches: POST " + address + endpoint + " failed: "
            + e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while resetting the server's caches");
      }
      if (status == 404 || status == 405 || status == 501) {
        absent.add(endpoint);
      } else if (status / 100 != 2) {
        throw new IllegalStateException("cannot reset the server's caches: POST " + address + endpoint
            + " answered " + status + " (use --after-bench-cmd for a server that resets otherwise)");
      }
    }
    if (!absent.isEmpty()) {
      out.println("The server does not offer " + String.join(", ", absent) + " (HTTP 404/405/501): "
          + (absent.size() == RESET_ENDPOINTS.size() ? "no cache was reset" : "the others were reset"));
    }
  }

  /** The log's text written since the last call (the first call: since the server started). */
  String logSinceLastCall() {
    try (RandomAccessFile f = new RandomAccessFile(log.toFile(), "r")) {
      long end = f.length();
      byte[] bytes = new byte[(int) Math.max(0, Math.min(Integer.MAX_VALUE - 8, end - logOffset))];
      f.seek(logOffset);
      f.readFully(bytes);
      logOffset = end;
      return new String(bytes, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  /** The log's last {@code n} lines (fewer when it is shorter), for an error. */
  List<String> logTail(int n) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return lines.subList(Math.max(0, lines.size() - n), lines.size());
    } catch (IOException | UncheckedIOException e) {
      return List.of("(its log " + log + " cannot be read: " + e.getMessage() + ")");
    }
  }

  /** Stops the server: SIGTERM to it and its descendants, SIGKILL to any still alive after {@code grace}. */
  void stop(Duration grace) {
    if (process == null) {
      return;
    }
    List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
    all.add(0, process.toHandle());
    all.forEach(ProcessHandle::destroy);
    long deadline = System.nanoTime() + grace.toNanos();
    for (ProcessHandle h : all) {
      long left = deadline - System.nanoTime();
      try {
        h.onExit().get(Math.max(0, left), TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
        h.destroyForcibly();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        h.destroyForcibly();
      }
    }
    for (ProcessHandle h : all) {
      try {
        h.onExit().get(5, TimeUnit.SECONDS);
      } catch (Exception e) {
        // a process that survives SIGKILL for 5 s is the kernel's business; nothing more can be done here
      }
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running or about to: it kills what is left
    }
  }

  /** SIGKILL to the server and its descendants (the JVM is exiting: no time for a graceful stop). */
  private void kill() {
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
  }

  @Override
  public void close() {
    stop(STOP_GRACE);
  }

  @Override
  public String toString() {
    return "ServerProcess[" + address + ", " + Shlex.join(command) + "]";
  }

  /** The server died or never became healthy: the message, and the log's tail to show with it. */
  static final class ServerFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient List<String> tail;
    private final transient Path log;

    ServerFailedException(String message, ServerProcess server) {
      super(message);
      this.tail = server.logTail(TAIL_LINES);
      this.log = server.log;
    }

    List<String> tail() {
      return tail;
    }

    Path log() {
      return log;
    }
  }
}
