package io.infermark.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.Benchmark;
import io.infermark.core.PreflightFailedException;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.Prompt;
import io.infermark.core.transport.OkHttpTransport;
import io.infermark.core.transport.netty.NettyTransport;
import io.infermark.testfixtures.RawServer;
import io.infermark.testfixtures.TestCertificate;
import java.io.InputStream;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * TLS verification is on unless switched off explicitly, and a run without it is never silent: the
 * switch (or a user's trust-all client) marks the target, every record and the result.
 */
class InsecureTlsTest {

  private static final String STREAM = "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n";

  @TempDir
  static Path tls;

  private static TestCertificate certificate;

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  @BeforeAll
  static void makeASelfSignedCertificate() {
    certificate = TestCertificate.create(tls);
  }

  private RawServer tlsServer() throws Exception {
    RawServer s = new RawServer(certificate.serverSocketFactory(), (socket, i) -> {
      InputStream in = socket.getInputStream();
      while (RawServer.readRequest(in) != null) {
        RawServer.write(socket.getOutputStream(), "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            + "Content-Length: " + STREAM.length() + "\r\n\r\n" + STREAM);
      }
    });
    open.add(s);
    return s;
  }

  /** A user's client that trusts everything, the way too many snippets online build one. */
  private static OkHttpClient trustAllClient() throws Exception {
    X509TrustManager all = new X509TrustManager() {
      @Override
      public void checkClientTrusted(X509Certificate[] chain, String authType) {}

      @Override
      public void checkServerTrusted(X509Certificate[] chain, String authType) {}

      @Override
      public X509Certificate[] getAcceptedIssuers() {
        return new X509Certificate[0];
      }
    };
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, new TrustManager[] {all}, null);
    return new OkHttpClient.Builder().sslSocketFactory(ctx.getSocketFactory(), all)
        .hostnameVerifier((host, session) -> true).build();
  }

  static Stream<Named<Function<OpenAiTarget.Builder, OpenAiTarget.Builder>>> insecureTargets() {
    return Stream.of(
        Named.of("netty insecureTls", b -> b.insecureTls(true)),
        Named.of("okhttp insecureTls", b -> b.httpClient(new OkHttpClient()).insecureTls(true)),
        Named.of("okhttp trust-all client", b -> {
          try {
            return b.httpClient(trustAllClient());
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }));
  }

  private RunResult run(OpenAiTarget target) {
    open.add(target);
    return Benchmark.target(target).prompts(List.of(Prompt.text("hi")))
        .load(LoadProfile.concurrency(1).requests(3)).run();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("insecureTargets")
  void anUnverifiedRunMarksTheTargetEveryRecordAndTheResult(Function<OpenAiTarget.Builder, OpenAiTarget.Builder> how)
      throws Exception {
    RawServer server = tlsServer();
    OpenAiTarget target = how.apply(OpenAiTarget.chat("https://localhost:" + server.port() + "/v1", "m")).build();

    RunResult result = run(target);

    assertThat(target.insecureTls()).isTrue();
    assertThat(target.toString()).contains("INSECURE TLS");
    assertThat(result.records()).hasSize(3).allSatisfy(r -> {
      assertThat(r.succeeded()).as("%s", r).isTrue();
      assertThat(r.insecureTls()).isTrue();
      assertThat(r.toString()).contains("INSECURE TLS");
    });
    assertThat(result.insecureTls()).isTrue();
    assertThat(result.toString()).contains("INSECURE TLS");
  }

  @Test
  void verificationIsOnByDefaultAndTheRecordsAreUnmarked() throws Exception {
    RawServer server = tlsServer();
    OpenAiTarget target = OpenAiTarget.chat("https://localhost:" + server.port() + "/v1", "m")
        .connectTimeout(Duration.ofSeconds(5)).build();

    // the pre-flight request stops the run at once, with the handshake's reason
    open.add(target);
    assertThatThrownBy(() -> run(target)).isInstanceOf(PreflightFailedException.class)
        .hasMessageContaining("TLS handshake").hasMessageContaining("PKIX");
    RunResult result = Benchmark.target(target).preflight(false).prompts(List.of(Prompt.text("hi")))
        .load(LoadProfile.concurrency(1).requests(3)).run();

    assertThat(target.insecureTls()).isFalse();
    assertThat(result.insecureTls()).isFalse();
    assertThat(result.records()).hasSize(3);
    assertThat(result.records()).allSatisfy(r -> {
      assertThat(r.failure().orElseThrow().category()).isEqualTo(ErrorCategory.CONNECT);
      assertThat(r.insecureTls()).isFalse();
    });
  }

  @Test
  void anOrdinaryOkHttpClientIsNotTakenForATrustAllOne() {
    try (OkHttpTransport t = OkHttpTransport.of(new OkHttpClient(), Duration.ofSeconds(1))) {
      assertThat(t.insecureTls()).isFalse();
    }
    assertThat(OkHttpTransport.of(new OkHttpClient(), Duration.ofSeconds(1), true).insecureTls()).isTrue();
  }

  @Test
  void insecureTlsCannotBeMixedWithATrustStoreOrAGivenTransport() {
    assertThatThrownBy(() -> NettyTransport.builder().insecureTls(true)
        .trustManagerFactory(javax.net.ssl.TrustManagerFactory.getInstance("PKIX")).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("contradict");
    NettyTransport given = NettyTransport.create();
    open.add(given);
    assertThatThrownBy(() -> OpenAiTarget.chat("https://localhost:1/v1", "m").transport(given).insecureTls(true)
        .build()).isInstanceOf(IllegalStateException.class).hasMessageContaining("insecureTls");
  }

  @Test
  void recordsReadBackKeepTheMark() {
    RequestRecord r = RequestRecord.builder().insecureTls(true).retries(1).redirects(2).finalUrl("https://h/v1").build();
    assertThat(r.toBuilder().build()).isEqualTo(r);
    assertThat(r.toString()).contains("retried 1").contains("2 redirects to https://h/v1").contains("INSECURE TLS");
  }
}
