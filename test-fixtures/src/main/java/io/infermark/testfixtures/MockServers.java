package io.infermark.testfixtures;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;
import mockwebserver3.MockWebServer;
import okhttp3.Protocol;

/**
 * Starts MockWebServers that speak HTTP/2 without TLS (h2c, prior knowledge) or TLS with a
 * {@link TestCertificate}: the set-up tests of both HTTP versions repeat.
 */
public final class MockServers {

  private MockServers() {}

  /** A started server that speaks only h2c with prior knowledge; its owner closes it. */
  public static MockWebServer h2c() {
    return builder().protocols(List.of(Protocol.H2_PRIOR_KNOWLEDGE)).start();
  }

  /** A builder of one server: HTTP/1.1 in plain text unless told otherwise. */
  public static Builder builder() {
    return new Builder();
  }

  /** Configures one MockWebServer before it starts. */
  public static final class Builder {
    private List<Protocol> protocols;
    private TestCertificate certificate;

    private Builder() {}

    /**
     * The protocols it offers (over TLS: by ALPN; {@link Protocol#H2_PRIOR_KNOWLEDGE} alone: h2c).
     *
     * @param protocols as {@code MockWebServer.setProtocols} takes them
     * @return this builder
     */
    public Builder protocols(List<Protocol> protocols) {
      this.protocols = List.copyOf(protocols);
      return this;
    }

    /**
     * Serves TLS with {@code certificate}.
     *
     * @param certificate the server's certificate
     * @return this builder
     */
    public Builder tls(TestCertificate certificate) {
      this.certificate = Objects.requireNonNull(certificate, "certificate");
      return this;
    }

    /** Starts the server on 127.0.0.1 and an ephemeral port; its owner closes it. */
    public MockWebServer start() {
      MockWebServer s = new MockWebServer();
      if (protocols != null) {
        s.setProtocols(protocols);
      }
      if (certificate != null) {
        s.useHttps(certificate.sslSocketFactory());
      }
      try {
        s.start();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return s;
    }
  }
}
