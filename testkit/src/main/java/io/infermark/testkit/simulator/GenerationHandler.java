package io.infermark.testkit.simulator;

import com.fasterxml.jackson.core.JsonFactory;
import com.sun.net.httpserver.HttpExchange;
import io.infermark.testkit.simulator.FaultPolicy.Fault;
import io.infermark.testkit.simulator.ServerTimeline.Outcome;
import io.infermark.testkit.simulator.ServingModel.Generation;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves one POST to a generation endpoint from arrival to the end of its response: parses it,
 * applies its fault, has the {@link ServingModel} admit it, writes each chunk when its tokens
 * are ready, and records everything in the request's timeline.
 *
 * <p>Every response except a dropped one uses chunked transfer encoding, and a request's
 * timeline is published (and its slot and in-flight count released) before the exchange is
 * closed, which is what sends the final chunk. A client therefore cannot see the end of a
 * response before the simulator's state reflects it, so tests can assert on that state as
 * soon as they have read a response, without waiting.
 */
final class GenerationHandler {

  static final String REQUEST_ID = "X-Request-Id";

  private static final Logger log = LoggerFactory.getLogger(GenerationHandler.class);

  private final SimulatorConfig config;
  private final JsonFactory json;
  private final RequestParser parser;
  private final FaultPolicy faults;
  private final ServingModel model;
  private final TimelineStore timelines;
  private final Gauge inFlight = new Gauge();
  private final Gauge waiting = new Gauge();
  private final Gauge running = new Gauge();
  private final AtomicLong sequence = new AtomicLong();
  private volatile boolean closing;

  GenerationHandler(SimulatorConfig config, JsonFactory json, RequestParser parser, FaultPolicy faults,
      ServingModel model, TimelineStore timelines) {
    this.config = config;
    this.json = json;
    this.parser = parser;
    this.faults = faults;
    this.model = model;
    this.timelines = timelines;
  }

  void handle(HttpExchange exchange, Endpoint endpoint) throws IOException {
    long arrival = System.nanoTime();
    long seq = sequence.getAndIncrement();
    String given = exchange.getRequestHeaders().getFirst(REQUEST_ID);
    String id = given == null || given.isBlank() ? "sim-" + seq : given;
    exchange.getResponseHeaders().set(REQUEST_ID, id);
    inFlight.increment();
    new ServedRequest(exchange, endpoint, new TimelineRecorder(id, seq, endpoint.path(), arrival)).serve();
  }

  /**
   * Runs the parse and render paths once, off the clock, so the first real request does not pay
   * for loading and initialising Jackson's classes (tens of milliseconds, which would show up as
   * a slow first TTFT in every benchmark run against a fresh simulator).
   */
  void warmUp() {
    byte[] chat = ("{\"model\":\"" + config.model() + "\",\"messages\":[{\"role\":\"user\",\"content\":"
        + "\"warm up\"}],\"stream\":true,\"max_tokens\":2,\"ignore_eos\":true,\"stream_options\":"
        + "{\"include_usage\":true,\"continuous_usage_stats\":true}}").getBytes(StandardCharsets.UTF_8);
    byte[] completion = "{\"prompt\":\"warm up\",\"max_tokens\":1}".getBytes(StandardCharsets.UTF_8);
    for (Endpoint endpoint : Endpoint.values()) {
      ResponseRenderer renderer = ResponseRenderer.of(endpoint, json, config.seed(), -1, 0, config.model());
      try {
        GenerationRequest request = parser.parse(endpoint, endpoint == Endpoint.CHAT ? chat : completion);
        new StreamEvents(request, renderer, config.seed(), 2, "length", 1).totalBytes();
      } catch (ApiError e) {
        throw new IllegalStateException("the simulator rejects its own warm-up request: " + e, e);
      }
      renderer.completion("", "length", new TokenUsage(1, 1));
    }
    try {
      parser.parse(Endpoint.CHAT, new byte[] {'{'});
    } catch (ApiError expected) {
      expected.toJson(json);
    }
  }

  /** Marks the simulator as closing, so failures from closed connections count as such. */
  void closing() {
    closing = true;
  }

  Gauge inFlight() {
    return inFlight;
  }

  Gauge waiting() {
    return waiting;
  }

  Gauge running() {
    return running;
  }

  long requestCount() {
    return sequence.get();
  }

  /** Thrown out of the handler to make the JDK server close the connection mid-response. */
  private static final class DroppedConnection extends IOException {
    private static final long serialVersionUID = 1L;

    DroppedConnection(String requestId, int tokens) {
      super("simulator dropped the connection of " + requestId + " after " + tokens + " tokens");
    }
  }

  /** One request's state while it is served, on one thread. */
  private final class ServedRequest {

    private final HttpExchange exchange;
    private final Endpoint endpoint;
    private final TimelineRecorder recorder;
    private Generation generation; // non-null once admitted
    private boolean ended;

    ServedRequest(HttpExchange exchange, Endpoint endpoint, TimelineRecorder recorder) {
      this.exchange = exchange;
      this.endpoint = endpoint;
      this.recorder = recorder;
    }

