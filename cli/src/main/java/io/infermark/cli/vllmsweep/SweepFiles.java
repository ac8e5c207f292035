package io.infermark.cli.vllmsweep;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The files of a sweep as vLLM writes them: JSON with Python's {@code json.dump(indent=4)} layout, {@code summary.csv}
 * as pandas' {@code DataFrame.to_csv} writes it (an index column, one column per key in order of first appearance),
 * directory names through vLLM's {@code sanitize_filename}, and every {@code summary.json} under a directory.
 */
final class SweepFiles {

  private static final ObjectWriter INDENT4 = SweepParams.JSON.writer(new DefaultPrettyPrinter()
      .withObjectIndenter(new DefaultIndenter("    ", "\n")).withArrayIndenter(new DefaultIndenter("    ", "\n"))
      .withSeparators(com.fasterxml.jackson.core.util.Separators.createDefaultInstance()
          .withObjectFieldValueSpacing(com.fasterxml.jackson.core.util.Separators.Spacing.AFTER)));

  private SweepFiles() {}

  /** vLLM's {@code sanitize_filename}: "/" as "_", ".." as "__". */
  static String sanitize(String name) {
    return name.replace("/", "_").replace("..", "__");
  }

  /** Reads a JSON file. */
  static JsonNode read(Path file) {
    try {
      return SweepParams.JSON.readTree(Files.readString(file));
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + file + ": " + e.getMessage().lines().findFirst().orElse(""));
    }
  }

  /** Writes JSON indented by four spaces, creating the directory. */
  static void write(Path file, JsonNode json) {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Files.writeString(file, INDENT4.writeValueAsString(json));
    } catch (IOException e) {
      throw new IllegalStateException("cannot write " + file + ": " + e.getMessage());
    }
  }

  /** Appends text to a file, creating it and its directory. */
  static void append(Path file, String text) {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Files.writeString(file, text, java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new IllegalStateException("cannot write " + file + ": " + e.getMessage());
    }
  }

  /** A list of run records as a JSON array. */
  static ArrayNode array(List<ObjectNode> runs) {
    ArrayNode a = SweepParams.JSON.createArrayNode();
    runs.forEach(a::add);
    return a;
  }

  /** Writes {@code summary.csv} as pandas writes a DataFrame of these records. */
  static void writeCsv(Path file, List<ObjectNode> runs) {
    Set<String> columns = new LinkedHashSet<>();
    runs.forEach(r -> r.fieldNames().forEachRemaining(columns::add));
    StringBuilder b = new StringBuilder();
    b.append("");
    columns.forEach(c -> b.append(',').append(csv(c)));
    b.append('\n');
    for (int i = 0; i < runs.size(); i++) {
      b.append(i);
      for (String c : columns) {
        JsonNode v = runs.get(i).get(c);
        b.append(',').append(v == null || v.isNull() ? "" : csv(v.isTextual() ? v.textValue() : SweepParams.pyStr(v)));
      }
      b.append('\n');
    }
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      Files.writeString(file, b.toString());
    } catch (IOException e) {
      throw new IllegalStateException("cannot write " + file + ": " + e.getMessage());
    }
  }

  private static String csv(String s) {
    return s.contains(",") || s.contains("\"") || s.contains("\n") || s.contains("\r")
        ? "\"" + s.replace("\"", "\"\"") + "\"" : s;
  }

  /** Every record of every {@code summary.json} under {@code dir} (vLLM's {@code rglob("**\/summary.json")}). */
  static List<ObjectNode> summaries(Path dir) {
    List<ObjectNode> all = new ArrayList<>();
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path f : files.filter(p -> p.getFileName().toString().equals("summary.json")).sorted().toList()) {
        JsonNode n = read(f);
        if (!n.isArray()) {
          throw new IllegalStateException(f + " is not a list of runs");
        }
        n.forEach(r -> {
          if (r.isObject()) {
            all.add((ObjectNode) r);
          }
        });
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + dir + ": " + e.getMessage());
    }
    return all;
  }
}
