package io.infermark.testkit.simulator;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.infermark.testkit.simulator.server.Exchange;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Routes each request by exact path and method: the generation endpoints of every protocol
 * (see {@link Endpoint}) go to the {@link GenerationHandler}; {@code GET /v1/models}, {@code GET /health}, {@code GET /metrics}
 * (Prometheus text) and {@code GET /simulator/timelines[/{id}]} (ground truth as JSON) are
 * answered here; anything else is a 404 (unknown path) or 405 (known path, wrong method) in
 * OpenAI's error shape.
 */
final class Router implements Exchange.Handler {

  private static final String TIMELINES = "/simulator/timelines";
  private static final String TRITON_MODELS = "/v2/models/";

  private final GenerationHandler generation;
  private final JsonFactory json;
  private final String model;
  private final long createdEpochSeconds;
  private final ServerMetrics metrics;
  private final ServingModel serving;
  private final TimelineStore timelines;
  private final TimelineJson timelineJson;

  Router(GenerationHandler generation, JsonFactory json, String model, long createdEpochSeconds,
      ServerMetrics metrics, ServingModel serving, TimelineStore timelines) {
    this.generation = generation;
    this.json = json;
    this.model = model;
    this.createdEpochSeconds = createdEpochSeconds;
    this.metrics = metrics;
    this.serving = serving;
    this.timelines = timelines;
    this.timelineJson = new TimelineJson(json);
  }

