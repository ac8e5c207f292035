package io.infermark.testkit.simulator.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.infermark.testkit.simulator.kserve.InferParameter;
import io.infermark.testkit.simulator.kserve.ModelInferRequest;
import io.infermark.testkit.simulator.kserve.ModelInferResponse;
import io.infermark.testkit.simulator.kserve.ModelStreamInferResponse;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The simulator's gRPC front: Triton's {@code inference.GRPCInferenceService/ModelStreamInfer} on the
 * HTTP/2 server, served by the same router, engine, ground-truth timelines and faults as Triton's HTTP
 * {@code generate_stream}. A call's {@code ModelInferRequest} (TensorRT-LLM's or the vLLM backend's
 * tensors) becomes the {@code generate_stream} request it means; what the engine then writes is
 * translated as it is written: each event one {@code ModelStreamInferResponse} with a BYTES
 * {@code text_output} in {@code raw_output_contents} (as Triton sends it), and a UINT32
 * {@code num_output_tokens} (the tokens of that response) when the call's BOOL input
 * {@code return_num_output_tokens} asked for it, all events of one write one
 * DATA frame, the end the trailers with {@code grpc-status} 0. An HTTP error becomes the gRPC status
 * Triton would send ({@code 429} RESOURCE_EXHAUSTED, {@code 503} UNAVAILABLE, {@code 400}
 * INVALID_ARGUMENT, {@code 404} NOT_FOUND, ...) in a trailers-only response; an error event an
 * {@code error_message}; a malformed event a message that is not protobuf; a dropped connection a
 * RST_STREAM. A {@code grpc-timeout} is enforced: when it passes, the call ends DEADLINE_EXCEEDED and
 * the engine learns the client is gone.
 *
 * <p>One request per stream (the client half-closes after it); the protobuf messages are the classes
 * protoc generates from {@code kserve_v2_inference.proto}, independent of the client's hand-written codec.
 */
public final class GrpcInferenceService {

  static final String STREAM_INFER = "/inference.GRPCInferenceService/ModelStreamInfer";
  static final int OK = 0;
  static final int INVALID_ARGUMENT = 3;
  static final int DEADLINE_EXCEEDED = 4;
  static final int UNIMPLEMENTED = 12;

  private static final ObjectMapper JSON = new ObjectMapper();

  private GrpcInferenceService() {}

  /** Whether a request is a gRPC call (its content type is {@code application/grpc...}). */
  static boolean isGrpc(Http2Headers headers) {
    CharSequence type = headers.get("content-type");
    return type != null && type.toString().toLowerCase(Locale.ROOT).startsWith("application/grpc");
  }

