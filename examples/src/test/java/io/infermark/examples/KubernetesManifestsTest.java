package io.infermark.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.infermark.cli.Infermark;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * The Kubernetes manifests in {@code examples/k8s}, checked offline (no cluster, no schema download):
 * their structure against the fields of the Kubernetes API they use, and their arguments with the CLI's
 * own parser, as the documented {@code sed} and Kubernetes' {@code $(VAR)} expansion leave them.
 */
class KubernetesManifestsTest {

  private static final Path K8S = Path.of("k8s");
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Pattern ENV_REF = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");
  private static final String INDEX_ANNOTATION = "metadata.annotations['batch.kubernetes.io/job-completion-index']";

  // The fields of the Kubernetes API (batch/v1 Job, core/v1 PodSpec, Container, PVC) the manifests may use:
  // a misspelt key would be silently dropped by the API server with --validate=false, so it fails here.
  private static final Set<String> JOB_SPEC = Set.of("completionMode", "completions", "parallelism", "backoffLimit",
      "template", "ttlSecondsAfterFinished", "activeDeadlineSeconds", "podFailurePolicy", "suspend");
  private static final Set<String> POD_SPEC = Set.of("restartPolicy", "securityContext", "containers", "volumes",
      "nodeSelector", "affinity", "tolerations", "serviceAccountName", "topologySpreadConstraints",
      "terminationGracePeriodSeconds");
  private static final Set<String> CONTAINER = Set.of("name", "image", "imagePullPolicy", "command", "args", "env",
      "resources", "securityContext", "volumeMounts", "workingDir");

  private static JsonNode read(String file) throws IOException {
    return YAML.readTree(Files.readString(K8S.resolve(file)));
  }

  private static String builtImage() throws IOException {
    Properties p = new Properties();
    try (InputStream in = Infermark.class.getResourceAsStream("image.properties")) {
      assertThat(in).as("cli's image.properties on the class path").isNotNull();
      p.load(in);
    }
    return p.getProperty("image");
  }

