package io.infermark.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import picocli.CommandLine.Model.CommandSpec;

/**
 * vLLM's command-line conventions for {@code bench} and {@code bench sweep <sub>}, applied before picocli parses:
 * {@code vllm bench serve}'s word {@code serve} after {@code bench}, {@code --config FILE} (a YAML map of option:
 * value, placed before the command line so the command line wins, as vLLM's {@code FlexibleArgumentParser}),
 * underscores in option names ({@code --random_input_len}), argparse's unambiguous prefixes ({@code --num-prom}), and JSON arguments given by
 * parts ({@code --extra-body.key value}, {@code --x.list+ a,b}), merged into one JSON value as vLLM merges them. A
 * repeated option's last value wins (picocli's overwritten options, set on the command).
 */
final class VllmArgs {

  private static final ObjectMapper JSON = new ObjectMapper();

  private VllmArgs() {}

  /**
   * The command line as picocli should see it; unchanged unless it starts with {@code bench}.
   *
   * @throws IllegalArgumentException for an ambiguous prefix or an unreadable or malformed config file
   */
  static List<String> normalize(List<String> args, CommandSpec bench) {
    if (args.isEmpty() || !args.get(0).equals("bench")) {
      return args;
    }
    List<String> rest = new ArrayList<>(args.subList(1, args.size()));
    if (!rest.isEmpty() && rest.get(0).equals("sweep")) {
      // vllm bench sweep <sub> ...: the same parser conventions, over the sub-command's own options
      picocli.CommandLine sweep = bench.subcommands().get("sweep");
      picocli.CommandLine sub = sweep == null || rest.size() < 2 ? null : sweep.getSubcommands().get(rest.get(1));
      if (sub == null) {
        List<String> out = new ArrayList<>(List.of("bench"));
        out.addAll(io.infermark.cli.vllmsweep.VllmSweepCommand.vllmSpelling(rest));
        return out;
      }
      List<String> out = new ArrayList<>(List.of("bench", "sweep", rest.get(1)));
      out.addAll(options(rest.subList(2, rest.size()), sub.getCommandSpec()));
      return out;
    }
    if (!rest.isEmpty() && rest.get(0).equals("serve")) {
      rest.remove(0); // vllm bench serve ...
    }
    List<String> out = new ArrayList<>(List.of("bench"));
    out.addAll(options(rest, bench));
    return out;
  }

  /**
   * A command's arguments with vLLM's parser conventions resolved against its options: {@code --config FILE}
   * expanded, underscores read as dashes, unambiguous prefixes completed and dotted JSON arguments assembled.
   */
  private static List<String> options(List<String> given, CommandSpec command) {
    List<String> rest = withConfig(given, command);
    Set<String> names = new TreeSet<>();
    command.optionsMap().keySet().stream().filter(n -> n.startsWith("--")).forEach(names::add);
    command.negatedOptionsMap().keySet().stream().filter(n -> n.startsWith("--")).forEach(names::add);
    List<String> out = new ArrayList<>();
    Map<String, com.fasterxml.jackson.databind.node.ObjectNode> dotted = new java.util.LinkedHashMap<>();
    boolean options = true;
    for (int i = 0; i < rest.size(); i++) {
      String a = rest.get(i);
      if (!options || !a.startsWith("--") || a.length() == 2) {
        options &= !a.equals("--");
        out.add(a);
        continue;
      }
      int eq = a.indexOf('=');
      String key = eq < 0 ? a : a.substring(0, eq);
      int dot = key.indexOf('.');
      if (dot > 2) {
        // vLLM's JSON arguments by parts: --extra-body.key value, --json-arg.a.b value, --json-arg.list+ v1,v2
        String value = eq >= 0 ? a.substring(eq + 1) : i + 1 < rest.size() ? rest.get(++i) : null;
        if (value == null) {
          throw new IllegalArgumentException(key + " needs a value");
        }
        String option = resolve(key.substring(0, dot).replace('_', '-'), names);
        dotted(dotted.computeIfAbsent(option, o -> JSON.createObjectNode()), key.substring(dot + 1), value);
        continue;
      }
      String name = key.replace('_', '-');
      out.add(resolve(name, names) + (eq < 0 ? "" : a.substring(eq)));
    }
    dotted.forEach((option, json) -> {
      out.add(option);
      out.add(json.toString());
    });
    return out;
  }

