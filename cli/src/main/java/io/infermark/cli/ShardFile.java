package io.infermark.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.infermark.core.Interruption;
import io.infermark.core.RunEnvironment;
import io.infermark.core.RunResult;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.health.HealthVerdict;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * The files one shard of a sharded {@code bench} leaves for {@code infermark merge}: its records
 * ({@code STEM.shard-I-of-N.records.jsonl}) and its run facts ({@code STEM.shard-I-of-N.json}: the shard,
 * the bench settings every shard must share, when it started, how long it ran, its target and its client
 * health). The settings are the options given on the command line, without the per-shard ones
 * ({@link #PER_SHARD}) and with URL credentials and query strings removed; the merge re-parses them to
 * rebuild the schedule, and refuses shards whose settings differ.
 */
final class ShardFile {

  /** The value of the facts file's {@code format} key. */
  static final String FORMAT = "infermark-shard/1";
  /** The glob matching facts files in a directory. */
  static final String GLOB = "*.shard-*-of-*.json";
  /** Options that may differ between the shards of one schedule. */
  static final Set<String> PER_SHARD = Set.of("--shard-index", "--result-dir", "--progress", "--disable-tqdm",
      "--skip-test-request");
  private static final Set<String> URL_OPTIONS = Set.of("--base-url", "--url");
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private ShardFile() {}

  /** What one shard's facts file says. */
  record Facts(Path file, int index, int count, String version, SortedMap<String, List<String>> settings,
      Instant startedAt, long durationNanos, String target, int promptCount, boolean insecureTls,
      ClientHealth health, RunEnvironment environment, Path records, Optional<Interruption> interruption) {
  }

  /** The shared settings of a parsed bench command line (see the class comment). */
  static SortedMap<String, List<String>> settings(ParseResult parsed) {
    SortedMap<String, List<String>> settings = new TreeMap<>();
    for (OptionSpec o : parsed.matchedOptions()) {
      String name = o.longestName();
      if (PER_SHARD.contains(name) || o.usageHelp() || o.versionHelp()) {
        continue;
      }
      List<String> values = new ArrayList<>();
      if (o.arity().max() > 0) {
        for (String v : o.originalStringValues()) {
          values.add(URL_OPTIONS.contains(name) ? withoutSecrets(v) : v);
        }
      }
      settings.put(name, List.copyOf(values));
    }
    return Collections.unmodifiableSortedMap(settings);
  }

  /** A URL without userinfo, query or fragment (they may hold credentials). */
  static String withoutSecrets(String url) {
    String u = url.strip();
    int cut = u.length();
    for (char c : new char[] {'?', '#'}) {
      int i = u.indexOf(c);
      if (i >= 0) {
        cut = Math.min(cut, i);
      }
    }
    u = u.substring(0, cut);
    int scheme = u.indexOf("://");
    int hostStart = scheme < 0 ? 0 : scheme + 3;
    int slash = u.indexOf('/', hostStart);
    int at = u.lastIndexOf('@', slash < 0 ? u.length() - 1 : slash);
    return at >= hostStart ? u.substring(0, hostStart) + u.substring(at + 1) : u;
  }

  /**
   * Writes a shard's facts file (atomically, through {@code outputs}); its records are its journal,
   * {@code records}, written as the run went.
   */
  static void write(OutputFiles outputs, Path facts, int index, int count, SortedMap<String, List<String>> settings,
      RunResult result, Path records, String version) {
    ObjectNode root = JSON.createObjectNode();
    root.put("format", FORMAT);
    root.put("infermarkVersion", version);
    root.put("shardIndex", index);
    root.put("shardCount", count);
    ObjectNode s = root.putObject("settings");
    settings.forEach((k, v) -> {
      ArrayNode a = s.putArray(k);
      v.forEach(a::add);
    });
    root.put("startedAt", result.startedAt().toString());
    root.put("durationNanos", result.durationNanos());
    root.put("target", result.target());
    root.put("promptCount", result.promptCount());
    root.put("insecureTls", result.insecureTls());
    ObjectNode h = root.putObject("clientHealth");
    h.put("verdict", result.clientHealth().verdict().name());
    h.put("floorNanos", result.clientHealth().floorNanos());
    ArrayNode reasons = h.putArray("reasons");
    result.clientHealth().reasons().forEach(reasons::add);
    RunEnvironment env = result.environment();
    ObjectNode e = root.putObject("environment");
    e.put("javaVersion", env.javaVersion());
    e.put("javaVendor", env.javaVendor());
    e.put("osName", env.osName());
    e.put("osArch", env.osArch());
    e.put("availableProcessors", env.availableProcessors());
    e.put("maxHeapBytes", env.maxHeapBytes());
    e.put("virtualThreads", env.virtualThreads());
    result.interruption().ifPresent(i -> {
      ObjectNode n = root.putObject("interruption");
      n.put("reason", i.reason());
      n.put("at", i.at().toString());
      n.put("atNanos", i.atNanos());
      n.put("completed", i.completed());
      n.put("cancelled", i.cancelled());
      n.put("notSent", i.notSent());
      n.put("unknown", i.unknown());
    });
    root.put("records", records.getFileName().toString());
    outputs.write(facts, p -> JSON.writeValue(p.toFile(), root));
  }

  /** The facts files in a directory, sorted by name. */
  static List<Path> list(Path dir) {
    if (!Files.isDirectory(dir)) {
      throw new IllegalArgumentException(dir + " is not a directory; give the --result-dir the shards wrote to");
    }
    List<Path> files = new ArrayList<>();
    try (var stream = Files.newDirectoryStream(dir, GLOB)) {
      stream.forEach(files::add);
    } catch (IOException ex) {
      throw new CliException(Infermark.FAILED, "cannot list " + dir + ": " + ex.getMessage());
    }
    Collections.sort(files);
    if (files.isEmpty()) {
      throw new IllegalArgumentException("no shard files (" + GLOB + ") in " + dir
          + "; run bench with --shard-index/--shard-count and --result-dir " + dir + " first");
    }
    return files;
  }

  /**
   * Reads a facts file.
   *
   * @throws IllegalArgumentException if it is not a shard facts file of this format
   */
  static Facts read(Path file) {
    JsonNode root;
    try {
      root = JSON.readTree(file.toFile());
    } catch (IOException ex) {
      throw new IllegalArgumentException(file + " is not a shard file (not JSON: " + ex.getMessage() + ")");
    }
    if (root == null || !FORMAT.equals(root.path("format").asText())) {
      throw new IllegalArgumentException(file + " is not a shard file of format " + FORMAT
          + " (written by infermark bench --shard-index/--shard-count)");
    }
    try {
      SortedMap<String, List<String>> settings = new TreeMap<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = need(root, "settings", file).fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> en = it.next();
        List<String> values = new ArrayList<>();
        en.getValue().forEach(v -> values.add(v.asText()));
        settings.put(en.getKey(), List.copyOf(values));
      }
      JsonNode h = need(root, "clientHealth", file);
      List<String> reasons = new ArrayList<>();
      h.path("reasons").forEach(r -> reasons.add(r.asText()));
      ClientHealth health = new ClientHealth(HealthVerdict.valueOf(need(h, "verdict", file).asText()), reasons,
          h.path("floorNanos").asLong(), Optional.empty());
      JsonNode e = need(root, "environment", file);
      RunEnvironment env = new RunEnvironment(e.path("javaVersion").asText("?"), e.path("javaVendor").asText("?"),
          e.path("osName").asText("?"), e.path("osArch").asText("?"), e.path("availableProcessors").asInt(),
          e.path("maxHeapBytes").asLong(), e.path("virtualThreads").asBoolean());
      Path records = file.resolveSibling(need(root, "records", file).asText());
      JsonNode n = root.get("interruption");
      Optional<Interruption> interruption = n == null || !n.isObject() ? Optional.empty()
          : Optional.of(new Interruption(n.path("reason").asText("unknown"), Instant.parse(n.path("at").asText()),
              n.path("atNanos").asLong(), n.path("completed").asLong(), n.path("cancelled").asLong(),
              n.path("notSent").asLong(), n.path("unknown").asLong()));
      return new Facts(file, need(root, "shardIndex", file).asInt(), need(root, "shardCount", file).asInt(),
          root.path("infermarkVersion").asText("unknown"), Collections.unmodifiableSortedMap(settings),
          Instant.parse(need(root, "startedAt", file).asText()), need(root, "durationNanos", file).asLong(),
          need(root, "target", file).asText(), root.path("promptCount").asInt(), root.path("insecureTls").asBoolean(),
          health, env, records, interruption);
    } catch (RuntimeException ex) {
      throw new IllegalArgumentException(file + " is not a valid shard file: " + ex.getMessage());
    }
  }

  private static JsonNode need(JsonNode node, String key, Path file) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      throw new IllegalArgumentException(file + " lacks '" + key + "'");
    }
    return v;
  }
}
