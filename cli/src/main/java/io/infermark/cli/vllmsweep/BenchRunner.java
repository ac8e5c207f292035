package io.infermark.cli.vllmsweep;

import java.io.PrintWriter;
import java.util.List;

/**
 * Runs an {@code infermark} command line in this JVM and returns its exit code (the {@code cli} package supplies
 * {@code Infermark::run}); the sweeps use it for a bench command that is {@code vllm bench serve ...} or
 * {@code infermark bench ...}.
 */
@FunctionalInterface
public interface BenchRunner {

  /**
   * Runs {@code args} (starting with {@code bench}) writing to {@code out} and {@code err}; returns the exit code.
   */
  int run(PrintWriter out, PrintWriter err, List<String> args);
}
