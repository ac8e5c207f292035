package io.infermark.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.sweep.SweepPoint;
import io.infermark.metrics.RunSummary;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class E03SweepCapacityAndKneeTest {

  @Test
  void sweepsEveryRateFindsTheCapacityWithinItsBoundsAndPrintsTheKnee() {
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    E03SweepCapacityAndKnee.Result result =
        E03SweepCapacityAndKnee.run(new PrintStream(console, true, StandardCharsets.UTF_8));

    List<Double> levels = result.sweep().stream().map(SweepPoint::level).toList();
    assertThat(levels).containsExactly(Arrays.stream(E03SweepCapacityAndKnee.RATES).boxed().toArray(Double[]::new));
    // The server holds 8 requests at once, each at least 20 + 15 x 5 ms: no level can be served faster than
    // 8 / 95 ms, whatever the machine does (structure, not timing).
    double serviceSeconds = (E03SweepCapacityAndKnee.TTFT_MS
        + (E03SweepCapacityAndKnee.OUTPUT_TOKENS - 1) * E03SweepCapacityAndKnee.ITL_MS) / 1000.0;
    for (SweepPoint<Double> p : result.sweep()) {
      RunSummary s = RunSummary.of(p.result());
      int requests = (int) Math.round(p.level() * E03SweepCapacityAndKnee.SECONDS_PER_LEVEL);
      assertThat(s.requests().measured()).isEqualTo(requests);
      assertThat(s.requests().failed()).isZero();
      double fastest = requests / (Math.ceil(requests / (double) E03SweepCapacityAndKnee.SERVER_SLOTS) * serviceSeconds);
      assertThat(s.requestThroughputRps().orElseThrow()).isLessThanOrEqualTo(fastest);
    }
    // The knee is found on the achieved throughput (seed 002 §3.2: Δlatency / Δ measured QPS): the curve's x is each
    // level's successful requests per second, and the levels offered above the server's capacity
    // (8 / 95 ms = 84.2 req/s) cannot deliver what was offered.
    double capacity = E03SweepCapacityAndKnee.SERVER_SLOTS / serviceSeconds;
    assertThat(result.knees().axis()).isEqualTo(io.infermark.attribution.knee.KneeAxis.ACHIEVED_THROUGHPUT);
    assertThat(result.knees().loads()).containsExactly(result.sweep().stream()
        .mapToDouble(p -> RunSummary.of(p.result()).requestThroughputRps().orElseThrow()).toArray());
    for (SweepPoint<Double> p : result.sweep()) {
      if (p.level() > capacity) {
        assertThat(RunSummary.of(p.result()).requestThroughputRps().orElseThrow()).isLessThan(p.level());
      }
    }
    // Past the capacity the offered rate keeps rising and the achieved throughput cannot follow, while the queue
    // (and P99 TTFT) grows: the slope rule finds a knee at or before the top level.
    assertThat(result.knees().slopeLabel()).isPresent();
    assertThat(result.knees().labels()).contains(result.knees().slopeLabel().orElseThrow());
    result.knees().kneedleLabel().ifPresent(label -> assertThat(result.knees().kneedleLabels()).contains(label));
    assertThat(result.capacity().runs()).isBetween(1, E03SweepCapacityAndKnee.MAX_RUNS);
    assertThat(result.capacity().probes()).allSatisfy(p ->
        assertThat(RunSummary.of(p.result()).requests().failed()).isZero());
    result.capacity().capacity().ifPresent(rate ->
        assertThat(rate).isBetween(E03SweepCapacityAndKnee.MIN_RATE, E03SweepCapacityAndKnee.MAX_RATE));
    assertThat(console.toString(StandardCharsets.UTF_8)).contains("offered req/s", "achieved req/s",
        "Knee of the P99 TTFT curve against achieved req/s", "Capacity at P99 TTFT");
  }
}