  private static Set<String> keys(JsonNode node) {
    Set<String> keys = new HashSet<>();
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      keys.add(it.next());
    }
    return keys;
  }

  /** The container's args as the pod of completion index {@code index} runs them. */
  private static List<String> expandedArgs(JsonNode container, int index, String startAt) {
    Map<String, String> env = new HashMap<>();
    for (JsonNode e : container.path("env")) {
      String field = e.path("valueFrom").path("fieldRef").path("fieldPath").asText("");
      env.put(e.get("name").asText(), field.equals(INDEX_ANNOTATION) ? Integer.toString(index) : e.path("value").asText(""));
    }
    List<String> args = new ArrayList<>();
    for (JsonNode a : container.get("args")) {
      Matcher m = ENV_REF.matcher(a.asText().replace("__START_AT__", startAt));
      StringBuilder s = new StringBuilder();
      while (m.find()) {
        assertThat(env).as("$(%s) must name a variable of the container's env", m.group(1)).containsKey(m.group(1));
        m.appendReplacement(s, Matcher.quoteReplacement(env.get(m.group(1))));
      }
      m.appendTail(s);
      args.add(s.toString());
    }
    return args;
  }

  /** Parses a command line with the real {@code infermark} parser and returns the subcommand's result. */
  private static ParseResult parse(List<String> args) {
    ParseResult whole = new CommandLine(new Infermark()).setCaseInsensitiveEnumValuesAllowed(true)
        .parseArgs(args.toArray(String[]::new));
    assertThat(whole.hasSubcommand()).isTrue();
    return whole.subcommand();
  }

  private static void assertPodBasics(JsonNode job, JsonNode pvc, String image) {
    JsonNode pod = job.at("/spec/template/spec");
    assertThat(job.get("apiVersion").asText()).isEqualTo("batch/v1");
    assertThat(job.get("kind").asText()).isEqualTo("Job");
    assertThat(job.at("/metadata/name").asText()).matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    assertThat(JOB_SPEC).containsAll(keys(job.get("spec")));
    assertThat(POD_SPEC).containsAll(keys(pod));
    assertThat(job.at("/spec/backoffLimit").asInt(-1)).isZero();
    assertThat(pod.get("restartPolicy").asText()).isEqualTo("Never");
    assertThat(pod.at("/securityContext/runAsNonRoot").asBoolean()).isTrue();
    assertThat(pod.get("containers")).hasSize(1);
    JsonNode c = pod.get("containers").get(0);
    assertThat(CONTAINER).containsAll(keys(c));
    assertThat(c.get("image").asText()).isEqualTo(image);
    assertThat(c.has("command")).as("the image's entrypoint is the CLI; give args only").isFalse();
    for (String r : List.of("cpu", "memory")) {
      assertThat(c.at("/resources/requests/" + r).asText()).as("requests." + r).isNotEmpty();
      assertThat(c.at("/resources/limits/" + r).asText()).as("limits." + r).isNotEmpty();
    }
    Set<String> volumes = new HashSet<>();
    for (JsonNode v : pod.get("volumes")) {
      volumes.add(v.get("name").asText());
      assertThat(v.at("/persistentVolumeClaim/claimName").asText()).isEqualTo(pvc.at("/metadata/name").asText());
    }
    assertThat(c.get("volumeMounts")).isNotEmpty().allSatisfy(m -> {
      assertThat(volumes).contains(m.get("name").asText());
      assertThat(m.get("mountPath").asText()).startsWith("/");
    });
  }

  @Test
  void theResultsVolumeIsReadWriteMany() throws IOException {
    JsonNode pvc = read("results-pvc.yaml");

    assertThat(pvc.get("apiVersion").asText()).isEqualTo("v1");
    assertThat(pvc.get("kind").asText()).isEqualTo("PersistentVolumeClaim");
    assertThat(pvc.at("/spec/accessModes")).extracting(JsonNode::asText).containsExactly("ReadWriteMany");
    assertThat(pvc.at("/spec/resources/requests/storage").asText()).isNotEmpty();
  }

  @Test
  void theShardsJobRunsEveryShardOfOneScheduleAtOnce() throws IOException {
    JsonNode job = read("shards-job.yaml");
    JsonNode pvc = read("results-pvc.yaml");
    assertPodBasics(job, pvc, builtImage());
    int completions = job.at("/spec/completions").asInt();
    assertThat(job.at("/spec/completionMode").asText()).isEqualTo("Indexed");
    assertThat(job.at("/spec/parallelism").asInt()).isEqualTo(completions);
    JsonNode container = job.at("/spec/template/spec/containers/0");

    String startAt = "2030-01-02T03:04:05Z"; // what the documented sed puts in
    Set<Integer> indices = new HashSet<>();
    for (int pod = 0; pod < completions; pod++) {
      ParseResult bench = parse(expandedArgs(container, pod, startAt));
      assertThat(bench.commandSpec().name()).isEqualTo("bench");
      assertThat(bench.<Integer>matchedOptionValue("--shard-count", 0)).isEqualTo(completions);
      indices.add(bench.matchedOptionValue("--shard-index", -1));
      assertThat(bench.<String>matchedOptionValue("--start-at", "")).isEqualTo(startAt);
      assertThat(Double.parseDouble(bench.matchedOptionValue("--request-rate", "inf"))).as("open loop").isFinite();
      Path resultDir = bench.matchedOptionValue("--result-dir", Path.of(""));
      assertThat(container.get("volumeMounts")).anySatisfy(m ->
          assertThat(resultDir.startsWith(m.get("mountPath").asText())).isTrue());
    }
    assertThat(indices).as("one shard per completion index").hasSize(completions).allMatch(i -> i >= 0 && i < completions);
  }

  @Test
  void theMergeJobReadsTheDirectoryTheShardsWrite() throws IOException {
    JsonNode merge = read("merge-job.yaml");
    JsonNode shards = read("shards-job.yaml");
    assertPodBasics(merge, read("results-pvc.yaml"), builtImage());
    assertThat(merge.at("/spec/completions").asInt(1)).isEqualTo(1);

    ParseResult parsed = parse(expandedArgs(merge.at("/spec/template/spec/containers/0"), 0, "unused"));
    ParseResult bench = parse(expandedArgs(shards.at("/spec/template/spec/containers/0"), 0, "2030-01-02T03:04:05Z"));

    assertThat(parsed.commandSpec().name()).isEqualTo("merge");
    assertThat(parsed.matchedPositionals().get(0).<Path>getValue())
        .isEqualTo(bench.matchedOptionValue("--result-dir", Path.of("")));
  }

  @Test
  void theDockerfileBuildsTheSameNonRootCliImage() throws IOException {
    String dockerfile = Files.readString(Path.of("../cli/src/main/docker/Dockerfile"));

    assertThat(dockerfile).contains("FROM eclipse-temurin:17-jre", "COPY infermark.jar /app/infermark.jar",
        "USER 10001:10001", "ENTRYPOINT [\"java\", \"-XX:MaxRAMPercentage=75\", \"-XX:+UseShenandoahGC\", \"-jar\", \"/app/infermark.jar\"]");
    assertThat(dockerfile).contains("-t " + builtImage() + " cli/target");
  }
}
