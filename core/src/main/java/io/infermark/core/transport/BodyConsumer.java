package io.infermark.core.transport;

/**
 * Consumes a response body as it is read. Owned by the protocol: a stream decoder for an event
 * stream, a bounded buffer for a JSON body or an error excerpt.
 */
public interface BodyConsumer {

  /**
   * The next bytes of the body, read at {@code nanoTime}. The array is only valid during the call.
   *
   * @return true when the consumer has what it needs (the stream's terminator, a failure, a full
   *     error excerpt): the transport then stops handing bytes, releases the connection if the
   *     message has ended and closes it otherwise, and calls {@link #onEnd} no more
   */
  boolean onBytes(byte[] bytes, int offset, int length, long nanoTime);

  /** The body ended (end of message) at {@code nanoTime}; not called after {@link #onBytes} returned true. */
  void onEnd(long nanoTime);

  /**
   * The response's trailer fields arrived at {@code nanoTime}, after the last body bytes and just
   * before {@link #onEnd}: on HTTP/2 a HEADERS frame after the DATA, which is where gRPC puts its
   * {@code grpc-status}. Not called when the consumer said it was done, nor for a response without
   * trailers. The default ignores them.
   */
  default void onTrailers(ResponseHead trailers, long nanoTime) {}

  /**
   * A consumer that reads nothing, for a response refused on its headers (a body encoding that cannot be
   * read, a content type that is not the protocol's): its first bytes, or the end of an empty body, end it
   * once with {@code end} at that time.
   */
  static BodyConsumer refusing(java.util.function.LongConsumer end) {
    java.util.Objects.requireNonNull(end, "end");
    return new BodyConsumer() {
      @Override
      public boolean onBytes(byte[] bytes, int offset, int length, long nanoTime) {
        end.accept(nanoTime);
        return true;
      }

      @Override
      public void onEnd(long nanoTime) {
        end.accept(nanoTime);
      }
    };
  }
}
