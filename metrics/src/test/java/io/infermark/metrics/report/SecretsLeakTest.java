package io.infermark.metrics.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.transport.OkHttpTransport;
import io.infermark.metrics.RunSummary;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Plants an API key, sensitive headers (x-api-key, a cookie, a header of the user's own) and URL
 * userinfo, provokes every failure path with servers that echo them back, and looks for them in
 * everything infermark writes: records JSONL, JSON, CSV, HTML and console reports, every
 * {@code toString()}, exception messages, and the log at DEBUG. The build runs this class in a JVM of
 * its own whose SLF4J binding (slf4j-simple) logs infermark at DEBUG to the file
 * {@code infermark.secrets.log} names.
 */
@Tag("secrets")
class SecretsLeakTest {

  private static final String KEY = "sk-PLANTED-apikey-7f3a9c";
  private static final String X_API_KEY = "PLANTED-xapikey-51be";
  private static final String COOKIE = "PLANTED-cookie-90d1";
  private static final String USER_HEADER = "PLANTED-userheader-c44e";
  private static final String URL_PASSWORD = "PLANTED-urlpass-2b7e";
  private static final List<String> SECRETS = List.of(KEY, X_API_KEY, COOKIE, USER_HEADER, URL_PASSWORD);
  private static final String ECHO = KEY + " " + X_API_KEY + " session=" + COOKIE + " " + USER_HEADER + " "
      + URL_PASSWORD;

  @TempDir
  Path dir;

  static Stream<Function<OpenAiTarget.Builder, OpenAiTarget.Builder>> transports() {
    return Stream.of(b -> b, b -> b.httpClient(new OkHttpClient()));
  }

  /** One misbehaviour per connection, in order; every response closes its connection. */
  private static final List<String> BEHAVIOURS = List.of(
      // HTTP error echoing everything
      "HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
          + "{\"error\":{\"message\":\"Incorrect API key provided: " + ECHO + "\"}}",
      // 200 with a JSON error object
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
          + "{\"error\":{\"message\":\"bad key " + ECHO + "\",\"type\":\"invalid_request_error\"}}",
      // an error event inside the stream
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
          + "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\n"
          + "data: {\"error\":{\"message\":\"midstream " + ECHO + "\"}}\n\n",
      // a malformed chunk holding the secrets
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
          + "data: {\"choices\":[{\"delta\":{\"content\":\"" + ECHO + "\n\n",
      // a redirect whose location holds them (not followed by default)
      "HTTP/1.1 307 Temporary Redirect\r\nLocation: http://u:" + URL_PASSWORD + "@127.0.0.1:1/" + KEY + "?c=" + COOKIE
          + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
      // a cut stream (reset before the end)
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
          + "10\r\ndata: {\"choices\"",
      // silence: a read timeout
      "");

  @ParameterizedTest
  @MethodSource("transports")
  void plantedSecretsAppearNowhere(Function<OpenAiTarget.Builder, OpenAiTarget.Builder> transport) throws Exception {
    List<String> texts = new ArrayList<>();
    GenerationParams params = GenerationParams.builder().maxTokens(4).header("x-api-key", X_API_KEY)
        .header("Cookie", "session=" + COOKIE).header("X-Tenant-Token", USER_HEADER).build();

    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread serving = new Thread(() -> serve(server, BEHAVIOURS), "secrets-server");
      serving.setDaemon(true);
      serving.start();
      String url = "http://user:" + URL_PASSWORD + "@127.0.0.1:" + server.getLocalPort() + "/v1";
      RunResult run;
      try (OpenAiTarget target = transport.apply(OpenAiTarget.chat(url, "m").apiKey(KEY)
          .readTimeout(Duration.ofMillis(500)).callTimeout(Duration.ofSeconds(20))).build()) {
        texts.add(target.toString());
        texts.add(target.url());
        run = Benchmark.target(target).preflight(false).prompts(Prompt.user("hi")).params(params)
            .load(LoadProfile.concurrency(1).requests(BEHAVIOURS.size())).run();
      }
      assertThat(run.records()).extracting(r -> r.failure().map(f -> f.category()).orElse(null))
          .as("every failure path was reached").containsExactly(ErrorCategory.HTTP_STATUS,
              ErrorCategory.STREAM_ERROR, ErrorCategory.STREAM_ERROR, ErrorCategory.MALFORMED_STREAM,
              ErrorCategory.HTTP_STATUS, ErrorCategory.RESET, ErrorCategory.TIMEOUT);
      assertThat(run.records().get(0).failure().orElseThrow().message()).as("the echo was redacted, not lost")
          .contains("Incorrect API key provided: ***");
      collect(texts, run);
    }

    // the pre-flight request stops a run on a 401 that echoes every secret
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread serving = new Thread(() -> serve(server, List.of(BEHAVIOURS.get(0))), "secrets-preflight-server");
      serving.setDaemon(true);
      serving.start();
      String url = "http://user:" + URL_PASSWORD + "@127.0.0.1:" + server.getLocalPort() + "/v1";
      try (OpenAiTarget target = transport.apply(OpenAiTarget.chat(url, "m").apiKey(KEY)).build()) {
        String preflight = message(() -> Benchmark.target(target).prompts(Prompt.user("hi")).params(params)
            .load(LoadProfile.concurrency(1).requests(1)).run());
        assertThat(preflight).as("the pre-flight failed on the echo").contains("HTTP 401");
        texts.add(preflight);
      }
    }

    // connection refused, with the userinfo in the URL
    int closedPort;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort();
    }
    try (OpenAiTarget refused = transport.apply(OpenAiTarget.chat("http://user:" + URL_PASSWORD + "@127.0.0.1:"
        + closedPort + "/v1", "m").apiKey(KEY)).build()) {
      texts.add(message(() -> Benchmark.target(refused).prompts(Prompt.user("hi")).params(params)
          .load(LoadProfile.concurrency(1).requests(1)).run())); // the pre-flight's unreachable-host failure
      RunResult run = Benchmark.target(refused).preflight(false).prompts(Prompt.user("hi")).params(params)
          .load(LoadProfile.concurrency(1).requests(1)).run();
      assertThat(run.records().get(0).failure().orElseThrow().category()).isEqualTo(ErrorCategory.CONNECT);
      collect(texts, run);
    }

    // input rejected at build time: CR/LF in a header value or the key, a URL that does not parse
    texts.add(message(() -> GenerationParams.builder().header("X-Tenant-Token", USER_HEADER + "\r\nX-Injected: 1")));
    texts.add(message(() -> GenerationParams.builder().header("Bad Name", USER_HEADER)));
    texts.add(message(() -> OpenAiTarget.chat("http://x", "m").apiKey(KEY + "\r\n")));
    texts.add(message(() -> OpenAiTarget.chat("ht tp://user:" + URL_PASSWORD + "@h/v1", "m")));
    texts.add(message(() -> OpenAiTarget.chat("ftp://user:" + URL_PASSWORD + "@h/v1", "m")));
    texts.add(params.toString());
    texts.add(OkHttpTransport.create().toString());

    String logFile = System.getProperty("infermark.secrets.log", "");
    if (!logFile.isEmpty() && Files.exists(Path.of(logFile))) {
      String log = Files.readString(Path.of(logFile));
      assertThat(log).as("the DEBUG log was captured").contains("DEBUG");
      texts.add(log);
    }

    for (String text : texts) {
      for (String secret : SECRETS) {
        assertThat(text).as("a text infermark wrote").doesNotContain(secret);
      }
    }
  }

  private void collect(List<String> texts, RunResult run) throws IOException {
    texts.add(run.toString());
    for (RequestRecord r : run.records()) {
      texts.add(r.toString());
      r.failure().ifPresent(f -> texts.add(f.toString()));
    }
    StringWriter jsonl = new StringWriter();
    RecordsJsonl.write(run.records(), jsonl);
    texts.add(jsonl.toString());
    RunSummary summary = RunSummary.of(run);
    texts.add(summary.toString());
    texts.add(ConsoleTable.render(summary));
    texts.add(JsonReport.toJson(summary));
    texts.add(CsvReport.toCsv("run", summary));
    Path html = dir.resolve("report.html");
    HtmlReport.builder(run).build().write(html);
    texts.add(Files.readString(html));
    texts.add(CsvReport.toCsv(Map.of("run", summary)));
  }

  private static String message(Runnable r) {
    Throwable t = catchThrowable(r::run);
    assertThat(t).as("rejected").isNotNull();
    StringBuilder all = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      all.append(c).append('\n');
    }
    return all.toString();
  }

  private static void serve(ServerSocket server, List<String> behaviours) {
    for (int i = 0; ; i++) {
      Socket s;
      try {
        s = server.accept();
      } catch (IOException e) {
        return;
      }
      String behaviour = behaviours.get(Math.min(i, behaviours.size() - 1));
      Thread t = new Thread(() -> {
        try (s) {
          InputStream in = s.getInputStream();
          readHeadAndBody(in);
          OutputStream out = s.getOutputStream();
          if (behaviour.isEmpty()) {
            in.transferTo(OutputStream.nullOutputStream()); // silent until the client gives up
            return;
          }
          out.write(behaviour.getBytes(StandardCharsets.UTF_8));
          out.flush();
        } catch (IOException e) {
          // the client went away
        }
      }, "secrets-server-" + i);
      t.setDaemon(true);
      t.start();
    }
  }

  private static void readHeadAndBody(InputStream in) throws IOException {
    StringBuilder head = new StringBuilder();
    int b;
    while ((b = in.read()) >= 0) {
      head.append((char) b);
      if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
        break;
      }
    }
    int length = 0;
    for (String line : head.toString().split("\r\n")) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring(15).strip());
      }
    }
    in.readNBytes(length);
  }
}