  /**
   * The exchange a call means, whose response goes out through a {@link Call}; null when the call was
   * answered at once (an unknown method, a request that is not a ModelInferRequest).
   */
  static Exchange exchange(NettyH2Server.Stream stream, String path, List<String[]> headers, byte[] body,
      long arrivalNanos) {
    if (!path.equals(STREAM_INFER)) {
      stream.trailersOnly(UNIMPLEMENTED, "the simulator serves only " + STREAM_INFER.substring(1) + ", not "
          + path.substring(1));
      return null;
    }
    ModelInferRequest request;
    try {
      request = onlyMessage(body);
    } catch (IllegalArgumentException | InvalidProtocolBufferException e) {
      stream.trailersOnly(INVALID_ARGUMENT, e.getMessage());
      return null;
    }
    ObjectNode generate = JSON.createObjectNode();
    boolean streamed = true;
    boolean hasText = false;
    for (int i = 0; i < request.getInputsCount(); i++) {
      ModelInferRequest.InferInputTensor in = request.getInputs(i);
      ByteString raw = i < request.getRawInputContentsCount() ? request.getRawInputContents(i) : null;
      switch (in.getName()) {
        case "text_input" -> {
          generate.put("text_input", firstBytes(in, raw).toStringUtf8());
          hasText = true;
        }
        case "max_tokens" -> generate.put("max_tokens", firstInt(in, raw));
        case "stream" -> streamed = firstBool(in, raw);
        case "return_num_output_tokens" -> generate.put("return_num_output_tokens", firstBool(in, raw));
        case "temperature" -> generate.put("temperature", in.getContents().getFp32ContentsCount() > 0
            ? in.getContents().getFp32Contents(0) : raw.asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN).getFloat());
        case "sampling_parameters" -> {
          try {
            JsonNode sampling = JSON.readTree(firstBytes(in, raw).toStringUtf8());
            if (sampling.has("max_tokens")) {
              generate.set("max_tokens", sampling.get("max_tokens"));
            }
            if (sampling.has("temperature")) {
              generate.set("temperature", sampling.get("temperature"));
            }
          } catch (IOException e) {
            stream.trailersOnly(INVALID_ARGUMENT, "sampling_parameters is not a JSON object: " + e.getMessage());
            return null;
          }
        }
        default -> { } // exclude_input_in_output, min_length, ...: nothing the engine models
      }
    }
    if (!hasText) {
      stream.trailersOnly(INVALID_ARGUMENT, "input 'text_input' is missing");
      return null;
    }
    generate.put("stream", streamed);
    String tritonPath = "/v2/models/" + request.getModelName() + (streamed ? "/generate_stream" : "/generate");
    byte[] json;
    try {
      json = JSON.writeValueAsBytes(generate);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    List<String[]> h = new ArrayList<>(headers);
    h.removeIf(kv -> kv[0].equalsIgnoreCase("content-type") || kv[0].equalsIgnoreCase("content-length"));
    h.add(new String[] {"content-type", "application/json"});
    Call call = new Call(stream, streamed, request.getModelName(), request.getId());
    Exchange exchange = new Exchange(call, "POST", tritonPath, null, h, json, true, arrivalNanos);
    call.exchange = exchange;
    String timeout = header(headers, "grpc-timeout");
    if (timeout != null) {
      long nanos = timeoutNanos(timeout);
      if (nanos < 0) {
        stream.trailersOnly(INVALID_ARGUMENT, "grpc-timeout \"" + timeout + "\" is not a gRPC timeout");
        return null;
      }
      stream.schedule(call::deadlinePassed, Math.max(0, arrivalNanos + nanos - System.nanoTime()));
    }
    return exchange;
  }

  private static ModelInferRequest onlyMessage(byte[] body) throws InvalidProtocolBufferException {
    if (body.length < 5) {
      throw new IllegalArgumentException("the call carried no ModelInferRequest (the client must send one and "
          + "half-close)");
    }
    if (body[0] != 0) {
      throw new IllegalArgumentException("compressed messages are not accepted (no grpc-encoding is supported)");
    }
    long n = ByteBuffer.wrap(body, 1, 4).getInt() & 0xFFFFFFFFL;
    if (n != body.length - 5) {
      throw new IllegalArgumentException(n > body.length - 5 ? "the request message is cut short"
          : "the simulator serves one request per ModelStreamInfer stream; this one carried more");
    }
    return ModelInferRequest.parseFrom(ByteBuffer.wrap(body, 5, (int) n));
  }

