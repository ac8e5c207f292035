package io.infermark.cli;

import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Whether and where a command writes its HTML page: on by default, beside the command's other outputs;
 * {@code --html FILE} names the file, {@code --no-html} writes none.
 */
final class HtmlOptions {

  @Option(names = "--html", arity = "0..1", paramLabel = "FILE.html", fallbackValue = "",
      description = "Write the HTML page (the default), to FILE.html if given; beside the result JSON otherwise.")
  String html;

  @Option(names = "--no-html", description = "Write no HTML page.")
  boolean noHtml;

  /** The page's path: the one given, or {@code defaultFile}; empty with {@code --no-html}. */
  Optional<Path> file(Path defaultFile) {
    if (noHtml) {
      if (html != null) {
        throw new IllegalArgumentException("give --html or --no-html, not both");
      }
      return Optional.empty();
    }
    return Optional.of(html == null || html.isBlank() ? defaultFile : Path.of(html));
  }
}
