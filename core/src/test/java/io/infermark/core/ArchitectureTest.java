package io.infermark.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The floor plan of docs/architecture.md, checked on the sources of every module: each package says in
 * its package-info what it may import, and imports nothing else of infermark; core's packages form no
 * cycle but the front door and its engine; no source package is named {@code target} (tools that skip
 * Maven's build folder would not see it).
 */
class ArchitectureTest {

  private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+);", Pattern.MULTILINE);
  private static final Pattern USE = Pattern.compile("\\b(io\\.infermark(?:\\.[a-z]\\w*)*)\\.[A-Z]");
  private static final Pattern MAY_IMPORT = Pattern.compile("May import:(.*?)(?:\\.\\s|\\*/)", Pattern.DOTALL);
  private static final Pattern CODE = Pattern.compile("\\{@code\\s+(io\\.infermark[\\w.]*)\\}");

  /** Package name to the infermark packages its classes use. */
  private static final Map<String, Set<String>> USES = new TreeMap<>();
  /** Package name to its package-info text, or null when it has none. */
  private static final Map<String, String> INFO = new TreeMap<>();
  private static final List<Path> SOURCE_DIRS = new ArrayList<>();

  @BeforeAll
  static void scan() throws IOException {
    Path root = Path.of("").toAbsolutePath().getParent();
    try (Stream<Path> modules = Files.list(root)) {
      modules.map(m -> m.resolve("src/main/java")).filter(Files::isDirectory).forEach(SOURCE_DIRS::add);
    }
    assertThat(SOURCE_DIRS).as("module source folders under %s", root).hasSizeGreaterThan(5);
    for (Path dir : SOURCE_DIRS) {
      try (Stream<Path> files = Files.walk(dir)) {
        files.filter(p -> p.toString().endsWith(".java")).forEach(ArchitectureTest::read);
      }
    }
    Set<String> known = new TreeSet<>(USES.keySet());
    known.addAll(INFO.keySet());
    USES.values().forEach(s -> s.retainAll(known));
  }

  private static void read(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Matcher m = PACKAGE.matcher(text);
    if (!m.find()) {
      return;
    }
    String pkg = m.group(1);
    if (file.getFileName().toString().equals("package-info.java")) {
      INFO.put(pkg, text);
      USES.computeIfAbsent(pkg, k -> new TreeSet<>());
      return;
    }
    Set<String> uses = USES.computeIfAbsent(pkg, k -> new TreeSet<>());
    Matcher u = USE.matcher(code(text));
    while (u.find()) {
      if (!u.group(1).equals(pkg)) {
        uses.add(u.group(1));
      }
    }
  }

  /** The text without comments and string literals, where a name is not a dependency. */
  static String code(String text) {
    StringBuilder out = new StringBuilder(text.length());
    int i = 0;
    int n = text.length();
    while (i < n) {
      char c = text.charAt(i);
      if (c == '/' && i + 1 < n && text.charAt(i + 1) == '*') {
        int end = text.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
      } else if (c == '/' && i + 1 < n && text.charAt(i + 1) == '/') {
        int end = text.indexOf('\n', i);
        i = end < 0 ? n : end;
      } else if (c == '"' || c == '\'') {
        i++;
        while (i < n && text.charAt(i) != c) {
          i += text.charAt(i) == '\\' ? 2 : 1;
        }
        i++;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  private static Set<String> declared(String info) {
    Matcher m = MAY_IMPORT.matcher(info.replaceAll("\\n\\s*\\*", " "));
    Set<String> out = new TreeSet<>();
    if (m.find()) {
      Matcher c = CODE.matcher(m.group(1));
      while (c.find()) {
        out.add(c.group(1));
      }
    }
    return out;
  }

  @Test
  void everyPackageSaysWhatItIsForAndWhatItMayImport() {
    List<String> missing = new ArrayList<>();
    for (String pkg : USES.keySet()) {
      String info = INFO.get(pkg);
      if (info == null || !info.contains("May import:")) {
        missing.add(pkg);
      }
    }
    assertThat(missing).as("packages without a package-info that has a 'May import:' line").isEmpty();
  }

  @Test
  void noPackageImportsWhatItsPackageInfoDoesNotAllow() {
    Map<String, Set<String>> undeclared = new TreeMap<>();
    USES.forEach((pkg, uses) -> {
      String info = INFO.get(pkg);
      if (info == null) {
        return;
      }
      Set<String> extra = new TreeSet<>(uses);
      extra.removeAll(declared(info));
      if (!extra.isEmpty()) {
        undeclared.put(pkg, extra);
      }
    });
    assertThat(undeclared).as("imports a package-info does not allow (change the code, or the plan and its doc)")
        .isEmpty();
  }

  @Test
  void coresPackagesFormNoCycleButTheFrontDoorAndItsEngine() {
    Map<String, Set<String>> core = new HashMap<>();
    USES.forEach((pkg, uses) -> {
      if (pkg.startsWith("io.infermark.core")) {
        core.put(pkg, uses.stream().filter(u -> u.startsWith("io.infermark.core")).collect(
            java.util.stream.Collectors.toSet()));
      }
    });
    List<Set<String>> cycles = new ArrayList<>();
    for (Set<String> component : stronglyConnected(core)) {
      if (component.size() > 1 && !component.equals(Set.of("io.infermark.core", "io.infermark.core.run"))) {
        cycles.add(component);
      }
    }
    assertThat(cycles).isEmpty();
    assertThat(core).containsKeys("io.infermark.core", "io.infermark.core.run");
  }

  @Test
  void everyModuleButCoreIsAboveCoreAndCoreImportsNoOtherModule() {
    USES.forEach((pkg, uses) -> {
      if (pkg.startsWith("io.infermark.core")) {
        assertThat(uses).as(pkg).allMatch(u -> u.startsWith("io.infermark.core"));
      }
    });
  }

  @Test
  void noSourcePackageIsNamedTarget() throws IOException {
    for (Path dir : SOURCE_DIRS) {
      Path module = dir.getParent().getParent().getParent();
      try (Stream<Path> tree = Files.walk(module.resolve("src"))) {
        assertThat(tree.filter(Files::isDirectory).map(p -> p.getFileName().toString()))
            .as("folders under %s/src", module.getFileName()).doesNotContain("target");
      }
    }
  }

  @Test
  void theCodeScannerIgnoresCommentsAndStrings() {
    String text = "/** {@link io.infermark.metrics.X} */ class A { String s = \"io.infermark.cli.Y\"; "
        + "// io.infermark.examples.Z\n io.infermark.core.capture.RequestRecord r; char q = '\"'; }";

    Matcher m = USE.matcher(code(text));
    List<String> found = new ArrayList<>();
    while (m.find()) {
      found.add(m.group(1));
    }
    assertThat(found).containsExactly("io.infermark.core.capture");
  }

  /** Tarjan's strongly connected components, iteratively. */
  private static List<Set<String>> stronglyConnected(Map<String, Set<String>> graph) {
    Map<String, Integer> index = new HashMap<>();
    Map<String, Integer> low = new HashMap<>();
    Deque<String> stack = new ArrayDeque<>();
    Set<String> onStack = new java.util.HashSet<>();
    List<Set<String>> out = new ArrayList<>();
    int[] counter = {0};
    for (String start : new TreeSet<>(graph.keySet())) {
      if (!index.containsKey(start)) {
        connect(start, graph, index, low, stack, onStack, out, counter);
      }
    }
    return out;
  }

  private static void connect(String v, Map<String, Set<String>> graph, Map<String, Integer> index,
      Map<String, Integer> low, Deque<String> stack, Set<String> onStack, List<Set<String>> out, int[] counter) {
    index.put(v, counter[0]);
    low.put(v, counter[0]++);
    stack.push(v);
    onStack.add(v);
    for (String w : graph.getOrDefault(v, Set.of())) {
      if (!graph.containsKey(w)) {
        continue;
      }
      if (!index.containsKey(w)) {
        connect(w, graph, index, low, stack, onStack, out, counter);
        low.put(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.contains(w)) {
        low.put(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v).equals(index.get(v))) {
      Set<String> component = new TreeSet<>();
      String w;
      do {
        w = stack.pop();
        onStack.remove(w);
        component.add(w);
      } while (!w.equals(v));
      out.add(component);
    }
  }
}