    void serve() throws IOException {
      try {
        GenerationRequest request;
        try {
          request = parser.parse(endpoint, exchange.getRequestBody().readAllBytes());
        } catch (ApiError e) {
          sendError(e, Outcome.INVALID_REQUEST);
          return;
        }
        recorder.request(request.stream(), request.promptTokens());
        Fault fault = faults.decide(recorder.sequence());
        if (fault == Fault.SERVER_ERROR) {
          sendError(ApiError.internal("Injected server error: the simulator fails this request on "
              + "purpose (serverErrors probability " + config.serverErrorProbability() + ")"),
              Outcome.SERVER_ERROR);
          return;
        }
        int outputTokens = request.outputTokens(config.defaultOutputTokens());
        if (request.stream()) {
          stream(request, outputTokens, fault == Fault.DISCONNECT);
        } else {
          respond(request, outputTokens, fault == Fault.DISCONNECT);
        }
      } catch (InterruptedException e) {
        end(Outcome.SIMULATOR_CLOSED);
        Thread.currentThread().interrupt();
        throw new IOException("simulator closed while serving " + recorder.requestId(), e);
      } catch (DroppedConnection e) {
        throw e; // already ended; the server closes the connection
      } catch (IOException e) {
        end(closing ? Outcome.SIMULATOR_CLOSED : Outcome.CLIENT_GONE);
        log.debug("{} ended early: {}", recorder.requestId(), e.toString());
        throw e;
      } catch (RuntimeException | Error e) {
        log.error("simulator failed serving {}", recorder.requestId(), e);
        end(Outcome.SERVER_ERROR);
        throw e;
      }
    }

    private void stream(GenerationRequest request, int outputTokens, boolean drop)
        throws IOException, InterruptedException {
      StreamEvents events = new StreamEvents(request, renderer(), config.seed(), outputTokens,
          request.finishReason(config.defaultOutputTokens()), config.tokensPerChunk());
      exchange.getResponseHeaders().set("Content-Type", "text/event-stream; charset=utf-8");
      // A dropped stream announces the full length it will never deliver, so when the connection
      // closes the client sees a premature end of body, as from a server that died mid-stream,
      // and not the clean end of a chunked body.
      exchange.sendResponseHeaders(200, drop ? events.totalBytes() : 0);
      recorder.status(200);
      OutputStream body = exchange.getResponseBody();
      admit(request, outputTokens);
      int dropAfter = config.disconnectAfterTokens();
      while (events.hasNext()) {
        StreamEvents.Event event = events.next();
        if (drop && (recorder.tokensWritten() >= dropAfter || event.trailer())) {
          dropConnection();
        }
        if (event.readyAfterToken() >= 0) {
          generation.awaitToken(event.readyAfterToken());
        }
        if (!events.hasNext()) {
          // Publish before the last event ([DONE], no tokens): a client may treat the request as
          // finished, and look its timeline up, as soon as it has read it.
          end(Outcome.COMPLETED);
        }
        // Stamped before the write: a client on another core can read the bytes before this thread
        // returns from flush, and ground truth must never be later than what a client can see.
        long writeAt = System.nanoTime();
        body.write(event.bytes());
        body.flush(); // one HTTP chunk per event, on the wire now
        if (event.tokens() > 0) {
          recorder.tokensWritten(event.tokens(), writeAt);
        }
      }
      end(Outcome.COMPLETED);
      exchange.close();
    }

    private void respond(GenerationRequest request, int outputTokens, boolean drop)
        throws IOException, InterruptedException {
      admit(request, outputTokens);
      if (drop) {
        int tokens = Math.min(config.disconnectAfterTokens(), outputTokens);
        if (tokens > 0) {
          generation.awaitToken(tokens - 1);
        }
        dropConnection(); // before any response byte: the client sees the connection close
      }
      generation.awaitToken(outputTokens - 1);
      byte[] bytes = renderer().completion(OutputVocabulary.text(config.seed(), outputTokens),
          request.finishReason(config.defaultOutputTokens()),
          new TokenUsage(request.promptTokens(), outputTokens));
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, 0);
      recorder.status(200);
      OutputStream body = exchange.getResponseBody();
      long writeAt = System.nanoTime();
      body.write(bytes);
      body.flush();
      recorder.tokensWritten(outputTokens, writeAt);
      end(Outcome.COMPLETED);
      exchange.close();
    }

    private ResponseRenderer renderer() {
      return ResponseRenderer.of(endpoint, json, config.seed(), recorder.sequence(),
          System.currentTimeMillis() / 1000, config.model());
    }

    private void admit(GenerationRequest request, int outputTokens) throws InterruptedException {
      Generation admitted;
      waiting.increment();
      try {
        admitted = model.admit(request, outputTokens);
      } finally {
        waiting.decrement();
      }
      if (closing) {
        // Closing drops connections before it interrupts threads, which frees slots: a waiting
        // request must not slip into one and be counted as admitted by a simulator shutting down.
        admitted.close();
        throw new InterruptedException("simulator closing");
      }
      generation = admitted;
      running.increment();
      recorder.admitted(generation.admittedNanos());
    }

    private void dropConnection() throws DroppedConnection {
      end(Outcome.DISCONNECTED);
      throw new DroppedConnection(recorder.requestId(), recorder.tokensWritten());
    }

    private void sendError(ApiError error, Outcome outcome) throws IOException {
      byte[] bytes = error.toJson(json);
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(error.status(), 0);
      recorder.status(error.status());
      exchange.getResponseBody().write(bytes);
      exchange.getResponseBody().flush();
      end(outcome);
      exchange.close();
    }

    /** Freezes the timeline, frees the slot, and publishes; idempotent. */
    private void end(Outcome outcome) {
      if (ended) {
        return;
      }
      ended = true;
      long finish = System.nanoTime();
      if (generation != null) {
        running.decrement(); // before the slot is released, so running never exceeds the limit
        generation.close();
      }
      inFlight.decrement();
      timelines.publish(recorder.finish(outcome, finish));
    }
  }
}
