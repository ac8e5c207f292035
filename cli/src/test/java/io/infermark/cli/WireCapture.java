package io.infermark.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A minimal OpenAI-compatible server on 127.0.0.1 that records every request as it arrived on the wire (body and
 * headers) and answers with a short stream (two content chunks, a usage chunk, [DONE]); its first {@code notReady}
 * answers are 503s, and {@code /metrics} serves {@code metrics[i]} on its i-th scrape.
 */
final class WireCapture implements AutoCloseable {

  /** One request as received. */
  record Received(String path, JsonNode body, Map<String, List<String>> headers) {
    String header(String name) {
      return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name)).findFirst()
          .map(e -> String.join(",", e.getValue())).orElse(null);
    }

    int headerCount(String name) {
      return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
          .mapToInt(e -> e.getValue().size()).sum();
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpServer server;
  private final List<Received> received = new ArrayList<>();
  private final AtomicInteger unready;
  private final List<String> metrics;
  private final AtomicInteger scrapes = new AtomicInteger();

  WireCapture(int notReady, List<String> metrics) throws IOException {
    this.unready = new AtomicInteger(notReady);
    this.metrics = List.copyOf(metrics);
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 64);
    server.setExecutor(Executors.newFixedThreadPool(8));
    server.createContext("/v1/", this::generate);
    server.createContext("/metrics", this::metrics);
    server.start();
  }

  WireCapture() throws IOException {
    this(0, List.of());
  }

  String baseUrl() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  /** Generation requests received, the 503-answered ones included. */
  synchronized List<Received> received() {
    return List.copyOf(received);
  }

  private void metrics(HttpExchange ex) throws IOException {
    int i = scrapes.getAndIncrement();
    if (metrics.isEmpty()) {
      respond(ex, 404, "text/plain", "no metrics");
      return;
    }
    respond(ex, 200, "text/plain", metrics.get(Math.min(i, metrics.size() - 1)));
  }

  private void generate(HttpExchange ex) throws IOException {
    JsonNode body = JSON.readTree(ex.getRequestBody().readAllBytes());
    synchronized (this) {
      received.add(new Received(ex.getRequestURI().getPath(), body, Map.copyOf(ex.getRequestHeaders())));
    }
    if (unready.getAndDecrement() > 0) {
      respond(ex, 503, "application/json", "{\"error\":\"loading\"}");
      return;
    }
    boolean chat = ex.getRequestURI().getPath().endsWith("/chat/completions");
    StringBuilder sse = new StringBuilder();
    for (String token : new String[] {"Hello", " there"}) {
      String choice = chat ? "{\"index\":0,\"delta\":{\"content\":\"" + token + "\"},\"finish_reason\":null}"
          : "{\"index\":0,\"text\":\"" + token + "\",\"finish_reason\":null}";
      sse.append("data: {\"id\":\"x\",\"choices\":[").append(choice).append("]}\n\n");
    }
    sse.append("data: {\"id\":\"x\",\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2,"
        + "\"total_tokens\":7}}\n\n");
    sse.append("data: [DONE]\n\n");
    respond(ex, 200, "text/event-stream", sse.toString());
  }

  private static void respond(HttpExchange ex, int status, String type, String text) throws IOException {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
  }
}
