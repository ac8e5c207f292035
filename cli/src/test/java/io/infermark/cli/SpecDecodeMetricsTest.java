package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SpecDecodeMetricsTest {

  private static final String PAGE = """
      # HELP vllm:spec_decode_num_drafts_total Number of spec decoding drafts.
      # TYPE vllm:spec_decode_num_drafts_total counter
      vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 10.0
      vllm:spec_decode_num_drafts_total{engine="1",model_name="m"} 5.0
      vllm:spec_decode_num_draft_tokens_total{engine="0",model_name="m"} 45.0
      vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} 30.0
      vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="0"} 14.0
      vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="1"} 9.0
      vllm:num_requests_running{engine="0",model_name="m"} 3.0
      """;

  private HttpServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  private String serve(int status, byte[] body) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/metrics", exchange -> {
      exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    server.start();
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  @Test
  void theCountersAreSummedOverEnginesFromTheServersMetricsPage() throws IOException {
    String root = serve(200, PAGE.getBytes(StandardCharsets.UTF_8));
    assertThat(SpecDecodeMetrics.scrape(root))
        .contains(new SpecDecodeMetrics(15, 45, 30, Map.of(0, 14L, 1, 9L)));
  }

  @Test
  void aServerWithoutTheCountersOrWithoutMetricsGivesNone() throws IOException {
    String root = serve(200, "vllm:num_requests_running 3.0\n".getBytes(StandardCharsets.UTF_8));
    assertThat(SpecDecodeMetrics.scrape(root)).isEmpty();
    stop();
    assertThat(SpecDecodeMetrics.scrape(serve(404, new byte[0]))).isEmpty();
  }

  @Test
  void aPageLongerThanTheBoundIsNotReadWhole() throws IOException {
    byte[] page = new byte[SpecDecodeMetrics.MAX_PAGE_BYTES + 1];
    byte[] counters = PAGE.getBytes(StandardCharsets.UTF_8);
    java.util.Arrays.fill(page, (byte) '\n');
    System.arraycopy(counters, 0, page, 0, counters.length);
    assertThat(SpecDecodeMetrics.scrape(serve(200, page))).isEmpty();
  }

  @Test
  void nothingListeningGivesNone() throws IOException {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    assertThat(SpecDecodeMetrics.scrape("http://127.0.0.1:" + port)).isEmpty();
  }
}
