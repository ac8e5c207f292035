package io.infermark.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.infermark.attribution.change.PercentileChange;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class E05WhyP99MovedTest {

  @Test
  void theHeldBackHeadersMakeWaitingTheLargestShareOfAChangeThatAddsUp() {
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    E05WhyP99Moved.Result result = E05WhyP99Moved.run(new PrintStream(console, true, StandardCharsets.UTF_8));

    assertThat(result.runA().measured()).hasSize(E05WhyP99Moved.REQUESTS).allMatch(r -> r.succeeded());
    assertThat(result.runB().measured()).hasSize(E05WhyP99Moved.REQUESTS).allMatch(r -> r.succeeded());
    PercentileChange change = result.change();
    assertThat(change.coupledRequests()).isEqualTo(E05WhyP99Moved.REQUESTS);
    // 5 of 100 requests wait at least 200 ms for their headers, so run B's P99 does too.
    assertThat(change.statisticB()).isGreaterThanOrEqualTo(E05WhyP99Moved.HELD_BACK_MS);
    double sum = java.util.Arrays.stream(change.contributions()).sum();
    assertThat(sum).isCloseTo(change.change(), within(1e-6));
    assertThat(change.ranking().get(0)).isEqualTo("waiting");
    assertThat(change.contribution("waiting")).isGreaterThan(0);
    assertThat(console.toString(StandardCharsets.UTF_8)).contains("Why did P99 E2E move?", "waiting");
  }
}
