package io.infermark.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.capture.Failure;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.health.ClientHealth;
import io.infermark.core.health.HealthThresholds;
import io.infermark.core.health.HealthVerdict;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Prompt;
import io.infermark.core.time.Clock;
import io.infermark.core.transport.Cancellation;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A run whose every request failed fast measured no latency: whatever its client's figures, it is not judged
 * CLIENT_BOUND ("did not keep up"), and its verdict says what happened (issue 29: a 0.6 s run of 40 requests that all
 * failed was judged CLIENT_BOUND).
 */
class AllFailedVerdictTest {

  private static final Clock CLOCK = Clock.system();

  /** Answers every request with an HTTP 500 at once. */
  private static final Target FAILS = new Target() {
    @Override
    public void execute(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
      observer.onResponseHeaders(500, CLOCK.nanoTime());
      observer.onFailure(Failure.httpStatus(500, "boom"), CLOCK.nanoTime());
    }

    @Override
    public String toString() {
      return "FailingTarget";
    }
  };

  /** Limits every real send lag and hiccup exceeds: any run's own timing figures say CLIENT_BOUND. */
  private static final HealthThresholds STRICT = HealthThresholds.defaults().toBuilder()
      .sendLagP99(Duration.ofNanos(1), Duration.ofNanos(2)).hiccupP99(Duration.ofNanos(1), Duration.ofNanos(2)).build();

  @Test
  void aRunWhoseEveryRequestFailedIsDegradedAndSaysSo() {
    RunResult run = Benchmark.target(FAILS).preflight(false).prompts(Prompt.user("hi")).healthThresholds(STRICT)
        .load(LoadProfile.constantRate(200).requests(40)).run();
    assertThat(run.records()).hasSize(40).noneMatch(r -> r.succeeded());
    ClientHealth h = run.clientHealth();
    assertThat(h.verdict()).isEqualTo(HealthVerdict.DEGRADED);
    assertThat(h.reasons().get(0)).startsWith("every one of the 40 measured requests failed")
        .contains("no latency was measured").endsWith("judged DEGRADED, not CLIENT_BOUND");
    // the figures that would have made it CLIENT_BOUND are still listed after it
    assertThat(h.reasons()).anyMatch(r -> r.startsWith("send lag p99"));
    // judging the same figures again keeps what happened
    assertThat(h.reevaluate(STRICT)).isEqualTo(h);
  }

  @Test
  void theSameFiguresWithOneSuccessStayClientBound() {
    RunResult run = Benchmark.target(OneTokenTarget.INSTANCE).preflight(false).prompts(Prompt.user("hi"))
        .healthThresholds(STRICT.toBuilder().materialErrorShare(1e-9).build())
        .load(LoadProfile.constantRate(200).requests(40)).run();
    assertThat(run.clientHealth().verdict()).isEqualTo(HealthVerdict.CLIENT_BOUND);
  }

  @Test
  void anOkOrUnmeasuredHealthIsLeftAsItIs() {
    assertThat(ClientHealth.UNMEASURED.everyRequestFailed(3, 1_000_000)).isSameAs(ClientHealth.UNMEASURED);
    ClientHealth ok = new ClientHealth(HealthVerdict.OK, List.of(), 0, Optional.empty());
    assertThat(ok.everyRequestFailed(3, 1_000_000)).isSameAs(ok);
    assertThatThrownBy(() -> ok.everyRequestFailed(0, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aClientBoundHealthBecomesDegradedWithTheReasonFirst() {
    ClientHealth bound = new ClientHealth(HealthVerdict.CLIENT_BOUND, List.of("hiccup p99 12 ms > 10 ms"), 12_000_000,
        Optional.empty());
    ClientHealth h = bound.everyRequestFailed(40, 3_500_000);
    assertThat(h.verdict()).isEqualTo(HealthVerdict.DEGRADED);
    assertThat(h.reasons()).containsExactly("every one of the 40 measured requests failed (the slowest 3.50 ms after "
        + "its send): no latency was measured, so the client's figures below bound nothing; the run measured "
        + "failures, not the server (see the failures by category); judged DEGRADED, not CLIENT_BOUND",
        "hiccup p99 12 ms > 10 ms");
  }
}