  private static ByteString firstBytes(ModelInferRequest.InferInputTensor in, ByteString raw) {
    if (in.getContents().getBytesContentsCount() > 0) {
      return in.getContents().getBytesContents(0);
    }
    if (raw == null || raw.size() < 4) {
      throw new IllegalArgumentException("BYTES input '" + in.getName() + "' has no element");
    }
    int len = raw.substring(0, 4).asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN).getInt();
    return raw.substring(4, 4 + len);
  }

  private static long firstInt(ModelInferRequest.InferInputTensor in, ByteString raw) {
    var c = in.getContents();
    if (c.getIntContentsCount() > 0) {
      return c.getIntContents(0);
    }
    if (c.getInt64ContentsCount() > 0) {
      return c.getInt64Contents(0);
    }
    if (c.getUintContentsCount() > 0) {
      return c.getUintContents(0);
    }
    ByteBuffer b = raw.asReadOnlyByteBuffer().order(ByteOrder.LITTLE_ENDIAN);
    return in.getDatatype().endsWith("64") ? b.getLong() : b.getInt();
  }

  private static boolean firstBool(ModelInferRequest.InferInputTensor in, ByteString raw) {
    if (in.getContents().getBoolContentsCount() > 0) {
      return in.getContents().getBoolContents(0);
    }
    return raw != null && raw.size() > 0 && raw.byteAt(0) != 0;
  }

  private static String header(List<String[]> headers, String name) {
    for (String[] h : headers) {
      if (h[0].equalsIgnoreCase(name)) {
        return h[1];
      }
    }
    return null;
  }

  /** A {@code grpc-timeout} value (up to 8 digits and a unit H, M, S, m, u, n) in nanoseconds; -1 if invalid. */
  static long timeoutNanos(String value) {
    String v = value.strip();
    if (v.length() < 2 || v.length() > 9) {
      return -1;
    }
    long amount;
    try {
      amount = Long.parseLong(v.substring(0, v.length() - 1));
    } catch (NumberFormatException e) {
      return -1;
    }
    TimeUnit unit = switch (v.charAt(v.length() - 1)) {
      case 'H' -> TimeUnit.HOURS;
      case 'M' -> TimeUnit.MINUTES;
      case 'S' -> TimeUnit.SECONDS;
      case 'm' -> TimeUnit.MILLISECONDS;
      case 'u' -> TimeUnit.MICROSECONDS;
      case 'n' -> TimeUnit.NANOSECONDS;
      default -> null;
    };
    return unit == null || amount < 0 ? -1 : unit.toNanos(amount);
  }

  /** The gRPC status Triton answers an HTTP status with. */
  static int statusFor(int httpStatus) {
    return switch (httpStatus) {
      case 400 -> INVALID_ARGUMENT;
      case 401 -> 16; // UNAUTHENTICATED
      case 403 -> 7; // PERMISSION_DENIED
      case 404 -> 5; // NOT_FOUND
      case 405, 501 -> UNIMPLEMENTED;
      case 408, 504 -> DEADLINE_EXCEEDED;
      case 413, 429 -> 8; // RESOURCE_EXHAUSTED
      case 503 -> 14; // UNAVAILABLE
      case 500 -> 13; // INTERNAL
      default -> 2; // UNKNOWN
    };
  }

  /** {@code grpc-message}'s percent-encoding: printable ASCII but '%' kept, the rest as UTF-8 escapes. */
  static String encodeMessage(String message) {
    StringBuilder b = new StringBuilder(message.length());
    for (byte x : message.getBytes(StandardCharsets.UTF_8)) {
      int c = x & 0xFF;
      if (c >= 0x20 && c <= 0x7E && c != '%') {
        b.append((char) c);
      } else {
        b.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
      }
    }
    return b.toString();
  }

  static Http2Headers trailers(int status, String message) {
    DefaultHttp2Headers h = new DefaultHttp2Headers();
    h.add(AsciiString.of("grpc-status"), Integer.toString(status));
    if (!message.isEmpty()) {
      h.add(AsciiString.of("grpc-message"), encodeMessage(message));
    }
    return h;
  }

  /**
   * One call's response: the exchange writes a Triton HTTP response into it, and it writes the gRPC
   * response that means. Its methods run on the engine's and handler threads, its deadline on the I/O
   * thread: all under its lock, each write queued on the I/O thread in order.
   */
  static final class Call implements Exchange.H2Wire {
    private final NettyH2Server.Stream stream;
    private final boolean streamed;
    private final String model;
    private final String id;
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream(256);
    Exchange exchange;
    private int status;
    private boolean headersSent;
    private boolean ended;

    Call(NettyH2Server.Stream stream, boolean streamed, String model, String id) {
      this.stream = stream;
      this.streamed = streamed;
      this.model = model;
      this.id = id;
    }

    @Override
    public synchronized void head(int status, List<String[]> headers, boolean endStream) throws IOException {
      if (ended) {
        return;
      }
      this.status = status;
      if (status == 200) {
        headersSent = true;
        stream.grpcHeaders();
        if (endStream) {
          end(OK, "");
        }
      } else if (endStream) {
        end(statusFor(status), "HTTP " + status);
      }
    }

    @Override
    public synchronized void data(ByteBuffer content, boolean endStream) throws IOException {
      if (ended) {
        return;
      }
      byte[] bytes = new byte[content.remaining()];
      content.get(bytes);
      pending.writeBytes(bytes);
      if (status != 200) {
        if (endStream) {
          end(statusFor(status), errorText(pending.toString(StandardCharsets.UTF_8), status));
        }
        return;
      }
      ByteArrayOutputStream frames = new ByteArrayOutputStream(128);
      if (streamed) {
        List<byte[]> events = completeEvents();
        for (int i = 0; i < events.size(); i++) {
          frames.writeBytes(frame(translate(events.get(i), endStream && i == events.size() - 1)));
        }
      } else if (endStream) {
        frames.writeBytes(frame(translate(pending.toByteArray(), true)));
        pending.reset();
      }
      if (frames.size() > 0) {
        stream.data(ByteBuffer.wrap(frames.toByteArray()), false);
      }
      if (endStream) {
        end(OK, "");
      }
    }

    /** The SSE events complete in what was written so far ({@code data: } payloads); the rest stays pending. */
    private List<byte[]> completeEvents() {
      byte[] all = pending.toByteArray();
      List<byte[]> events = new ArrayList<>(2);
      int start = 0;
      for (int i = 0; i + 1 < all.length; i++) {
        if (all[i] == '\n' && all[i + 1] == '\n') {
          String event = new String(all, start, i - start, StandardCharsets.UTF_8);
          for (String line : event.split("\n")) {
            if (line.startsWith("data:")) {
              events.add(line.substring(5).strip().getBytes(StandardCharsets.UTF_8));
            }
          }
          start = i + 2;
          i++;
        }
      }
      pending.reset();
      pending.write(all, start, all.length - start);
      return events;
    }

    /** A Triton JSON payload as the ModelStreamInferResponse it stands for; a broken one as bytes that are not protobuf. */
    private byte[] translate(byte[] payload, boolean last) {
      JsonNode node;
      try {
        node = JSON.readTree(payload);
      } catch (IOException e) {
        node = null;
      }
      if (node == null || !node.isObject()) {
        return new byte[] {0x0F, 0x01}; // field 1 with wire type 7, which does not exist: a malformed event stays malformed
      }
      if (node.hasNonNull("error")) {
        return ModelStreamInferResponse.newBuilder().setErrorMessage(node.get("error").asText()).build().toByteArray();
      }
      byte[] text = node.path("text_output").asText("").getBytes(StandardCharsets.UTF_8);
      ByteBuffer raw = ByteBuffer.allocate(4 + text.length).order(ByteOrder.LITTLE_ENDIAN).putInt(text.length).put(text);
      ModelInferResponse.Builder response = ModelInferResponse.newBuilder().setModelName(model).setModelVersion("1")
          .setId(id).putParameters("triton_final_response", InferParameter.newBuilder().setBoolParam(last).build())
          .addOutputs(ModelInferResponse.InferOutputTensor.newBuilder().setName("text_output").setDatatype("BYTES")
              .addShape(1))
          .addRawOutputContents(ByteString.copyFrom(raw.array()));
      if (node.has("num_output_tokens")) {
        // the vLLM backend's UINT32 output, raw like every output Triton sends over gRPC
        byte[] count = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN)
            .putInt(node.get("num_output_tokens").asInt()).array();
        response.addOutputs(ModelInferResponse.InferOutputTensor.newBuilder().setName("num_output_tokens")
            .setDatatype("UINT32").addShape(1)).addRawOutputContents(ByteString.copyFrom(count));
      }
      return ModelStreamInferResponse.newBuilder().setInferResponse(response.build()).build().toByteArray();
    }

    private static byte[] frame(byte[] message) {
      return ByteBuffer.allocate(5 + message.length).put((byte) 0).putInt(message.length).put(message).array();
    }

    private static String errorText(String body, int status) {
      try {
        JsonNode node = JSON.readTree(body);
        JsonNode error = node.path("error");
        if (error.isTextual()) {
          return error.asText();
        }
        if (error.path("message").isTextual()) {
          return error.path("message").asText();
        }
      } catch (IOException e) {
        // not JSON: the body as it is
      }
      return body.isBlank() ? "HTTP " + status : body.strip();
    }

    /** Ends the call with {@code code}: trailers after a 200's headers, else a trailers-only response. */
    private void end(int code, String message) throws IOException {
      ended = true;
      if (headersSent) {
        stream.trailers(code, message);
      } else {
        stream.trailersOnly(code, message);
      }
    }

    /** The call's grpc-timeout passed; on the I/O thread. */
    void deadlinePassed() {
      synchronized (this) {
        if (ended) {
          return;
        }
        try {
          end(DEADLINE_EXCEEDED, "the call's deadline (grpc-timeout) passed before the response ended");
        } catch (IOException e) {
          return; // the stream is gone already
        }
      }
      exchange.connectionClosed(); // the engine stops generating for a client that has gone
    }

    @Override
    public void write(ByteBuffer bytes) {
      throw new UnsupportedOperationException("a gRPC call takes frames, not HTTP/1.1 bytes");
    }

    @Override
    public void exchangeEnded(Exchange ex, boolean keepAlive) {
      stream.exchangeEnded(ex, keepAlive);
    }

    /** Cuts the call off: RST_STREAM, as when a server dies mid-stream. */
    @Override
    public synchronized void close() {
      ended = true;
      stream.close();
    }
  }
}
