package io.infermark.core.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.TokenTimeline;
import io.infermark.core.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class TgiTimingHeadersTest {

  @Test
  void numericTimingHeadersAreKeptUnderTheirNamesAndBadOnesLeftOut() {
    Map<String, String> headers = Map.of("x-compute-time", "0.251873", "x-total-time", "251", "x-queue-time", "NaN",
        "x-inference-time", "-4", "x-time-per-token", "25 ms", "x-validation-time", "0");
    AtomicReference<RequestRecord> done = new AtomicReference<>();
    TokenTimeline timeline = TokenTimeline.builder(Clock.system()).onDone(done::set).build();
    timeline.onResponseHeaders(200, System.nanoTime());
    TgiTimingHeaders.report(name -> Optional.ofNullable(headers.get(name)), timeline);
    timeline.onComplete(System.nanoTime());
    assertThat(done.get().serverTimings()).containsOnly(Map.entry("x-compute-time", 0.251873),
        Map.entry("x-total-time", 251.0), Map.entry("x-validation-time", 0.0));
  }
}
