package io.infermark.testkit.simulator.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.testkit.junit.InjectSimulator;
import io.infermark.testkit.junit.SimulatorExtension;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The simulator's HTTP/1.1 transport, spoken to over a raw socket. */
class Http1ServerTest {

  @InjectSimulator
  private Simulator sim;

  /** A parsed response: status, headers (lower-case names) and body. */
  private record Response(int status, Map<String, String> headers, String body) {}

  @RegisterExtension
  static final SimulatorExtension SIMULATOR = SimulatorExtension.withConfig(SimulatorConfig.defaults());

  @Test
  void keepAliveServesPipelinedRequestsInOrderOnOneConnection() throws IOException {
    try (Socket socket = socket()) {
      send(socket, "GET /health HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n");
      InputStream in = socket.getInputStream();

      Response health = read(in);
      Response models = read(in);

      assertThat(health.status()).isEqualTo(200);
      assertThat(health.body()).isEmpty();
      assertThat(models.status()).isEqualTo(200);
      assertThat(models.body()).contains("\"id\":\"infermark-sim\"");
      assertThat(models.headers()).doesNotContainKey("connection");
    }
  }

  @Test
  void aPostBodyIsReadByItsContentLengthEvenWhenItArrivesInPieces() throws IOException {
    String body = "{\"model\":\"infermark-sim\",\"prompt\":\"hi\",\"max_tokens\":3}";
    try (Socket socket = socket()) {
      send(socket, "POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
          + "Content-Length: " + body.length() + "\r\n\r\n" + body.substring(0, 10));
      send(socket, body.substring(10));

      Response r = read(socket.getInputStream());

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.headers().get("transfer-encoding")).isEqualTo("chunked");
      assertThat(r.body()).contains("\"completion_tokens\":3");
    }
  }

  @Test
  void expectContinueGetsAnInterimResponseBeforeTheBodyIsSent() throws IOException {
    String body = "{\"model\":\"infermark-sim\",\"prompt\":\"hi\",\"max_tokens\":1}";
    try (Socket socket = socket()) {
      send(socket, "POST /v1/completions HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
          + "Content-Length: " + body.length() + "\r\n\r\n");
      InputStream in = socket.getInputStream();
      assertThat(read(in).status()).isEqualTo(100);
      send(socket, body);

      assertThat(read(in).status()).isEqualTo(200);
    }
  }

  @Test
  void connectionCloseIsHonouredAfterTheResponse() throws IOException {
    try (Socket socket = socket()) {
      send(socket, "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
      InputStream in = socket.getInputStream();

      Response r = read(in);

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.headers().get("connection")).isEqualTo("close");
      assertThat(in.read()).isEqualTo(-1);
    }
  }

  @Test
  void chunkedRequestBodiesAreRefusedWith411AndTheConnectionIsClosed() throws IOException {
    Response r = refusal("POST /v1/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "5\r\nhello\r\n0\r\n\r\n");

    assertThat(r.status()).isEqualTo(411);
    assertThat(r.body()).isEqualTo("{\"error\":{\"message\":\"Transfer-Encoding 'chunked' request bodies are not "
        + "supported; send the body with a Content-Length\",\"type\":\"BadRequestError\",\"param\":null,\"code\":411}}");
  }

  @Test
  void otherHttpVersionsAreRefusedWith505() throws IOException {
    Response r = refusal("GET /health HTTP/2.0\r\nHost: x\r\n\r\n");

    assertThat(r.status()).isEqualTo(505);
    assertThat(r.body()).contains("HTTP version 'HTTP/2.0' is not supported; use HTTP/1.1");
  }

  @Test
  void malformedRequestLinesHeadersAndLengthsAreRefusedWith400() throws IOException {
    assertThat(refusal("GET /health\r\n\r\n").body())
        .contains("Malformed request line 'GET /health'; expected METHOD SP target SP HTTP/1.1");
    assertThat(refusal("GET /health HTTP/1.1\r\nno colon here\r\n\r\n").body())
        .contains("Malformed header line 'no colon here'");
    assertThat(refusal("POST /v1/completions HTTP/1.1\r\nContent-Length: ten\r\n\r\n").body())
        .contains("Content-Length 'ten' is not a number");
    assertThat(refusal("POST /v1/completions HTTP/1.1\r\nContent-Length: " + (NettyHttp1Server.MAX_BODY_BYTES + 1L)
        + "\r\n\r\n").status()).isEqualTo(413);
  }

  @Test
  void aHeadLongerThanTheLimitIsRefusedWith431() throws IOException {
    String huge = "GET /health HTTP/1.1\r\nX-Big: " + "a".repeat(NettyHttp1Server.MAX_HEAD_BYTES) + "\r\n\r\n";

    assertThat(refusal(huge).status()).isEqualTo(431);
  }

  @Test
  void chunkBufferFramesContentAsOneHttpChunkAndTheLastChunk() {
    ChunkBuffer b = new ChunkBuffer(4);
    b.append("data: x\n\n".getBytes(StandardCharsets.US_ASCII));
    b.append("0123456789".getBytes(StandardCharsets.US_ASCII));

    assertThat(text(b.chunk(false))).isEqualTo("13\r\ndata: x\n\n0123456789\r\n");
    assertThat(b.isEmpty()).isTrue();
    b.append('z');
    assertThat(text(b.chunk(true))).isEqualTo("1\r\nz\r\n0\r\n\r\n");
    assertThat(text(b.chunk(true))).isEqualTo("0\r\n\r\n");
  }

  private static String text(ByteBuffer b) {
    return StandardCharsets.US_ASCII.decode(b).toString();
  }

  /** Sends a request the server refuses; returns its answer after checking the connection then closes. */
  private Response refusal(String request) throws IOException {
    try (Socket socket = socket()) {
      send(socket, request);
      InputStream in = socket.getInputStream();
      Response r = read(in);
      assertThat(r.headers().get("connection")).isEqualTo("close");
      assertThat(r.headers().get("content-type")).isEqualTo("application/json");
      assertThat(in.read()).isEqualTo(-1);
      return r;
    }
  }

  private Socket socket() throws IOException {
    Socket socket = new Socket("127.0.0.1", sim.port());
    socket.setSoTimeout(10_000);
    return socket;
  }

  private static void send(Socket socket, String text) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(text.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  /** Reads one response: its head, then a Content-Length or chunked body (none for a 1xx). */
  private static Response read(InputStream in) throws IOException {
    String statusLine = line(in);
    int status = Integer.parseInt(statusLine.split(" ")[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    for (String line = line(in); !line.isEmpty(); line = line(in)) {
      int colon = line.indexOf(':');
      headers.put(line.substring(0, colon).toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    if (status >= 200 && "chunked".equals(headers.get("transfer-encoding"))) {
      for (int size = Integer.parseInt(line(in), 16); size > 0; size = Integer.parseInt(line(in), 16)) {
        body.write(in.readNBytes(size));
        assertThat(line(in)).isEmpty();
      }
      assertThat(line(in)).isEmpty();
    } else if (headers.containsKey("content-length")) {
      body.write(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
    }
    return new Response(status, headers, body.toString(StandardCharsets.UTF_8));
  }

  private static String line(InputStream in) throws IOException {
    StringBuilder b = new StringBuilder();
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0) {
        throw new IOException("connection closed mid-line after '" + b + "'");
      }
      if (c != '\r') {
        b.append((char) c);
      }
    }
    return b.toString();
  }
}
