package io.infermark.testkit.simulator;

/** The two OpenAI-compatible generation endpoints the simulator serves. */
enum Endpoint {
  CHAT("/v1/chat/completions"),
  COMPLETIONS("/v1/completions");

  private final String path;

  Endpoint(String path) {
    this.path = path;
  }

  String path() {
    return path;
  }
}
