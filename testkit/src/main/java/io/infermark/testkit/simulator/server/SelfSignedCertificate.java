package io.infermark.testkit.simulator.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * A throw-away self-signed certificate for the simulator's TLS port (EC P-256, valid two days, for
 * {@code localhost} and {@code 127.0.0.1}), made by the JDK's own {@code keytool} so that no certificate
 * library is needed. Clients trust it with {@link #trustManagerFactory()} (host names are then verified
 * as usual) or skip verification with their {@code insecureTls} option.
 */
public final class SelfSignedCertificate {

  private static final char[] PASSWORD = "infermark-simulator".toCharArray();

  private final KeyStore store;

  private SelfSignedCertificate(KeyStore store) {
    this.store = store;
  }

  /**
   * Generates one in a temporary directory, deleted again once loaded.
   *
   * @throws UncheckedIOException when keytool is missing (a JRE without it) or fails
   */
  public static SelfSignedCertificate generate() {
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    try {
      Path dir = Files.createTempDirectory("infermark-sim-tls");
      Path file = dir.resolve("server.p12");
      try {
        Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "simulator", "-keyalg", "EC",
            "-groupname", "secp256r1", "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1",
            "-validity", "2", "-storetype", "PKCS12", "-keystore", file.toString(),
            "-storepass", new String(PASSWORD), "-keypass", new String(PASSWORD))
            .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
          p.destroyForcibly();
          throw new IOException("keytool did not finish in 60 s");
        }
        if (p.exitValue() != 0) {
          throw new IOException("keytool failed (" + p.exitValue() + "): " + out.strip());
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
          ks.load(in, PASSWORD);
        }
        return new SelfSignedCertificate(ks);
      } finally {
        Files.deleteIfExists(file);
        Files.deleteIfExists(dir);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not make the simulator's self-signed certificate with " + keytool
          + " (it needs a JDK's keytool): " + e.getMessage(), e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("could not load the simulator's self-signed certificate", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while making the simulator's certificate", e);
    }
  }

  /** The server's key and certificate. */
  public KeyManagerFactory keyManagerFactory() {
    try {
      KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(store, PASSWORD);
      return kmf;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Trust in this certificate alone, for clients that verify it. */
  public TrustManagerFactory trustManagerFactory() {
    try {
      KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
      trust.load(null, null);
      trust.setCertificateEntry("simulator", store.getCertificate("simulator"));
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      return tmf;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
