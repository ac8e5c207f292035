package io.infermark.benchmarks;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.stats.QuantileMethod;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How long a large request body takes from its recorded send time to the server: a raw HTTP server
 * on 127.0.0.1 stamps (on the same {@code System.nanoTime} clock) the moment it has read the last
 * byte of each request body, and the client's record says when it sent it. With Nagle's algorithm on,
 * a body over ~8 KiB leaves in two writes and the second waits for the server's 40 ms delayed ACK;
 * with {@code TCP_NODELAY} (both transports set it) the whole body arrives within a millisecond.
 *
 * <p>Run: {@code java -cp benchmarks-jmh/target/benchmarks.jar io.infermark.benchmarks.BodyDelivery
 * [transport=netty|okhttp] [bodyBytes=20000] [requests=500] [rate=50]}. Prints send → last body byte
 * at the server, p50/p90/p99/max in ms. A measurement, not a test.
 */
public final class BodyDelivery {

  private static final byte[] RESPONSE_BODY = ("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"}}]}\n\n"
      + "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1,\"total_tokens\":2}}\n\n"
      + "data: [DONE]\n\n").getBytes(StandardCharsets.US_ASCII);

  private BodyDelivery() {}

  /** Runs the measurement and prints one line. */
  public static void main(String[] args) throws IOException {
    String transport = args.length > 0 ? args[0] : "netty";
    int bodyBytes = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
    int requests = args.length > 2 ? Integer.parseInt(args[2]) : 500;
    double rate = args.length > 3 ? Double.parseDouble(args[3]) : 50;
    Map<String, Long> lastByteAt = new ConcurrentHashMap<>();
    try (ServerSocket server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress())) {
      Thread acceptor = new Thread(() -> accept(server, lastByteAt), "raw-server");
      acceptor.setDaemon(true);
      acceptor.start();
      String url = "http://127.0.0.1:" + server.getLocalPort() + "/v1";
      OpenAiTarget.Builder b = OpenAiTarget.chat(url, "raw");
      try (OpenAiTarget target = Transports.apply(b, transport).build()) {
        String words = "word ".repeat(Math.max(1, bodyBytes / 5));
        RunResult run = Benchmark.target(target).prompts(Prompt.user(words))
            .params(GenerationParams.builder().maxTokens(1).build())
            .load(LoadProfile.constantRate(rate).requests(requests).warmupRequests(Math.max(1, requests / 10))).run();
        double[] ms = run.measured().stream().filter(RequestRecord::succeeded)
            .mapToDouble(r -> (lastByteAt.getOrDefault(r.requestId(), Long.MIN_VALUE)
                - (run.originNanos() + r.sendNanos())) / 1e6)
            .filter(v -> v > -1e6).sorted().toArray();
        QuantileMethod q = QuantileMethod.LINEAR;
        System.out.printf(Locale.ROOT, "%s, %d-byte bodies, %d requests (%d failed): send -> last body byte at the "
                + "server p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms%n", target.transport().name(),
            words.length(), ms.length, run.failureCount(), q.quantile(ms, 0.5),
            q.quantile(ms, 0.9), q.quantile(ms, 0.99), ms.length == 0 ? Double.NaN : ms[ms.length - 1]);
        System.out.println("client health: " + run.clientHealth());
      }
    }
  }

  private static void accept(ServerSocket server, Map<String, Long> lastByteAt) {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        Thread t = new Thread(() -> serve(s, lastByteAt), "raw-conn");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return;
      }
    }
  }

  /** Serves keep-alive requests on one connection: reads head and body, stamps the last byte, answers. */
  private static void serve(Socket s, Map<String, Long> lastByteAt) {
    try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
      while (true) {
        String head = readHead(in);
        if (head == null) {
          return;
        }
        int length = 0;
        String id = "";
        for (String line : head.split("\r\n")) {
          int colon = line.indexOf(':');
          if (colon > 0) {
            String name = line.substring(0, colon).strip().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).strip();
            if (name.equals("content-length")) {
              length = Integer.parseInt(value);
            } else if (name.equals("x-request-id")) {
              id = value;
            }
          }
        }
        byte[] body = in.readNBytes(length);
        long at = System.nanoTime();
        if (body.length < length) {
          return;
        }
        lastByteAt.put(id, at);
        out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: " + RESPONSE_BODY.length
            + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(RESPONSE_BODY);
        out.flush();
      }
    } catch (IOException e) {
      // the client closed the connection
    }
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream(512);
    int matched = 0;
    int c;
    while ((c = in.read()) != -1) {
      head.write(c);
      matched = (c == '\r' && (matched == 0 || matched == 2)) || (c == '\n' && (matched == 1 || matched == 3))
          ? matched + 1 : (c == '\r' ? 1 : 0);
      if (matched == 4) {
        return head.toString(StandardCharsets.US_ASCII);
      }
    }
    return null;
  }
}