  /** Puts {@code value} at the dotted {@code path} of {@code root}: JSON when it parses, else a string. */
  private static void dotted(com.fasterxml.jackson.databind.node.ObjectNode root, String path, String value) {
    boolean append = path.endsWith("+");
    String[] keys = (append ? path.substring(0, path.length() - 1) : path).split("\\.");
    com.fasterxml.jackson.databind.node.ObjectNode node = root;
    for (int k = 0; k < keys.length - 1; k++) {
      JsonNode next = node.get(keys[k]);
      node = next instanceof com.fasterxml.jackson.databind.node.ObjectNode o ? o : node.putObject(keys[k]);
    }
    String last = keys[keys.length - 1];
    if (append) {
      JsonNode list = node.get(last);
      com.fasterxml.jackson.databind.node.ArrayNode array = list instanceof com.fasterxml.jackson.databind.node.ArrayNode
          l ? l : node.putArray(last);
      for (String item : value.split(",")) {
        array.add(item);
      }
      return;
    }
    JsonNode parsed;
    try {
      parsed = JSON.readTree(value);
    } catch (IOException notJson) {
      parsed = null;
    }
    node.set(last, parsed == null || parsed.isMissingNode() ? JSON.getNodeFactory().textNode(value) : parsed);
  }

  /** An option name as given, or the one option it is an unambiguous prefix of (argparse's abbreviations). */
  private static String resolve(String name, Set<String> names) {
    if (names.contains(name)) {
      return name;
    }
    List<String> matches = names.stream().filter(n -> n.startsWith(name)).toList();
    if (matches.size() > 1) {
      throw new IllegalArgumentException("ambiguous option: " + name + " could match " + String.join(", ", matches));
    }
    return matches.isEmpty() ? name : matches.get(0);
  }

  /** {@code --config FILE} replaced by the file's options, placed first so the command line's own win. */
  private static List<String> withConfig(List<String> args, CommandSpec command) {
    int at = -1;
    String file = null;
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals("--")) {
        break;
      }
      if (a.equals("--config") || a.startsWith("--config=")) {
        if (at >= 0) {
          throw new IllegalArgumentException("more than one --config file (vLLM takes one)");
        }
        at = i;
        if (a.startsWith("--config=")) {
          file = a.substring("--config=".length());
        } else if (i + 1 < args.size()) {
          file = args.get(i + 1);
        } else {
          throw new IllegalArgumentException("--config needs a YAML file");
        }
      }
    }
    if (at < 0) {
      return args;
    }
    List<String> rest = new ArrayList<>(args);
    rest.subList(at, args.get(at).equals("--config") ? at + 2 : at + 1).clear();
    List<String> out = configArgs(Path.of(file), command);
    out.addAll(rest);
    return out;
  }

  /** A YAML config's options, as vLLM's {@code load_config_file} turns them into arguments. */
  static List<String> configArgs(Path file, CommandSpec bench) {
    String name = file.getFileName() == null ? "" : file.getFileName().toString();
    if (!name.endsWith(".yaml") && !name.endsWith(".yml")) {
      throw new IllegalArgumentException("--config must name a .yaml or .yml file (as vLLM), was " + file);
    }
    JsonNode root;
    try {
      root = new YAMLMapper().readTree(Files.readString(file));
    } catch (IOException e) {
      throw new CliException(Infermark.FAILED, "--config " + file + " cannot be read: " + e.getMessage());
    }
    if (root == null || root.isNull() || root.isMissingNode()) {
      return new ArrayList<>();
    }
    if (!root.isObject()) {
      throw new IllegalArgumentException("--config " + file + " must be a map of option: value");
    }
    List<String> out = new ArrayList<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String key = "--" + e.getKey();
      JsonNode v = e.getValue();
      if (v.isBoolean()) {
        String no = "--no-" + e.getKey().replace('_', '-');
        if (v.booleanValue()) {
          out.add(key);
        } else if (bench.negatedOptionsMap().containsKey(no)) {
          out.add(no);
        }
      } else if (v.isArray()) {
        if (!v.isEmpty()) {
          out.add(key);
          v.forEach(item -> out.add(item.isValueNode() ? item.asText() : item.toString()));
        }
      } else if (v.isObject()) {
        out.add(key);
        try {
          out.add(JSON.writeValueAsString(v));
        } catch (IOException ex) {
          throw new IllegalArgumentException("--config " + file + ": " + e.getKey() + " cannot be written as JSON");
        }
      } else if (!v.isNull()) {
        out.add(key);
        out.add(v.asText());
      }
    }
    return out;
  }
}
