package io.infermark.testkit.simulator;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A plain JDK HTTP client for talking to a simulator in tests, plus SSE and JSON helpers. */
final class SimHttp {

  static final ObjectMapper MAPPER = new ObjectMapper();

  private final HttpClient client = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1) // no h2c upgrade attempt: the simulator speaks HTTP/1.1
      .connectTimeout(Duration.ofSeconds(5))
      .build();
  private final String baseUrl;

  SimHttp(Simulator simulator) {
    this.baseUrl = simulator.baseUrl();
  }

  HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create(baseUrl + path)).timeout(Duration.ofSeconds(20));
  }

  HttpResponse<String> post(String path, String body, String... headers) throws IOException {
    HttpRequest.Builder b = request(path).POST(HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json");
    if (headers.length > 0) {
      b.headers(headers);
    }
    return send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Posts a chat body asynchronously with an {@code X-Request-Id}. */
  java.util.concurrent.CompletableFuture<HttpResponse<String>> sendAsyncChat(String id, String body) {
    return client.sendAsync(request("/v1/chat/completions").header("X-Request-Id", id)
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> get(String path) throws IOException {
    return send(request(path).GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> send(HttpRequest request) throws IOException {
    return send(request, HttpResponse.BodyHandlers.ofString());
  }

  /** Sends a POST and returns the response with its body still unread, to time each line. */
  HttpResponse<InputStream> open(String path, String body, String... headers) throws IOException {
    HttpRequest.Builder b = request(path).POST(HttpRequest.BodyPublishers.ofString(body));
    if (headers.length > 0) {
      b.headers(headers);
    }
    return send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
  }

  <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) throws IOException {
    try {
      return client.send(request, handler);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  /** The payloads of the {@code data:} events of an SSE body, in order. */
  static List<String> events(String body) {
    List<String> events = new ArrayList<>();
    for (String block : body.split("\n\n")) {
      if (!block.isEmpty()) {
        if (!block.startsWith("data: ") || block.indexOf('\n') >= 0) {
          throw new AssertionError("not a single-line data event: " + block);
        }
        events.add(block.substring("data: ".length()));
      }
    }
    return events;
  }

  /** Reads a streamed body line by line, noting when each {@code data:} line arrived. */
  static List<TimedEvent> readTimed(InputStream body) throws IOException {
    List<TimedEvent> events = new ArrayList<>();
    try (BufferedReader reader = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        if (line.startsWith("data: ")) {
          events.add(new TimedEvent(System.nanoTime(), line.substring("data: ".length())));
        }
      }
    }
    return events;
  }

  /** One received SSE payload and its arrival time. */
  record TimedEvent(long nanos, String data) {
    boolean hasContent() {
      if (data.equals("[DONE]")) {
        return false;
      }
      JsonNode choices = json(data).path("choices");
      if (choices.isEmpty()) {
        return false;
      }
      JsonNode c = choices.get(0);
      return !c.path("delta").path("content").asText("").isEmpty() || !c.path("text").asText("").isEmpty();
    }
  }

  static JsonNode json(String text) {
    try {
      return MAPPER.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String chat(String extraFields) {
    return "{\"model\":\"infermark-sim\",\"messages\":[{\"role\":\"user\",\"content\":\"Hello, my name is\"}]"
        + (extraFields.isEmpty() ? "" : "," + extraFields) + "}";
  }

  static String completion(String extraFields) {
    return "{\"model\":\"infermark-sim\",\"prompt\":\"Hello, my name is\""
        + (extraFields.isEmpty() ? "" : "," + extraFields) + "}";
  }

  /** Prompt tokens of the prompt {@link #chat} and {@link #completion} send. */
  static final int PROMPT_TOKENS = 5;
}
