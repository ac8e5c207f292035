package io.infermark.testkit.junit;

import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.testkit.simulator.Simulator;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a test's OpenAI-compatible server is: a simulator started for the test, or an external
 * server configured by {@link SimulatorExtension#endpoint(String, String)} or the
 * {@value SimulatorExtension#ENDPOINT_PROPERTY} system property.
 */
public final class InferenceEndpoint {

  private final String baseUrl;
  private final String model;
  private final Simulator simulator;

  InferenceEndpoint(String baseUrl, String model, Simulator simulator) {
    this.baseUrl = Objects.requireNonNull(baseUrl, "baseUrl");
    this.model = Objects.requireNonNull(model, "model");
    this.simulator = simulator;
  }

  /** The server's base URL ending in {@code /v1}, e.g. {@code http://127.0.0.1:43125/v1}. */
  public String baseUrl() {
    return baseUrl;
  }

  /** The model to ask for. */
  public String model() {
    return model;
  }

  /** The simulator behind this endpoint; empty for an external server. */
  public Optional<Simulator> simulator() {
    return Optional.ofNullable(simulator);
  }

  /** A new chat target for this endpoint (its owner closes it). */
  public OpenAiTarget chatTarget() {
    return OpenAiTarget.chat(baseUrl, model).build();
  }

  @Override
  public String toString() {
    return "InferenceEndpoint[" + baseUrl + ", model " + model + (simulator == null ? ", external" : ", simulated")
        + "]";
  }
}
