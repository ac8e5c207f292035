package io.infermark.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Kubernetes objects of docs/kubernetes.md ({@code examples/k8s/*.yaml} and the pod {@code kubectl run
 * --overrides} gives) are valid objects of their kinds, checked offline. {@code kubectl apply --dry-run=client}
 * needs an API server to map kinds and download the OpenAPI schema even with {@code --validate=false}, and no
 * Kubernetes JSON schema is published on Maven Central, so the check is a JSON Schema written by hand from the API
 * reference for the kinds and fields used ({@code kubernetes-subset.schema.json}: types, required fields, enums,
 * name, label, quantity and downward-API formats, every object closed) plus what a schema cannot say: mounts name
 * volumes of the pod, claims name the PersistentVolumeClaim, requests are within limits.
 */
class KubernetesObjectsTest {

  private static final Path K8S = Path.of("k8s");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Schema SCHEMA = schema();
  private static final Pattern QUANTITY = Pattern.compile(
      "([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?");
  private static final Pattern OVERRIDES = Pattern.compile("--overrides='([^']*)'");
  private static final Pattern APPLIED = Pattern.compile("(?:-f|sed \"[^\"]*\") (examples/k8s/[\\w.-]+\\.yaml)");
  private static final Pattern VAR_REF = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");

  private static Schema schema() {
    try (InputStream in = KubernetesObjectsTest.class.getResourceAsStream("/kubernetes-subset.schema.json")) {
      return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12).getSchema(JSON.readTree(in));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static List<String> errors(JsonNode object) {
    return SCHEMA.validate(object).stream().map(Error::toString).toList();
  }

  private static JsonNode manifest(String file) throws IOException {
    return YAML.readTree(Files.readString(K8S.resolve(file)));
  }

  /** The pod {@code kubectl run infermark-copy --image=busybox --restart=Never --overrides=...} creates. */
  private static JsonNode copyPod() throws IOException {
    String doc = Files.readString(Path.of("../docs/kubernetes.md"));
    Matcher m = OVERRIDES.matcher(doc);
    assertThat(m.find()).as("docs/kubernetes.md's kubectl run --overrides").isTrue();
    JsonNode overrides = JSON.readTree(m.group(1));
    ObjectNode pod = JSON.createObjectNode().put("apiVersion", "v1").put("kind", "Pod");
    pod.putObject("metadata").put("name", "infermark-copy");
    pod.set("spec", overrides.get("spec").deepCopy());
    ((ObjectNode) pod.get("spec")).put("restartPolicy", "Never");
    return pod;
  }

  /** A resource quantity's value (cpu in cores, memory in bytes), as the API server parses it. */
  static BigDecimal quantity(String text) {
    Matcher m = QUANTITY.matcher(text.strip());
    if (!m.matches()) {
      throw new IllegalArgumentException("not a Kubernetes quantity: '" + text + "'");
    }
    BigDecimal number = new BigDecimal(m.group(1));
    String suffix = m.group(2) == null ? "" : m.group(2);
    if (suffix.matches("[eE][+-]?[0-9]+")) {
      return number.scaleByPowerOfTen(Integer.parseInt(suffix.substring(1)));
    }
    int binary = List.of("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei").indexOf(suffix);
    if (binary > 0) {
      return number.multiply(BigDecimal.valueOf(1024).pow(binary));
    }
    int decimal = List.of("n", "u", "m", "", "k", "M", "G", "T", "P", "E").indexOf(suffix);
    return number.scaleByPowerOfTen(3 * (decimal - 3));
  }

  private static Set<String> fieldNames(JsonNode node) {
    Set<String> names = new HashSet<>();
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      names.add(it.next());
    }
    return names;
  }

  /** What a schema cannot say about a pod: mounts, claims, limits, env references. */
  private static void assertPodIsConsistent(String what, JsonNode podSpec, Set<String> claims) {
    Map<String, JsonNode> volumes = new LinkedHashMap<>();
    for (JsonNode v : podSpec.path("volumes")) {
      assertThat(volumes.put(v.get("name").asText(), v)).as("%s: volume %s named once", what, v.get("name")).isNull();
      if (v.has("persistentVolumeClaim")) {
        assertThat(claims).as("%s: the claim of volume %s", what, v.get("name"))
            .contains(v.at("/persistentVolumeClaim/claimName").asText());
      }
    }
    Set<String> containers = new HashSet<>();
    Set<String> mounted = new HashSet<>();
    for (JsonNode c : podSpec.get("containers")) {
      assertThat(containers.add(c.get("name").asText())).as("%s: container names are unique", what).isTrue();
      Set<String> paths = new HashSet<>();
      for (JsonNode mount : c.path("volumeMounts")) {
        assertThat(volumes).as("%s: volumeMount %s names a volume of the pod", what, mount.get("name"))
            .containsKey(mount.get("name").asText());
        assertThat(paths.add(mount.get("mountPath").asText())).as("%s: one mount per path", what).isTrue();
        mounted.add(mount.get("name").asText());
      }
      Set<String> env = new HashSet<>();
      c.path("env").forEach(e -> env.add(e.get("name").asText()));
      for (JsonNode arg : c.path("args")) {
        Matcher m = VAR_REF.matcher(arg.asText());
        while (m.find()) {
          assertThat(env).as("%s: $(%s) in args names a variable of the container's env (else it stays as written)",
              what, m.group(1)).contains(m.group(1));
        }
      }
      JsonNode requests = c.at("/resources/requests");
      JsonNode limits = c.at("/resources/limits");
      for (String resource : fieldNames(limits)) {
        if (requests.has(resource)) {
          assertThat(quantity(requests.get(resource).asText())).as("%s: %s requests within limits", what, resource)
              .isLessThanOrEqualTo(quantity(limits.get(resource).asText()));
        }
      }
    }
    assertThat(mounted).as("%s: every volume is mounted", what).containsExactlyInAnyOrderElementsOf(volumes.keySet());
  }

  @Test
  void everyManifestTheDocsApplyIsAValidObjectOfItsKind() throws IOException {
    String doc = Files.readString(Path.of("../docs/kubernetes.md"));
    Matcher applied = APPLIED.matcher(doc);
    Set<String> files = new HashSet<>();
    while (applied.find()) {
      files.add(Path.of(applied.group(1)).getFileName().toString());
    }
    assertThat(files).as("manifests docs/kubernetes.md applies")
        .containsExactlyInAnyOrder("results-pvc.yaml", "shards-job.yaml", "merge-job.yaml");
    try (var listed = Files.list(K8S)) {
      assertThat(listed.map(p -> p.getFileName().toString())).as("every manifest in examples/k8s is applied by the docs")
          .containsExactlyInAnyOrderElementsOf(files);
    }
    String claim = manifest("results-pvc.yaml").at("/metadata/name").asText();

    for (String file : files) {
      // What the documented sed makes of it: a placeholder is an arg value, not YAML structure.
      JsonNode object = YAML.readTree(Files.readString(K8S.resolve(file)).replace("__START_AT__", "2030-01-02T03:04:05Z"));
      assertThat(errors(object)).as(file).isEmpty();
      if (object.get("kind").asText().equals("Job")) {
        assertPodIsConsistent(file, object.at("/spec/template/spec"), Set.of(claim));
        if (object.at("/spec/completionMode").asText().equals("Indexed")) {
          assertThat(object.at("/spec/parallelism").asInt()).as("%s: parallelism within completions", file)
              .isLessThanOrEqualTo(object.at("/spec/completions").asInt());
        }
      }
    }
    JsonNode pod = copyPod();
    assertThat(errors(pod)).as("the kubectl run --overrides pod").isEmpty();
    assertPodIsConsistent("the kubectl run --overrides pod", pod.get("spec"), Set.of(claim));
  }

  @Test
  void theSchemaRefusesWhatTheApiServerWould() throws IOException {
    JsonNode job = manifest("shards-job.yaml");
    Map<String, String> broken = new LinkedHashMap<>();
    broken.put("/spec/completionMod", "Indexed");                                   // a misspelt key
    broken.put("/spec/completionMode", "indexed");                                  // not an enum value
    broken.put("/spec/template/spec/restartPolicy", "Always");                      // not for a Job's pods
    broken.put("/spec/template/spec/containers/0/resources/limits/memory", "2 GiB"); // not a quantity
    broken.put("/spec/template/spec/containers/0/env/0/valueFrom/fieldRef/fieldPath", "metadata.index");
    broken.put("/metadata/name", "Infermark_Shards");                               // not a DNS name
    broken.put("/spec/template/spec/containers/0/volumeMounts/0/mountPath", "results");
    for (Map.Entry<String, String> b : broken.entrySet()) {
      JsonNode copy = job.deepCopy();
      int slash = b.getKey().lastIndexOf('/');
      ((ObjectNode) copy.at(b.getKey().substring(0, slash))).put(b.getKey().substring(slash + 1), b.getValue());
      assertThat(errors(copy)).as(b.getKey() + " = " + b.getValue()).isNotEmpty();
    }
    JsonNode numberArg = job.deepCopy();
    ((com.fasterxml.jackson.databind.node.ArrayNode) numberArg.at("/spec/template/spec/containers/0/args")).add(4);
    assertThat(errors(numberArg)).as("an unquoted number in args (the API wants strings)").isNotEmpty();
    JsonNode noCompletions = job.deepCopy();
    ((ObjectNode) noCompletions.get("spec")).remove("completions");
    assertThat(errors(noCompletions)).as("an Indexed Job without completions").isNotEmpty();
    JsonNode pvc = manifest("results-pvc.yaml").deepCopy();
    ((ObjectNode) pvc.get("spec")).putArray("accessModes").add("ReadWriteAll");
    assertThat(errors(pvc)).as("an access mode that does not exist").isNotEmpty();
  }

  @Test
  void quantitiesParseAsTheApiServerParsesThem() {
    assertThat(quantity("2")).isEqualByComparingTo("2");
    assertThat(quantity("500m")).isEqualByComparingTo("0.5");
    assertThat(quantity("2Gi")).isEqualByComparingTo("2147483648");
    assertThat(quantity("1G")).isEqualByComparingTo("1000000000");
    assertThat(quantity("1.5e3")).isEqualByComparingTo("1500");
    assertThat(quantity("1E")).isEqualByComparingTo("1000000000000000000");
    assertThat(quantity("1Ei")).isEqualByComparingTo("1152921504606846976");
    List<String> refused = new ArrayList<>();
    for (String bad : List.of("2 GiB", "2GB", "one", "")) {
      try {
        quantity(bad);
      } catch (IllegalArgumentException e) {
        refused.add(bad);
      }
    }
    assertThat(refused).containsExactly("2 GiB", "2GB", "one", "");
  }
}
