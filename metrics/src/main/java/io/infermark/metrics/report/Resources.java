package io.infermark.metrics.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/** Text resources on the class path that the HTML pages inline: uPlot's WebJar and the chart script. */
final class Resources {

  private Resources() {}

  /** A resource as UTF-8 text; a missing one is a broken build, said plainly. */
  static String text(String path) {
    try (InputStream in = Resources.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException(path + " is not on the class path: the HTML report needs it (for uPlot, the "
            + "org.webjars.npm:uplot jar infermark-metrics depends on)");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + path + ": " + e.getMessage(), e);
    }
  }

  /** The version of a WebJar on the class path, from its Maven properties. */
  static String webJarVersion(String groupId, String artifactId) {
    Properties p = new Properties();
    String path = "/META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
    try (InputStream in = Resources.class.getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException(path + " is not on the class path: the HTML report needs the " + groupId + ":"
            + artifactId + " jar");
      }
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + path + ": " + e.getMessage(), e);
    }
    return p.getProperty("version");
  }
}
