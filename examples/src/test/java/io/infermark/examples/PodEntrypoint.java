package io.infermark.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.infermark.cli.Infermark;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * What the kubelet would start for one pod of a Job in {@code examples/k8s}, on this machine: the image's entrypoint
 * (its JVM flags read from the Dockerfile and checked against Jib's), the container's args and env from the manifest
 * with what Kubernetes substitutes ({@code $(VAR)} from the container's env, the downward-API completion index, the
 * documented {@code sed} of {@code __START_AT__}), and each volume mount mapped to a directory that stands for its
 * claim. Not reproduced: the container's user, its cgroup CPU and memory limits, and the image's own JVM.
 */
final class PodEntrypoint {

  static final Path K8S = Path.of("k8s");
  static final String INDEX_ANNOTATION = "metadata.annotations['batch.kubernetes.io/job-completion-index']";
  private static final Pattern VAR_REF = Pattern.compile("\\$\\$|\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private PodEntrypoint() {}

  /** A manifest as the documented {@code sed "s/__START_AT__/$START_AT/"} leaves it, parsed. */
  static JsonNode manifest(String file, String startAt) throws IOException {
    String text = Files.readAllLines(K8S.resolve(file)).stream().map(l -> l.replaceFirst("__START_AT__", startAt))
        .collect(Collectors.joining("\n"));
    return YAML.readTree(text);
  }

  /** The only container of a Job's pod template. */
  static JsonNode container(JsonNode job) {
    JsonNode containers = job.at("/spec/template/spec/containers");
    assertThat(containers).as("one container per pod").hasSize(1);
    return containers.get(0);
  }

  /** The Dockerfile's {@code ENTRYPOINT} (exec form): {@code java FLAGS... -jar /app/infermark.jar}. */
  static List<String> dockerEntrypoint() throws IOException {
    String line = Files.readAllLines(Path.of("../cli/src/main/docker/Dockerfile")).stream()
        .filter(l -> l.startsWith("ENTRYPOINT ")).findFirst().orElseThrow(() -> new AssertionError("no ENTRYPOINT"));
    List<String> entrypoint = new ArrayList<>();
    JSON.readTree(line.substring("ENTRYPOINT ".length())).forEach(n -> entrypoint.add(n.asText()));
    assertThat(entrypoint).as("the Dockerfile's entrypoint").startsWith("java").endsWith("-jar", "/app/infermark.jar");
    return entrypoint;
  }

  /** The JVM flags both image builds give: the Dockerfile's, which must be Jib's {@code jvmFlags} in cli/pom.xml. */
  static List<String> imageJvmFlags() throws Exception {
    List<String> docker = dockerEntrypoint();
    List<String> flags = docker.subList(1, docker.size() - 2);
    Element jib = jibConfiguration();
    List<String> jibFlags = new ArrayList<>();
    NodeList nodes = jib.getElementsByTagName("jvmFlag");
    for (int i = 0; i < nodes.getLength(); i++) {
      jibFlags.add(nodes.item(i).getTextContent().strip());
    }
    assertThat(jibFlags).as("Jib's jvmFlags (cli/pom.xml) equal the Dockerfile's").isEqualTo(flags);
    assertThat(jib.getElementsByTagName("mainClass").item(0).getTextContent().strip())
        .isEqualTo(Infermark.class.getName());
    return List.copyOf(flags);
  }

  private static Element jibConfiguration() throws Exception {
    var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new File("../cli/pom.xml"));
    NodeList plugins = doc.getElementsByTagName("plugin");
    for (int i = 0; i < plugins.getLength(); i++) {
      Element p = (Element) plugins.item(i);
      if (p.getElementsByTagName("artifactId").item(0).getTextContent().strip().equals("jib-maven-plugin")) {
        return (Element) p.getElementsByTagName("configuration").item(0);
      }
    }
    throw new AssertionError("cli/pom.xml has no jib-maven-plugin");
  }

  /**
   * The image's entrypoint on this machine. When cli was packaged in this build (its jar, not its classes
   * directory, is on the class path; so it is in {@code mvn verify}, as {@code .ci/run} runs it) and the shaded
   * {@code cli/target/infermark.jar} beside it is as new: the Dockerfile's {@code java FLAGS -jar infermark.jar}.
   * Otherwise (a {@code mvn test} that stops before {@code package}) Jib's form of the same entrypoint: {@code java
   * FLAGS -cp CLASSPATH io.infermark.cli.Infermark}, with this test's class path.
   */
  static List<String> entrypoint() throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(imageJvmFlags());
    Path shaded = shadedJar();
    if (shaded != null) {
      command.addAll(List.of("-jar", shaded.toString()));
    } else {
      command.addAll(List.of("-cp", System.getProperty("java.class.path"), Infermark.class.getName()));
    }
    return command;
  }

  /** cli's shaded jar, if this build packaged cli and shaded it after; null otherwise. */
  static Path shadedJar() throws URISyntaxException {
    Path cli = Path.of(Infermark.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    if (!Files.isRegularFile(cli) || !cli.getParent().endsWith(Path.of("cli", "target"))) {
      return null;
    }
    Path shaded = cli.resolveSibling("infermark.jar");
    return Files.isRegularFile(shaded) && shaded.toFile().lastModified() >= cli.toFile().lastModified() ? shaded
        : null;
  }

  /**
   * The container's environment as the kubelet builds it: {@code value}s (with {@code $(VAR)} of earlier entries
   * expanded), the completion index from the downward API, and an optional Secret that does not exist left unset.
   */
  static Map<String, String> env(JsonNode container, int completionIndex) {
    Map<String, String> env = new LinkedHashMap<>();
    for (JsonNode e : container.path("env")) {
      String name = e.get("name").asText();
      if (e.has("value")) {
        env.put(name, expand(e.get("value").asText(), env));
        continue;
      }
      JsonNode from = e.path("valueFrom");
      if (from.has("fieldRef")) {
        String path = from.at("/fieldRef/fieldPath").asText();
        assertThat(path).as("the only downward-API field this test can give").isEqualTo(INDEX_ANNOTATION);
        env.put(name, Integer.toString(completionIndex));
      } else if (from.has("secretKeyRef")) {
        assertThat(from.at("/secretKeyRef/optional").asBoolean()).as("%s: a Secret the test has not", name).isTrue();
      } else {
        throw new AssertionError("env " + name + ": unsupported source " + from);
      }
    }
    return env;
  }

  /**
   * Kubernetes' expansion of {@code $(VAR)} in a container's command, args and env values: a defined variable is
   * replaced, an undefined reference is left as written, {@code $$} is a literal {@code $}.
   */
  static String expand(String text, Map<String, String> env) {
    Matcher m = VAR_REF.matcher(text);
    StringBuilder s = new StringBuilder();
    while (m.find()) {
      String replacement = m.group(1) == null ? "$" : env.getOrDefault(m.group(1), m.group());
      m.appendReplacement(s, Matcher.quoteReplacement(replacement));
    }
    return m.appendTail(s).toString();
  }

  /**
   * The container's args for one pod: expanded from its env, with every path under a volume mount moved to the
   * directory that stands for the mount's claim ({@code claims}: claim name to directory).
   */
  static List<String> args(JsonNode job, JsonNode container, Map<String, String> env, Map<String, Path> claims) {
    Map<String, String> mounts = new LinkedHashMap<>();
    for (JsonNode m : container.path("volumeMounts")) {
      JsonNode volume = null;
      for (JsonNode v : job.at("/spec/template/spec/volumes")) {
        if (v.get("name").asText().equals(m.get("name").asText())) {
          volume = v;
        }
      }
      assertThat(volume).as("volume of mount %s", m.get("name")).isNotNull();
      String claim = volume.at("/persistentVolumeClaim/claimName").asText();
      assertThat(claims).as("a directory for claim %s", claim).containsKey(claim);
      mounts.put(m.get("mountPath").asText(), claims.get(claim).toString());
    }
    List<String> args = new ArrayList<>();
    for (JsonNode a : container.get("args")) {
      String arg = expand(a.asText(), env);
      int eq = arg.startsWith("--") ? arg.indexOf('=') + 1 : 0;
      String value = arg.substring(eq);
      for (Map.Entry<String, String> m : mounts.entrySet()) {
        if (value.equals(m.getKey()) || value.startsWith(m.getKey() + "/")) {
          value = m.getValue() + value.substring(m.getKey().length());
        }
      }
      args.add(arg.substring(0, eq) + value);
    }
    return args;
  }

  /** {@code args} with {@code --name=value} replaced by {@code --name=newValue}; the option must be there. */
  static List<String> withOption(List<String> args, String name, String newValue) {
    List<String> out = new ArrayList<>(args);
    int at = indexOf(out, name);
    out.set(at, name + "=" + newValue);
    return out;
  }

  /** {@code args} without {@code --name=value}; the option must be there. */
  static List<String> withoutOption(List<String> args, String name) {
    List<String> out = new ArrayList<>(args);
    out.remove(indexOf(out, name));
    return out;
  }

  /** The value of {@code --name=value} in {@code args}. */
  static String option(List<String> args, String name) {
    String arg = args.get(indexOf(args, name));
    return arg.substring(name.length() + 1);
  }

  private static int indexOf(List<String> args, String name) {
    for (int i = 0; i < args.size(); i++) {
      if (args.get(i).startsWith(name + "=")) {
        return i;
      }
    }
    throw new AssertionError("the manifest's args have no " + name + "=...: " + args);
  }

  /**
   * A process started as the pod's container would be: the entrypoint and the args, only the container's env
   * (nothing inherited from the build), in {@code workDir} (the image's working directory), its output to
   * {@code NAME.out} and {@code NAME.err} in {@code logs}.
   */
  static Process start(List<String> entrypoint, List<String> args, Map<String, String> env, Path workDir, Path logs,
      String name) throws IOException {
    List<String> command = new ArrayList<>(entrypoint);
    command.addAll(args);
    ProcessBuilder pb = new ProcessBuilder(command).directory(workDir.toFile())
        .redirectOutput(logs.resolve(name + ".out").toFile()).redirectError(logs.resolve(name + ".err").toFile());
    pb.environment().clear();
    pb.environment().putAll(env);
    return pb.start();
  }
}
