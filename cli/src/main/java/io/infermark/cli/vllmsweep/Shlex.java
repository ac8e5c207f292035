package io.infermark.cli.vllmsweep;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Python's {@code shlex.split} (POSIX mode) for the command strings vLLM's sweeps take, and Python's list repr
 * for printing a command as vLLM's scripts print it ({@code ['vllm', 'serve', ...]}).
 */
final class Shlex {

  private static final Pattern SAFE = Pattern.compile("[\\w@%+=:,./-]+");

  private Shlex() {}

  /**
   * The words of a command line, as a POSIX shell splits it: single quotes keep everything, double quotes keep
   * everything but {@code \"}, {@code \\}, {@code \$} and {@code \`}, a backslash outside quotes escapes the next
   * character, {@code #} at a word's start begins a comment.
   *
   * @throws IllegalArgumentException for an unclosed quote or a trailing backslash
   */
  static List<String> split(String line) {
    List<String> words = new ArrayList<>();
    StringBuilder w = new StringBuilder();
    boolean inWord = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (Character.isWhitespace(c)) {
        if (inWord) {
          words.add(w.toString());
          w.setLength(0);
          inWord = false;
        }
      } else if (c == '#' && !inWord) {
        break;
      } else if (c == '\'') {
        int end = line.indexOf('\'', i + 1);
        if (end < 0) {
          throw new IllegalArgumentException("no closing quotation in: " + line);
        }
        w.append(line, i + 1, end);
        i = end;
        inWord = true;
      } else if (c == '"') {
        int j = i + 1;
        for (; j < line.length() && line.charAt(j) != '"'; j++) {
          char d = line.charAt(j);
          if (d == '\\' && j + 1 < line.length() && "\"\\$`".indexOf(line.charAt(j + 1)) >= 0) {
            w.append(line.charAt(++j));
          } else {
            w.append(d);
          }
        }
        if (j >= line.length()) {
          throw new IllegalArgumentException("no closing quotation in: " + line);
        }
        i = j;
        inWord = true;
      } else if (c == '\\') {
        if (i + 1 >= line.length()) {
          throw new IllegalArgumentException("no escaped character in: " + line);
        }
        w.append(line.charAt(++i));
        inWord = true;
      } else {
        w.append(c);
        inWord = true;
      }
    }
    if (inWord) {
      words.add(w.toString());
    }
    return words;
  }

  /** The words as Python prints a list of strings: {@code ['a', 'b c']}. */
  static String repr(List<String> words) {
    StringBuilder b = new StringBuilder("[");
    for (int i = 0; i < words.size(); i++) {
      String s = words.get(i);
      b.append(i == 0 ? "" : ", ");
      if (s.contains("'") && !s.contains("\"")) {
        b.append('"').append(s.replace("\\", "\\\\")).append('"');
      } else {
        b.append('\'').append(s.replace("\\", "\\\\").replace("'", "\\'")).append('\'');
      }
    }
    return b.append(']').toString();
  }

  /** The words as one shell line ({@code shlex.join}): words with other characters than safe ones single-quoted. */
  static String join(List<String> words) {
    List<String> out = new ArrayList<>();
    for (String s : words) {
      out.add(!s.isEmpty() && SAFE.matcher(s).matches() ? s : "'" + s.replace("'", "'\"'\"'") + "'");
    }
    return String.join(" ", out);
  }
}
