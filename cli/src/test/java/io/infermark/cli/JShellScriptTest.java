package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import jdk.jshell.JShell;
import jdk.jshell.Snippet;
import jdk.jshell.SnippetEvent;
import jdk.jshell.SourceCodeAnalysis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code infermark.jsh} loads in JShell and the snippets of docs/jshell.md run, in order, against the simulator
 * (the third an agent-session workload).
 */
class JShellScriptTest {

  /** The Java blocks of docs/jshell.md, in the order a reader pastes them. */
  static List<String> documentedSnippets() throws java.io.IOException {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?s)```java\\n(.*?)```")
        .matcher(Files.readString(Path.of("..", "docs", "jshell.md")));
    List<String> blocks = new ArrayList<>();
    while (m.find()) {
      blocks.add(m.group(1));
    }
    return blocks;
  }

  @Test
  @Timeout(value = 3, unit = TimeUnit.MINUTES)
  void startupScriptAndDocumentedSnippetRunWithoutErrors() throws Exception {
    Path script = Path.of("..", "infermark.jsh");
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    // JShell's own execution engine, as `jshell` runs it: snippets in a child JVM. The in-process "local" engine
    // joins every thread of its thread group after each snippet, the simulator's and the client's daemon threads
    // included, and hung there once under load; it is not what a user runs either.
    try (JShell shell = JShell.builder()
        .out(new PrintStream(printed, true, StandardCharsets.UTF_8)).err(new PrintStream(printed, true, StandardCharsets.UTF_8))
        .build()) {
      for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
        shell.addToClasspath(entry);
      }
      List<String> problems = new ArrayList<>();
      evalAll(shell, Files.readString(script), problems, new ArrayList<>());
      assertThat(problems).as("infermark.jsh").isEmpty();
      List<String> values = new ArrayList<>();
      List<String> snippets = documentedSnippets();
      assertThat(snippets).hasSize(3);
      for (String snippet : snippets) {
        evalAll(shell, snippet, problems, values);
        assertThat(problems).as("the documented snippet %s", snippet).isEmpty();
      }
      assertThat(values).contains("\"measured=12 ttftP99>0=true\"", "\"sessions=6 completed=1.0\"");
      assertThat(printed.toString(StandardCharsets.UTF_8)).as("show(run) printed the summary table").contains("TTFT");
      assertThat(printed.toString(StandardCharsets.UTF_8)).as("the second snippet's run").contains("40 measured");
    }
  }

  /** Evaluates source snippet by snippet, as JShell reads a file, collecting rejected snippets and exceptions. */
  private static void evalAll(JShell shell, String source, List<String> problems, List<String> values) {
    SourceCodeAnalysis analysis = shell.sourceCodeAnalysis();
    String rest = source;
    while (!rest.isBlank()) {
      SourceCodeAnalysis.CompletionInfo info = analysis.analyzeCompletion(rest);
      if (!info.completeness().isComplete()) {
        problems.add("incomplete input: " + rest.strip());
        return;
      }
      for (SnippetEvent e : shell.eval(info.source())) {
        if (e.status() == Snippet.Status.REJECTED) {
          problems.add("rejected: " + e.snippet().source() + " "
              + shell.diagnostics(e.snippet()).map(d -> d.getMessage(null)).toList());
        }
        if (e.value() != null) {
          values.add(e.value());
        }
        if (e.exception() != null) {
          problems.add("threw: " + e.snippet().source() + " " + e.exception());
        }
      }
      rest = info.remaining();
    }
  }
}