  @Override
  public void handle(Exchange exchange) throws IOException {
    String path = exchange.path();
    String method = exchange.method();
    switch (path) {
      case "/v1/chat/completions":
        if (allowed(exchange, "POST")) {
          generation.handle(exchange, Endpoint.CHAT);
        }
        break;
      case "/v1/completions":
        if (allowed(exchange, "POST")) {
          generation.handle(exchange, Endpoint.COMPLETIONS);
        }
        break;
      case "/v1/messages":
        generate(exchange, Endpoint.ANTHROPIC_MESSAGES);
        break;
      case "/api/chat":
        generate(exchange, Endpoint.OLLAMA_CHAT);
        break;
      case "/api/generate":
        generate(exchange, Endpoint.OLLAMA_GENERATE);
        break;
      case "/generate_stream":
        generate(exchange, Endpoint.TGI_GENERATE_STREAM);
        break;
      case "/generate":
        generate(exchange, Endpoint.TGI_GENERATE);
        break;
      case "/completion":
        generate(exchange, Endpoint.LLAMACPP_COMPLETION);
        break;
      case "/v1/responses":
        generate(exchange, Endpoint.OPENAI_RESPONSES);
        break;
      case "/v1/models":
        if (allowed(exchange, "GET")) {
          send(exchange, 200, models());
        }
        break;
      case "/health":
        if (allowed(exchange, "GET")) {
          // vLLM answers an empty 200, and 503 until its model is loaded
          exchange.sendResponseHeaders(serving.ready() ? 200 : 503, -1);
          exchange.close();
        }
        break;
      case "/metrics":
        if (allowed(exchange, "GET")) {
          exchange.responseHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
          byte[] body = metrics.render(serving.stats());
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.responseBody()) {
            out.write(body);
          }
        }
        break;
      case TIMELINES:
        if (allowed(exchange, "GET")) {
          timelineList(exchange);
        }
        break;
      default:
        if (path.startsWith(TRITON_MODELS)) {
          triton(exchange, path);
          break;
        }
        if (path.startsWith(TIMELINES + "/") && allowed(exchange, "GET")) {
          String id = java.net.URLDecoder.decode(path.substring(TIMELINES.length() + 1),
              java.nio.charset.StandardCharsets.UTF_8);
          var found = timelines.byId(id);
          if (found.isPresent()) {
            send(exchange, 200, timelineJson.one(found.get()));
          } else {
            sendError(exchange, ApiError.notFound("No finished request with id '" + id + "' is kept; it may still "
                + "be running or may have been dropped by the retention limit", null));
          }
          break;
        }
        if (path.startsWith(TIMELINES + "/")) {
          break;
        }
        sendError(exchange, ApiError.notFound("No route for " + method + " " + path
            + "; the simulator serves POST /v1/chat/completions, POST /v1/completions, POST /v1/messages, "
            + "POST /v1/responses, POST /api/chat, POST /api/generate, POST /generate_stream, POST /generate, "
            + "POST /completion, POST /v2/models/{model}/generate[_stream], "
            + "GET /v1/models, GET /health, GET /metrics and GET /simulator/timelines[/{id}]", null));
    }
  }

  private void generate(Exchange exchange, Endpoint endpoint) throws IOException {
    if (allowed(exchange, "POST")) {
      generation.handle(exchange, endpoint);
    }
  }

  /**
   * Triton's {@code /v2/models/{model}/generate[_stream]}: the model is in the path, and an unknown
   * one is answered in Triton's error shape before anything is generated.
   */
  private void triton(Exchange exchange, String path) throws IOException {
    String rest = path.substring(TRITON_MODELS.length());
    int slash = rest.lastIndexOf('/');
    String action = slash < 0 ? "" : rest.substring(slash + 1);
    if (slash <= 0 || !(action.equals("generate") || action.equals("generate_stream"))) {
      sendError(exchange, ApiError.notFound("No route for " + exchange.method() + " " + path, null));
      return;
    }
    String name = java.net.URLDecoder.decode(rest.substring(0, slash), java.nio.charset.StandardCharsets.UTF_8);
    if (!name.equals(model)) {
      byte[] body = ("{\"error\":\"Request for unknown model: '" + name.replace("\\", "\\\\").replace("\"", "\\\"")
          + "' is not found\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
      send(exchange, 404, body);
      return;
    }
    generate(exchange, action.equals("generate") ? Endpoint.TRITON_GENERATE : Endpoint.TRITON_GENERATE_STREAM);
  }

  /** {@code GET /simulator/timelines[?since=N]}: all kept summaries, or those of requests numbered N or later. */
  private void timelineList(Exchange exchange) throws IOException {
    String since = exchange.queryParameter("since");
    long from = 0;
    if (since != null) {
      try {
        from = Long.parseLong(since);
      } catch (NumberFormatException e) {
        sendError(exchange, ApiError.badRequest("Query parameter since='" + since + "' is not a request sequence "
            + "number; use the next_sequence of an earlier answer, or 0", "since"));
        return;
      }
    }
    // Read before the timelines, so a request that arrives meanwhile is asked for again next time.
    long next = generation.requestCount();
    send(exchange, 200, timelineJson.list(since == null ? timelines.all() : timelines.since(from),
        timelines.dropped(), next));
  }

  private boolean allowed(Exchange exchange, String method) throws IOException {
    if (exchange.method().equals(method)) {
      return true;
    }
    exchange.responseHeader("Allow", method);
    sendError(exchange, ApiError.methodNotAllowed("Method " + exchange.method()
        + " is not allowed on " + exchange.path() + "; use " + method));
    return false;
  }

  private void sendError(Exchange exchange, ApiError error) throws IOException {
    send(exchange, error.status(), error.toJson(json));
  }

  private static void send(Exchange exchange, int status, byte[] body) throws IOException {
    exchange.responseHeader("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, body.length);
    try (OutputStream out = exchange.responseBody()) {
      out.write(body);
    }
  }

  private byte[] models() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    try (JsonGenerator g = json.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("object", "list");
      g.writeArrayFieldStart("data");
      g.writeStartObject();
      g.writeStringField("id", model);
      g.writeStringField("object", "model");
      g.writeNumberField("created", createdEpochSeconds);
      g.writeStringField("owned_by", "infermark");
      g.writeStringField("root", model);
      g.writeNullField("parent");
      g.writeEndObject();
      g.writeEndArray();
      g.writeEndObject();
    }
    return out.toByteArray();
  }
}
