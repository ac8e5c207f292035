package io.infermark.testkit.capacity;

/** The wire a capacity card row measures. */
public enum CardProtocol {
  /** OpenAI chat completions over HTTP/1.1 (one connection per open stream), infermark's event-loop transport. */
  HTTP_1_1("HTTP/1.1"),
  /** OpenAI chat completions over HTTP/2 without TLS (h2c, many streams per connection). */
  H2C("h2c"),
  /** Triton's {@code ModelStreamInfer} over gRPC (HTTP/2), infermark's own gRPC framing. */
  GRPC("gRPC");

  private final String label;

  CardProtocol(String label) {
    this.label = label;
  }

  /** The name printed in the card, e.g. {@code "HTTP/1.1"}. */
  public String label() {
    return label;
  }
}
