package io.infermark.testkit.simulator;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.infermark.testkit.simulator.ServerTimeline.Outcome;
import io.infermark.testkit.simulator.ServingModel.Generation;
import io.infermark.testkit.simulator.server.ChunkBuffer;
import io.infermark.testkit.simulator.server.Exchange;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves one POST to a generation endpoint from arrival to the end of its response: parses it,
 * submits it to the {@link ServingModel}, writes each chunk when its tokens are ready, and records
 * everything in the request's timeline and the server's metrics. Its fault, if it drew one, is a
 * {@link FaultInjection}, which the handler asks at each point where a fault may act.
 *
 * <p>A fault-free stream on a model that {@link ServingModel#pushes() pushes} (both do) is handed
 * over to the model after its headers ({@code Pushed}): the model's thread renders its ready events
 * straight into the connection's pending chunk and writes them with one non-blocking write per
 * round, so the handler thread returns at once. Every other response is written by its handler
 * thread, which waits for each token.
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
  private final ServerMetrics metrics;
  private final Gauge inFlight = new Gauge();
  private final Gauge waiting = new Gauge();
  private final Gauge running = new Gauge();
  private final AtomicLong sequence = new AtomicLong();
  /** The system codes of the request served before, for {@link PromptBehaviour#leakPreviousContext()}. */
  private final java.util.concurrent.atomic.AtomicReference<String[]> previousContext =
      new java.util.concurrent.atomic.AtomicReference<>();
  private volatile boolean closing;

  GenerationHandler(SimulatorConfig config, JsonFactory json, RequestParser parser, FaultPolicy faults,
      ServingModel model, TimelineStore timelines, ServerMetrics metrics) {
    this.config = config;
    this.json = json;
    this.parser = parser;
    this.faults = faults;
    this.model = model;
    this.timelines = timelines;
    this.metrics = metrics;
  }

  void handle(Exchange exchange, Endpoint endpoint) throws IOException {
    // Arrival is when the server had the whole request (the read that completed it), not when a
    // handler thread got to it: the hand-off to a handler is the server's own delay, and counting it
    // as arrival would move it into every client's "client-added" time.
    long arrival = exchange.arrivalNanos();
    long seq = sequence.getAndIncrement();
    String given = exchange.requestHeader(REQUEST_ID);
    String id = given == null || given.isBlank() ? "sim-" + seq : given;
    exchange.responseHeader(REQUEST_ID, id);
    inFlight.increment();
    new ServedRequest(exchange, endpoint, new TimelineRecorder(id, seq, endpoint.path(), arrival)).serve();
  }

  /**
   * Runs the parse and render paths once, off the clock, so the first real request does not pay
   * for loading and initialising Jackson's classes (tens of milliseconds, which would show up as
   * a slow first TTFT in every benchmark run against a fresh simulator).
   */
  void warmUp() {
    byte[] chat = warmUpChat();
    byte[] completion = "{\"prompt\":\"warm up\",\"max_tokens\":1}".getBytes(StandardCharsets.UTF_8);
    for (Endpoint endpoint : new Endpoint[] {Endpoint.CHAT, Endpoint.COMPLETIONS}) {
      ResponseRenderer renderer = ResponseRenderer.of(endpoint, json, config.seed(), -1, 0, config.model());
      try {
        GenerationRequest request = parser.parse(endpoint, endpoint == Endpoint.CHAT ? chat : completion);
        new StreamEvents(request, renderer, config.seed(), 2, "length", 1, 1).totalBytes();
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

  /** The warm-up chat request, written by Jackson so that any model name (quotes, backslashes) stays valid JSON. */
  private byte[] warmUpChat() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = json.createGenerator(out)) {
      g.writeStartObject();
      g.writeStringField("model", config.model());
      g.writeArrayFieldStart("messages");
      g.writeStartObject();
      g.writeStringField("role", "user");
      g.writeStringField("content", "warm up");
      g.writeEndObject();
      g.writeEndArray();
      g.writeBooleanField("stream", true);
      g.writeNumberField("max_tokens", 2);
      g.writeBooleanField("ignore_eos", true);
      g.writeObjectFieldStart("stream_options");
      g.writeBooleanField("include_usage", true);
      g.writeBooleanField("continuous_usage_stats", true);
      g.writeEndObject();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("could not write the warm-up request", e); // in memory: never
    }
    return out.toByteArray();
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

  /** Thrown out of the handler to make the server close the connection mid-response. */
  private static final class DroppedConnection extends IOException {
    private static final long serialVersionUID = 1L;

    DroppedConnection(String requestId, int tokens) {
      super("simulator dropped the connection of " + requestId + " after " + tokens + " tokens");
    }
  }

  /** One request's state while it is served, on one thread. */
  private final class ServedRequest implements FaultInjection.Request {

    private final Exchange exchange;
    private final Endpoint endpoint;
    private final TimelineRecorder recorder;
    private Generation generation; // non-null once submitted
    private boolean admitted;
    private FaultInjection fault = FaultInjection.none();
    private GenerationRequest request;
    private String[] script = new String[0]; // the words the response begins with (PromptBehaviour)
    private String finishReason;
    private boolean ended;

    ServedRequest(Exchange exchange, Endpoint endpoint, TimelineRecorder recorder) {
      this.exchange = exchange;
      this.endpoint = endpoint;
      this.recorder = recorder;
    }

    void serve() throws IOException {
      try {
        try {
          request = parser.parse(endpoint, exchange.requestBody());
        } catch (ApiError e) {
          sendError(e, Outcome.INVALID_REQUEST);
          return;
        }
        script = config.promptBehaviour().script(exchange.requestBody(), previousContext);
        recorder.request(request.stream(), request.promptTokens());
        int natural = config.naturalOutputTokens(recorder.sequence());
        int outputTokens = request.outputTokens(natural);
        finishReason = request.finishReason(natural);
        String tooBig = model.rejection(request.promptTokens(), outputTokens);
        if (tooBig != null) {
          sendError(ApiError.badRequest("The request cannot fit the simulated KV cache: " + tooBig, "max_tokens"),
              Outcome.INVALID_REQUEST);
          return;
        }
        fault = FaultInjection.decide(faults, recorder, metrics);
        if (fault.rejectedOnArrival(this)) {
          return;
        }
        if (request.stream() && fault.isNone() && model.pushes()) {
          push(outputTokens);
          return;
        }
        generation = model.submit(recorder.requestId(), recorder.arrivalNanos(), request.promptTokens(),
            request.promptTokenHashes(), outputTokens);
        if (request.stream()) {
          stream(outputTokens);
        } else {
          respond(outputTokens);
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

    private void stream(int outputTokens) throws IOException, InterruptedException {
      StreamEvents events = new StreamEvents(request, renderer(), config.seed(), outputTokens, finishReason,
          config.tokensPerChunk(), config.reasoningTokens(), script);
      boolean drop = fault.drops();
      exchange.responseHeader("Content-Type", events.contentType());
      fault.delayHeaders();
      // A dropped stream announces the full length it will never deliver, so when the connection
      // closes the client sees a premature end of body, as from a server that died mid-stream,
      // and not the clean end of a chunked body.
      exchange.sendResponseHeaders(200, drop ? events.totalBytes() : 0);
      recorder.status(200);
      OutputStream body = exchange.responseBody();
      admit();
      if (fault.isNone()) {
        streamCoalesced(events, body);
        return;
      }
      while (events.hasNext()) {
        StreamEvents.Event event = events.next();
        if (fault.strikeStream(this, event.trailer())) {
          return;
        }
        if (event.readyAfterToken() >= 0) {
          long ready = generation.awaitToken(event.readyAfterToken());
          fault.slowDown(ready);
        }
        // Stamped before the write: a client on another core can read the bytes before this thread
        // returns from flush, and ground truth must never be later than what a client can see.
        long writeAt = System.nanoTime();
        if (event.tokens() > 0) {
          tokensWritten(event.tokens(), writeAt);
        }
        if (!events.hasNext()) {
          // Publish before the last event ([DONE], or the last tokens where a protocol has no
          // terminator): a client may treat the request as finished, and look its timeline up, as
          // soon as it has read it.
          end(Outcome.COMPLETED);
        }
        body.write(event.bytes());
        body.flush(); // one HTTP chunk per event, on the wire now
      }
      end(Outcome.COMPLETED);
      exchange.close();
    }

    /**
     * Streams a fault-free response without a thread: sends the headers, hands the request to the
     * model with a {@link Pushed} that the engine's thread drives from then on, and returns.
     */
    private void push(int outputTokens) throws IOException {
      StreamEvents events = new StreamEvents(request, renderer(), config.seed(), outputTokens, finishReason,
          config.tokensPerChunk(), config.reasoningTokens(), script);
      exchange.responseHeader("Content-Type", events.contentType());
      exchange.sendResponseHeaders(200, 0);
      recorder.status(200);
      Pushed pushed = new Pushed(events);
      synchronized (this) { // the engine may report progress before submit returns: it waits for this
        waiting.increment();
        exchange.onConnectionLost(pushed);
        generation = model.submit(recorder.requestId(), recorder.arrivalNanos(), request.promptTokens(),
            request.promptTokenHashes(), outputTokens, pushed);
      }
    }

    /**
     * A fault-free stream written by the engine's thread: each step, {@link #progressed()} gathers
     * every event whose tokens are ready, and {@link #flush()} stamps and writes them as one chunk in
     * one non-blocking write. All its state is guarded by the {@link ServedRequest}'s monitor.
     */
    private final class Pushed implements ServingModel.Push, Exchange.LostListener {

      private final StreamEvents events;
      private final ChunkBuffer pending = new ChunkBuffer(512);
      private int pendingTokens;
      private boolean waitingCounted = true;

      Pushed(StreamEvents events) {
        this.events = events;
      }

      @Override
      public void progressed() {
        synchronized (ServedRequest.this) {
          if (ended) {
            return;
          }
          if (!admitted) {
            if (!generation.isAdmitted()) {
              return;
            }
            uncountWaiting();
            if (closing) {
              end(Outcome.SIMULATOR_CLOSED);
              exchange.abort();
              return;
            }
            admitted = true;
            running.increment();
            try {
              recorder.admitted(generation.awaitAdmission()); // admitted: returns at once
            } catch (InterruptedException e) {
              throw new IllegalStateException("an admitted request cannot wait for admission", e);
            }
          }
          // Rendered straight into the connection's pending chunk: no per-event allocation.
          while (events.hasNext()) {
            int after = events.nextReadyAfterToken();
            if (after >= 0 && !generation.isReady(after)) {
              break;
            }
            pendingTokens += events.appendNext(pending);
          }
        }
      }

      @Override
      public void flush() {
        synchronized (ServedRequest.this) {
          if (ended || pending.isEmpty()) {
            return;
          }
          boolean last = !events.hasNext();
          // Stamped (and recorded) before the write: a client on another core can read the bytes
          // before this thread returns from the write, and ground truth must never be later.
          long writeAt = System.nanoTime();
          if (pendingTokens > 0) {
            tokensWritten(pendingTokens, writeAt);
            pendingTokens = 0;
          }
          if (last) {
            end(Outcome.COMPLETED); // published before [DONE] goes out, as on the threaded path
          }
          try {
            exchange.writeChunk(pending, last);
          } catch (IOException e) {
            if (!last) {
              end(closing ? Outcome.SIMULATOR_CLOSED : Outcome.CLIENT_GONE);
            }
            exchange.abort();
            log.debug("{} ended early: {}", recorder.requestId(), e.toString());
          }
        }
      }

      @Override
      public void connectionLost() {
        synchronized (ServedRequest.this) {
          if (!ended) {
            uncountWaiting();
            end(closing ? Outcome.SIMULATOR_CLOSED : Outcome.CLIENT_GONE);
          }
        }
      }

      private void uncountWaiting() {
        if (waitingCounted) {
          waitingCounted = false;
          waiting.decrement();
        }
      }
    }

    /**
     * Writes the events of a fault-free stream, each as soon as its tokens are ready, and every
     * event that is already ready by then in the same write: a handler that woke late (the engine
     * produced several tokens meanwhile, as when 256 streams share two cores) catches up with one
     * system call, not one per token, as a real server flushing a step's output would.
     */
    private void streamCoalesced(StreamEvents events, OutputStream body) throws IOException, InterruptedException {
      java.io.ByteArrayOutputStream batch = new java.io.ByteArrayOutputStream(512);
      StreamEvents.Event next = events.next();
      while (next != null) {
        if (next.readyAfterToken() >= 0) {
          generation.awaitToken(next.readyAfterToken());
        }
        batch.reset();
        int tokens = 0;
        boolean last;
        do {
          batch.write(next.bytes());
          tokens += next.tokens();
          next = events.hasNext() ? events.next() : null;
          last = next == null;
        } while (next != null && (next.readyAfterToken() < 0 || readyNow(next.readyAfterToken())));
        // Stamped (and recorded) before the write: a client on another core can read the bytes
        // before this thread returns from flush, and ground truth must never be later than that.
        long writeAt = System.nanoTime();
        if (tokens > 0) {
          tokensWritten(tokens, writeAt);
        }
        if (last) {
          // Publish before the last event ([DONE]) goes out: a client may look the timeline up
          // as soon as it has read it.
          end(Outcome.COMPLETED);
        }
        batch.writeTo(body);
        body.flush(); // one HTTP chunk per write, on the wire now
      }
      exchange.close();
    }

    private boolean readyNow(int token) throws InterruptedException {
      if (!generation.isReady(token)) {
        return false;
      }
      generation.awaitToken(token); // returns at once; keeps the model's own bookkeeping
      return true;
    }

    private void respond(int outputTokens) throws IOException, InterruptedException {
      admit();
      int dropAfter = fault.dropAfterTokens(outputTokens);
      if (dropAfter >= 0) {
        if (dropAfter > 0) {
          generation.awaitToken(dropAfter - 1);
        }
        dropConnection(); // before any response byte: the client sees the connection close
      }
      long ready = generation.awaitToken(outputTokens - 1);
      fault.slowDown(ready);
      if (fault.strikeResponse(this)) {
        return;
      }
      ResponseRenderer renderer = renderer();
      int reasoning = renderer.carriesReasoning() ? Math.min(config.reasoningTokens(), outputTokens) : 0;
      byte[] bytes = renderer.completion(OutputVocabulary.text(config.seed(), 0, reasoning),
          StreamEvents.text(config.seed(), script, 0, reasoning, outputTokens), finishReason,
          new TokenUsage(request.promptTokens(), outputTokens));
      Outcome outcome = Outcome.COMPLETED;
      if (fault.malformsBody()) {
        bytes = FaultInjection.cut(bytes);
        outcome = Outcome.MALFORMED_CHUNK;
      }
      exchange.responseHeader("Content-Type", "application/json");
      for (java.util.Map.Entry<String, String> h : renderer.completionHeaders(renderer.reportedTimings()).entrySet()) {
        exchange.responseHeader(h.getKey(), h.getValue());
      }
      fault.delayHeaders();
      exchange.sendResponseHeaders(200, 0);
      recorder.status(200);
      OutputStream body = exchange.responseBody();
      long writeAt = System.nanoTime();
      body.write(bytes);
      body.flush();
      tokensWritten(outputTokens, writeAt);
      end(outcome);
      exchange.close();
    }

    @Override
    public void finishWith(Outcome outcome, byte[] event) throws IOException {
      // The timeline is published before the last event goes out.
      end(outcome);
      OutputStream body = exchange.responseBody();
      body.write(event);
      body.flush();
      exchange.close();
    }

    @Override
    public void responseHeader(String name, String value) {
      exchange.responseHeader(name, value);
    }

    @Override
    public int tokensWritten() {
      return recorder.tokensWritten();
    }

    private void tokensWritten(int count, long writeAt) {
      if (recorder.tokensWritten() == 0) {
        metrics.firstToken(writeAt - recorder.arrivalNanos(), request.promptTokens());
      }
      recorder.tokensWritten(count, writeAt);
      metrics.tokens(count);
    }

    @Override
    public ResponseRenderer renderer() {
      ResponseRenderer r = ResponseRenderer.of(endpoint, json, config.seed(), recorder.sequence(),
          System.currentTimeMillis() / 1000, config.model());
      if (r instanceof TgiRenderer tgi && request != null) {
        tgi.details(request.includeUsage()); // the parser carries TGI's parameters.details as include-usage
      } else if (r instanceof TritonRenderer triton && request != null) {
        triton.numOutputTokens(request.includeUsage()); // and Triton's return_num_output_tokens
      }
      r.engineTimeline(() -> generation == null ? null : generation.engineTimeline());
      r.reportCachedTokens(config.engine().map(EngineProfile::prefixCaching).orElse(false));
      return r;
    }

    private void admit() throws InterruptedException {
      long at;
      waiting.increment();
      try {
        at = generation.awaitAdmission();
      } finally {
        waiting.decrement();
      }
      if (closing) {
        // Closing drops connections before it interrupts threads, which frees slots: a waiting
        // request must not slip into one and be counted as admitted by a simulator shutting down.
        throw new InterruptedException("simulator closing");
      }
      admitted = true;
      running.increment();
      recorder.admitted(at);
    }

    @Override
    public void dropConnection() throws DroppedConnection {
      end(Outcome.DISCONNECTED);
      throw new DroppedConnection(recorder.requestId(), recorder.tokensWritten());
    }

    @Override
    public void sendError(ApiError error, Outcome outcome) throws IOException {
      ResponseRenderer renderer = renderer();
      byte[] bytes = renderer.errorBody(error);
      int status = error.status();
      if (renderer.errorsInsideStream()) {
        // TGI's generate_stream never fails before its stream: the error is its one event.
        status = 200;
        bytes = ResponseRenderer.frame(bytes);
        exchange.responseHeader("Content-Type", renderer.streamContentType());
      } else {
        exchange.responseHeader("Content-Type", "application/json");
      }
      exchange.sendResponseHeaders(status, 0);
      recorder.status(status);
      exchange.responseBody().write(bytes);
      exchange.responseBody().flush();
      end(outcome);
      exchange.close();
    }

    /** Freezes the timeline, frees the model's capacity, and publishes; idempotent. */
    private void end(Outcome outcome) {
      if (ended) {
        return;
      }
      ended = true;
      long finish = System.nanoTime();
      if (admitted) {
        running.decrement(); // before the slot is released, so running never exceeds the limit
      }
      if (generation != null) {
        generation.close();
        recorder.engine(generation.engineTimeline());
      }
      if (outcome == Outcome.COMPLETED) {
        metrics.finished(finishReason, finish - recorder.arrivalNanos());
      }
      inFlight.decrement();
      timelines.publish(recorder.finish(outcome, finish));
    }
  }
}
