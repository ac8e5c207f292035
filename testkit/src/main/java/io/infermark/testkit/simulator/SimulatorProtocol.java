package io.infermark.testkit.simulator;

/** Which HTTP the {@link Simulator} speaks on its port. */
public enum SimulatorProtocol {
  /** HTTP/1.1 (the default): keep-alive, chunked streaming bodies. */
  HTTP_1_1,
  /**
   * HTTP/2 over cleartext with prior knowledge (h2c): every request a stream, 100 concurrent streams
   * per connection, each step's events one DATA frame.
   */
  H2C
}
