package io.infermark.testkit.simulator;

/** Which HTTP the {@link Simulator} speaks on its port. */
public enum SimulatorProtocol {
  /** HTTP/1.1 (the default): keep-alive, chunked streaming bodies. */
  HTTP_1_1,
  /**
   * HTTP/2 over cleartext with prior knowledge (h2c): every request a stream, 100 concurrent streams
   * per connection, each step's events one DATA frame; also serves gRPC
   * ({@code inference.GRPCInferenceService/ModelStreamInfer}).
   */
  H2C,
  /**
   * HTTP/2 over TLS (h2), with a self-signed certificate made at start ({@link Simulator#trustManagerFactory()}
   * trusts it; or use the client's {@code insecureTls}): ALPN offers h2 and http/1.1, so a client that does not
   * speak HTTP/2 is served HTTP/1.1 on the same port. gRPC is served on h2 as on h2c.
   */
  H2
}
