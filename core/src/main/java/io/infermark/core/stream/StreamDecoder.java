package io.infermark.core.stream;

/**
 * Turns the bytes of one streamed response body into {@link io.infermark.core.capture.StreamObserver}
 * events: one decoder per response, fed bytes in the order and pieces they were read.
 *
 * <p>Each read's timestamp is the arrival time of every chunk that read completes. A decoder
 * reports {@code onComplete} when its protocol's end arrives (or at {@link #end} for protocols
 * that end at EOF), and {@code onFailure} for malformed input, server error objects, or a stream
 * that ends before its terminator. Not thread-safe.
 */
public interface StreamDecoder {

  /**
   * Consumes the next bytes read from the body.
   *
   * @param bytes buffer holding the bytes
   * @param offset start of the bytes in the buffer
   * @param length number of bytes
   * @param nanoTime clock reading taken when the read returned
   */
  void feed(byte[] bytes, int offset, int length, long nanoTime);

  /** The body ended (EOF) at {@code nanoTime}; reports the outcome if not yet reported. */
  void end(long nanoTime);

  /**
   * True once the outcome has been reported (the protocol's terminator, a server error, malformed
   * input): nothing more is read from the body. The default is false (decoders that end at EOF).
   */
  default boolean finished() {
    return false;
  }
}
