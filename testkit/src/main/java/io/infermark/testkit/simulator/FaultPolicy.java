package io.infermark.testkit.simulator;

/**
 * Decides which fault, if any, a generation request suffers, from the seed and the request's
 * arrival sequence number only: one uniform draw per request, split into
 * {@code [0, pError)} → HTTP 500, {@code [pError, pError + pDisconnect)} → dropped connection.
 */
final class FaultPolicy {

  /** What happens to one request. */
  enum Fault {
    NONE,
    SERVER_ERROR,
    DISCONNECT
  }

  // Salts the seed so fault draws are independent of the output text drawn from the same seed.
  private static final long FAULT_SALT = 0x5DEECE66DL;

  private final long seed;
  private final double serverErrorProbability;
  private final double disconnectProbability;

  FaultPolicy(long seed, double serverErrorProbability, double disconnectProbability) {
    this.seed = seed ^ FAULT_SALT;
    this.serverErrorProbability = serverErrorProbability;
    this.disconnectProbability = disconnectProbability;
  }

  static FaultPolicy of(SimulatorConfig config) {
    return new FaultPolicy(config.seed(), config.serverErrorProbability(), config.disconnectProbability());
  }

  Fault decide(long sequence) {
    if (serverErrorProbability == 0 && disconnectProbability == 0) {
      return Fault.NONE;
    }
    double u = Mix.unit(seed, sequence);
    if (u < serverErrorProbability) {
      return Fault.SERVER_ERROR;
    }
    return u < serverErrorProbability + disconnectProbability ? Fault.DISCONNECT : Fault.NONE;
  }
}
