package io.infermark.core.pipeline;

/**
 * One tool an agent session calls (a search API, a database, a calculator): input text in, result
 * text out. May block; should stop when its thread is interrupted (the session interrupts a tool
 * that ran past its timeout). Thread-safe: concurrent sessions call it at once.
 */
@FunctionalInterface
public interface Tool {

  /**
   * The tool's result for {@code input}.
   *
   * @throws Exception when the call fails; the session then uses the step's fallback, if any
   */
  String call(String input) throws Exception;
}
