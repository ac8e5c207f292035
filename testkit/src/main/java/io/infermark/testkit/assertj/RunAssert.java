package io.infermark.testkit.assertj;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.health.ClientHealth;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.assertj.core.api.AbstractAssert;
import org.assertj.core.api.AbstractDoubleAssert;
import org.assertj.core.api.Assertions;

/**
 * Assertions over a {@link RunSummary}: latency distributions, failures and throughput.
 *
 * <p>Latency assertions over a run whose client was
 * {@link io.infermark.core.health.HealthVerdict#CLIENT_BOUND CLIENT_BOUND} weigh the client's error bound,
 * its measurement floor: the client's own delays only add to what it measures, so a value within an upper
 * limit passes and one below a lower limit fails as measured, and one that misses a limit by more than the
 * error bound fails; only a miss the error bound could explain is refused, with the client's reasons
 * ({@link LatencyAssert}). On a busy CI runner a budget with room to spare therefore passes, and a real
 * regression still fails. Call {@link #ignoringClientHealth()} to judge values exactly as measured. A DEGRADED
 * run is judged as measured, and its failures carry the client's reasons and measurement floor.
 */
public final class RunAssert extends AbstractAssert<RunAssert, RunSummary> {

  private final boolean checkClientHealth;

  RunAssert(RunSummary summary) {
    this(summary, true);
  }

  private RunAssert(RunSummary summary, boolean checkClientHealth) {
    super(summary, RunAssert.class);
    isNotNull();
    this.checkClientHealth = checkClientHealth;
  }

  /**
   * The same assertions judging a CLIENT_BOUND run's latencies exactly as measured, without weighing the
   * client's error bound: for tests that check the client itself, or a property that holds whatever the
   * client's delays (a measured latency is never below the server's own). Failure messages still name the
   * client's health.
   */
  public RunAssert ignoringClientHealth() {
    return new RunAssert(actual, false);
  }

  /** Verifies that the run's client was not CLIENT_BOUND; the message gives the reasons. */
  public RunAssert hasTrustworthyClient() {
    ClientHealth h = actual.clientHealth();
    if (h.isClientBound()) {
      failWithMessage("Expecting a client that kept up but the run was CLIENT_BOUND: %s (measurement floor %s ms)",
          h.reasonText(), String.format(Locale.ROOT, "%.3f", h.floorMillis()));
    }
    return this;
  }

  /** The TTFT distribution (first token-bearing chunk − send). */
  public DistributionAssert ttft() {
    return metric(LatencyMetric.TTFT);
  }

  /** The TTFC distribution (first content chunk − send). */
  public DistributionAssert ttfc() {
    return metric(LatencyMetric.TTFC);
  }

  /** The pooled inter-token latency distribution. */
  public DistributionAssert itl() {
    return metric(LatencyMetric.ITL);
  }

  /** The TPOT distribution. */
  public DistributionAssert tpot() {
    return metric(LatencyMetric.TPOT);
  }

  /** The E2E distribution (last token-bearing chunk − send). */
  public DistributionAssert e2e() {
    return metric(LatencyMetric.E2E);
  }

  /**
   * Any metric's distribution; for a CLIENT_BOUND run its comparisons weigh the client's error bound (unless
   * {@link #ignoringClientHealth()}).
   */
  public DistributionAssert metric(LatencyMetric metric) {
    Objects.requireNonNull(metric, "metric");
    ClientHealth h = actual.clientHealth();
    Optional<LatencyAssert.ClientBound> bound = checkClientHealth && h.isClientBound()
        ? Optional.of(new LatencyAssert.ClientBound(h.floorMillis(), h.reasonText())) : Optional.empty();
    return new DistributionAssert(actual.distribution(metric), metric.name(), healthNote(h), bound);
  }

  /** A line for failure messages when the client was not OK; empty otherwise. */
  private static String healthNote(ClientHealth h) {
    if (!h.isWarning()) {
      return "";
    }
    return String.format(Locale.ROOT, "client %s, measurement floor %.3f ms: %s", h.verdict(), h.floorMillis(),
        h.reasonText());
  }

  /** Verifies that no measured request failed; the message lists the failures by category. */
  public RunAssert hasNoFailures() {
    if (actual.requests().failed() > 0) {
      failWithMessage("Expecting no failed requests but %d of %d measured failed: %s", actual.requests().failed(),
          actual.requests().measured(), actual.failuresByCategory());
    }
    return this;
  }

  /** Verifies that exactly {@code count} measured requests failed with {@code category}. */
  public RunAssert hasFailures(ErrorCategory category, int count) {
    int n = actual.failuresByCategory().getOrDefault(Objects.requireNonNull(category, "category"), 0);
    if (n != count) {
      failWithMessage("Expecting %d %s failures but there were %d; all failures: %s", count, category, n,
          actual.failuresByCategory());
    }
    return this;
  }

  /** Verifies how many measured requests succeeded. */
  public RunAssert hasSucceeded(int count) {
    if (actual.requests().succeeded() != count) {
      failWithMessage("Expecting %d successful requests but there were %d; %s; failures: %s", count,
          actual.requests().succeeded(), actual.requests(), actual.failuresByCategory());
    }
    return this;
  }

  /** The fraction of measured requests that failed, 0 to 1 (0 when nothing was measured). */
  public AbstractDoubleAssert<?> errorRate() {
    int measured = actual.requests().measured();
    int failed = actual.requests().failed();
    double rate = measured == 0 ? 0 : (double) failed / measured;
    Map<ErrorCategory, Integer> byCategory = actual.failuresByCategory();
    return Assertions.assertThat(rate).as("error rate = %d failed / %d measured = %s; failures %s", failed, measured,
        String.format(Locale.ROOT, "%.4f", rate), byCategory);
  }

  /**
   * Output tokens per second over the measurement window.
   *
   * @throws AssertionError if the run had no window (no measured request was sent)
   */
  public AbstractDoubleAssert<?> outputTokensPerSecond() {
    if (actual.outputTokenThroughputTps().isEmpty()) {
      failWithMessage("Expecting an output token throughput but the run has no measurement window: %s", actual);
    }
    double tps = actual.outputTokenThroughputTps().getAsDouble();
    return Assertions.assertThat(tps).as("output tokens/s = %d tokens over the window; %s",
        actual.tokens().outputTokens(), actual);
  }

  /** Successful requests per second over the measurement window. */
  public AbstractDoubleAssert<?> requestsPerSecond() {
    if (actual.requestThroughputRps().isEmpty()) {
      failWithMessage("Expecting a request throughput but the run has no measurement window: %s", actual);
    }
    return Assertions.assertThat(actual.requestThroughputRps().getAsDouble()).as("requests/s; %s", actual);
  }
}
