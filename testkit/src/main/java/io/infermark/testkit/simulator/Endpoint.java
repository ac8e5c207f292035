package io.infermark.testkit.simulator;

/** The generation endpoints the simulator serves, one per protocol shape. */
enum Endpoint {
  CHAT("/v1/chat/completions"),
  COMPLETIONS("/v1/completions"),
  ANTHROPIC_MESSAGES("/v1/messages"),
  OLLAMA_CHAT("/api/chat"),
  OLLAMA_GENERATE("/api/generate"),
  TGI_GENERATE_STREAM("/generate_stream"),
  TGI_GENERATE("/generate"),
  LLAMACPP_COMPLETION("/completion"),
  TRITON_GENERATE_STREAM("/v2/models/{model}/generate_stream"),
  TRITON_GENERATE("/v2/models/{model}/generate"),
  OPENAI_RESPONSES("/v1/responses");

  private final String path;

  Endpoint(String path) {
    this.path = path;
  }

  String path() {
    return path;
  }

  /** Whether the endpoint always streams, whatever the body says (TGI's and Triton's streaming paths). */
  boolean alwaysStreams() {
    return this == TGI_GENERATE_STREAM || this == TRITON_GENERATE_STREAM;
  }
}
