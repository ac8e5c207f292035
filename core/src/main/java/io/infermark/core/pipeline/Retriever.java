package io.infermark.core.pipeline;

/**
 * A retrieval stage: the documents most relevant to a query. Implementations may block (a vector
 * database call) and must be thread-safe: concurrent requests call it at once.
 */
@FunctionalInterface
public interface Retriever {

  /**
   * The top {@code k} documents for {@code query}, best first.
   *
   * @throws RuntimeException when retrieval fails; the request then fails as a client error
   */
  Retrieval retrieve(String query, int k);
}
