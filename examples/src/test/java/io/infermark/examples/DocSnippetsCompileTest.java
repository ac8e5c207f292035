package io.infermark.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compiles every Java snippet of README.md and docs/*.md against the examples' test classpath, in one
 * compiler invocation, so the documentation cannot drift from the API.
 *
 * <p>The convention (also in docs/README.md): a {@code ```java} block that starts with {@code import}
 * lines is compiled. Its body is either a type declaration (it starts with an annotation, {@code class},
 * {@code record}, ...) compiled as is, or statements, compiled as the body of a method that may throw.
 * Variables a statement snippet uses without declaring are named in an HTML comment on the line before
 * the fence, {@code <!-- given: RunResult run, OpenAiTarget target -->}, and become the method's
 * parameters (their types resolve through the snippet's imports). A Java block that is deliberately not
 * compilable says why on the line before the fence: {@code <!-- not compiled: reason -->}. Every Java
 * block, compiled or not, must paste into JShell: no line starts with a dot or another continuation
 * operator.
 */
class DocSnippetsCompileTest {

  private static final Pattern GIVEN = Pattern.compile("<!--\\s*given:\\s*(.*?)\\s*-->");
  private static final Pattern NOT_COMPILED = Pattern.compile("<!--\\s*not compiled:\\s*\\S.*-->");
  private static final Pattern TYPE_DECLARATION = Pattern.compile(
      "^(@|(public |final |abstract |sealed )*(class|record|interface|enum) ).*");
  private static final Pattern CONTINUATION_START = Pattern.compile("^(\\.|\\+ |\\? |: |&&|\\|\\||->).*");

  private static Path root;
  private static final List<Snippet> snippets = new ArrayList<>();
  private static final List<String> conventionProblems = new ArrayList<>();

  @BeforeAll
  static void readDocs() throws IOException {
    root = repositoryRoot();
    List<Path> files = new ArrayList<>();
    files.add(root.resolve("README.md"));
    try (Stream<Path> docs = Files.walk(root.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
    }
    for (Path file : files) {
      scan(file);
    }
  }

  @Test
  void everyJavaSnippetInTheDocsCompiles(@TempDir Path out) {
    assertThat(snippets).as("compiled snippets found in README.md and docs/").hasSizeGreaterThan(10);
    assertThat(snippets).as("the README's own snippets").anyMatch(s -> s.file.endsWith("README.md"));

    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    assertThat(compiler).as("a JDK's compiler (run the tests on a JDK, not a JRE)").isNotNull();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> options = List.of("-classpath", classpath, "-d", out.toString(), "-proc:none",
        "-Xlint:none", "-nowarn", "-encoding", "UTF-8");
    List<SnippetSource> sources = new ArrayList<>();
    for (int i = 0; i < snippets.size(); i++) {
      sources.add(new SnippetSource(snippets.get(i), "snippets.s" + i));
    }
    try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, StandardCharsets.UTF_8)) {
      compiler.getTask(null, files, diagnostics, options, null, sources).call();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }

    List<String> errors = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      if (d.getKind() != Diagnostic.Kind.ERROR) {
        continue;
      }
      if (d.getSource() instanceof SnippetSource source) {
        errors.add(source.where(d.getLineNumber()) + ": "
            + String.join("; ", d.getMessage(Locale.ROOT).lines().map(String::strip).toList()));
      } else {
        errors.add(String.valueOf(d));
      }
    }
    assertThat(errors).as("snippets that do not compile (file:line: error)").isEmpty();
  }

  @Test
  void everyJavaSnippetHasItsImportsOrSaysWhyNotAndPastesIntoJShell() {
    assertThat(conventionProblems).isEmpty();
  }

  private static void scan(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    String name = root.relativize(file).toString();
    for (int i = 0; i < lines.size(); i++) {
      if (!lines.get(i).strip().equals("```java")) {
        continue;
      }
      int fence = i;
      List<String> body = new ArrayList<>();
      i++;
      while (i < lines.size() && !lines.get(i).strip().equals("```")) {
        body.add(lines.get(i));
        i++;
      }
      String before = fence > 0 ? lines.get(fence - 1) : "";
      for (int k = 0; k < body.size(); k++) {
        if (CONTINUATION_START.matcher(body.get(k).strip()).matches()) {
          conventionProblems.add(name + ":" + (fence + 2 + k)
              + ": a line starts with a continuation; JShell runs the line before it on its own. End the line before"
              + " with the operator (a trailing dot) instead");
        }
      }
      String first = body.stream().filter(l -> !l.isBlank()).findFirst().orElse("");
      if (NOT_COMPILED.matcher(before).find()) {
        continue; // says why it cannot compile here (a dependency infermark does not have, a JShell script's helpers)
      }
      if (first.startsWith("import ")) {
        Matcher given = GIVEN.matcher(before);
        snippets.add(new Snippet(name, fence + 2, body, given.find() ? given.group(1) : ""));
      } else {
        conventionProblems.add(name + ":" + (fence + 1)
            + ": a Java snippet without imports; start it with its imports (it is then compiled) or put"
            + " <!-- not compiled: why --> on the line before the fence");
      }
    }
  }

  private static Path repositoryRoot() {
    Path dir = Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath();
    for (Path p = dir; p != null; p = p.getParent()) {
      if (Files.isRegularFile(p.resolve("README.md")) && Files.isDirectory(p.resolve("docs"))) {
        return p;
      }
    }
    throw new IllegalStateException("no README.md with a docs/ folder above " + dir);
  }

  /** One compiled snippet: the Markdown file, the line of its first code line, its lines and given variables. */
  private record Snippet(String file, int firstLine, List<String> lines, String given) {}

  /** A snippet as a compilation unit, with the Markdown line of every generated line. */
  private static final class SnippetSource extends SimpleJavaFileObject {
    private final Snippet snippet;
    private final String code;
    private final List<Integer> markdownLines = new ArrayList<>();

    SnippetSource(Snippet snippet, String pkg) {
      super(URI.create("string:///" + pkg.replace('.', '/') + "/Snippet.java"), Kind.SOURCE);
      this.snippet = snippet;
      StringBuilder sb = new StringBuilder();
      add(sb, "package " + pkg + ";", snippet.firstLine);
      int k = 0;
      List<String> lines = snippet.lines;
      while (k < lines.size() && (lines.get(k).isBlank() || lines.get(k).startsWith("import "))) {
        add(sb, lines.get(k), snippet.firstLine + k);
        k++;
      }
      String firstCode = k < lines.size() ? lines.get(k).strip() : "";
      boolean declaration = TYPE_DECLARATION.matcher(firstCode).matches();
      if (!declaration) {
        add(sb, "class Snippet { void run(" + snippet.given + ") throws Exception {", snippet.firstLine + k);
      }
      for (; k < lines.size(); k++) {
        add(sb, lines.get(k), snippet.firstLine + k);
      }
      if (!declaration) {
        add(sb, "}}", snippet.firstLine + lines.size() - 1);
      }
      this.code = sb.toString();
    }

    private void add(StringBuilder sb, String line, int markdownLine) {
      sb.append(line).append('\n');
      markdownLines.add(markdownLine);
    }

    String where(long generatedLine) {
      int index = (int) Math.max(1, Math.min(generatedLine, markdownLines.size())) - 1;
      return snippet.file + ":" + markdownLines.get(index);
    }

    @Override
    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
      return code;
    }
  }
}
