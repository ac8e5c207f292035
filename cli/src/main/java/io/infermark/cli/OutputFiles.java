package io.infermark.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Writes a command's output files so that each is whole or absent: a file is written under a
 * temporary name in its own directory ({@code .NAME.tmp-XXXX}) and then renamed to its final name,
 * so a full disk, a read-only directory or a process killed mid-write never leaves a truncated file
 * under the final name. Outputs are independent: a failed one is remembered (its file and the cause)
 * and the next one is still attempted; {@link #failureLine()} then says it in one line.
 */
final class OutputFiles {

  /** Writes one output to the path it is given. */
  interface Writer {
    void write(Path file) throws IOException;
  }

  private final List<Path> written = new ArrayList<>();
  private final Map<Path, String> failures = new LinkedHashMap<>();

  /**
   * Writes {@code file} through {@code writer}; true if it now holds the whole output, false (and the
   * failure remembered, the temporary file removed) if it could not be written.
   */
  boolean write(Path file, Writer writer) {
    Path dir = file.toAbsolutePath().getParent();
    Path tmp = null;
    try {
      if (dir != null) {
        Files.createDirectories(dir);
      }
      tmp = (dir == null ? Path.of("") : dir).resolve("." + file.getFileName() + ".tmp-"
          + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36));
      writer.write(tmp);
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
      written.add(file);
      return true;
    } catch (IOException | RuntimeException e) {
      failures.put(file, cause(e));
      if (tmp != null) {
        try {
          Files.deleteIfExists(tmp);
        } catch (IOException ignored) {
          // nothing more can be done: the name starts with a dot and says it is temporary
        }
      }
      return false;
    }
  }

  /** Remembers an output that could not be written by this class (the journal, written as the run went). */
  void failed(Path file, String cause) {
    failures.put(file, cause);
  }

  /** Forgets an earlier failure of a file that has since been written whole. */
  void clear(Path file) {
    failures.remove(file);
  }

  /** The files written whole. */
  List<Path> written() {
    return List.copyOf(written);
  }

  /** True if an output could not be written. */
  boolean anyFailed() {
    return !failures.isEmpty();
  }

  /** Each failed file with its cause. */
  Map<Path, String> failures() {
    return Map.copyOf(failures);
  }

  /**
   * One line naming every file that could not be written and why, files with the same cause
   * together: {@code cannot write 3 outputs in out/ (a.json, b.json, c.html): permission denied}.
   */
  String failureLine() {
    Map<String, List<Path>> byCause = new LinkedHashMap<>();
    failures.forEach((f, c) -> byCause.computeIfAbsent(c, k -> new ArrayList<>()).add(f));
    List<String> parts = new ArrayList<>();
    byCause.forEach((cause, files) -> {
      if (files.size() == 1) {
        parts.add(files.get(0) + ": " + cause);
      } else {
        Path dir = files.get(0).toAbsolutePath().getParent();
        boolean sameDir = files.stream().allMatch(f -> java.util.Objects.equals(f.toAbsolutePath().getParent(), dir));
        List<String> names = files.stream().map(f -> sameDir ? f.getFileName().toString() : f.toString()).toList();
        parts.add(files.size() + " outputs" + (sameDir ? " in " + files.get(0).getParent() : "") + " ("
            + String.join(", ", names) + "): " + cause);
      }
    });
    return "cannot write " + String.join("; ", parts);
  }

  /** The root cause of a failed write, as a user reads it: "permission denied", "No space left on device". */
  static String cause(Throwable e) {
    Throwable t = e;
    while ((t instanceof UncheckedIOException || t.getCause() instanceof IOException) && t.getCause() != null
        && t.getCause() != t) {
      t = t.getCause();
    }
    if (t instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (t instanceof NotDirectoryException || t instanceof FileAlreadyExistsException) {
      return "a path component is a file, not a directory";
    }
    if (t instanceof NoSuchFileException) {
      return "no such directory";
    }
    if (t instanceof FileSystemException fs && fs.getReason() != null) {
      return fs.getReason();
    }
    String m = t.getMessage();
    return m == null || m.isBlank() ? t.getClass().getSimpleName() : m;
  }

  @Override
  public String toString() {
    return "OutputFiles[" + written.size() + " written, " + failures.size() + " failed]";
  }
}
