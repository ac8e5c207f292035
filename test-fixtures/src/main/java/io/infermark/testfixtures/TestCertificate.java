package io.infermark.testfixtures;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.concurrent.TimeUnit;
import javax.net.ServerSocketFactory;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * A self-signed EC certificate for {@code localhost} (CN and DNS subject alternative name), made by
 * the running JDK's {@code keytool} into a PKCS12 key store, for tests of TLS servers: a server
 * side ({@link #serverSocketFactory()}, {@link #sslSocketFactory()}) and a client trust that
 * accepts it ({@link #trustManagerFactory()}). A client that does not trust it fails with PKIX.
 */
public final class TestCertificate {

  /** The alias of the key entry (and of the certificate in {@link #trustManagerFactory()}). */
  public static final String ALIAS = "server";
  /** The key store's and the key's password. */
  public static final String PASSWORD = "changeit";

  private final Path keyStoreFile;

  private TestCertificate(Path keyStoreFile) {
    this.keyStoreFile = keyStoreFile;
  }

  /**
   * Makes a new key pair and certificate valid for two days into {@code dir}/server.p12.
   *
   * @param dir an existing directory the test owns (e.g. a {@code @TempDir})
   * @return the certificate
   * @throws IllegalStateException when keytool fails or does not finish within 60 s
   */
  public static TestCertificate create(Path dir) {
    Path file = dir.resolve("server.p12");
    try {
      Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
          "-genkeypair", "-alias", ALIAS, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
          "-ext", "SAN=dns:localhost", "-validity", "2", "-storetype", "PKCS12",
          "-keystore", file.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD)
          .redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IllegalStateException("keytool did not finish in 60 s: " + out);
      }
      if (p.exitValue() != 0) {
        throw new IllegalStateException("keytool failed (" + p.exitValue() + "): " + out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while keytool ran", e);
    }
    return new TestCertificate(file);
  }

  /** The PKCS12 key store file holding the key and its certificate. */
  public Path keyStoreFile() {
    return keyStoreFile;
  }

  /** The key store, loaded afresh: the private key and certificate under {@link #ALIAS}. */
  public KeyStore keyStore() {
    try (InputStream in = Files.newInputStream(keyStoreFile)) {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(in, PASSWORD.toCharArray());
      return ks;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A TLS context that presents this certificate as a server. */
  public SSLContext serverContext() {
    try {
      KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(keyStore(), PASSWORD.toCharArray());
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(kmf.getKeyManagers(), null, null);
      return ctx;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Listening sockets that speak TLS with this certificate, e.g. for a {@link RawServer}. */
  public ServerSocketFactory serverSocketFactory() {
    return serverContext().getServerSocketFactory();
  }

  /** The socket factory a MockWebServer's {@code useHttps} wants to serve with this certificate. */
  public SSLSocketFactory sslSocketFactory() {
    return serverContext().getSocketFactory();
  }

  /** Trust managers that trust this certificate and nothing else. */
  public TrustManagerFactory trustManagerFactory() {
    try {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry(ALIAS, keyStore().getCertificate(ALIAS));
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      return tmf;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public String toString() {
    return "TestCertificate[CN=localhost, " + keyStoreFile + "]";
  }
}
