package io.infermark.testkit.capacity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.sweep.CeilingResult;
import io.infermark.core.sweep.CeilingStep;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;

class CapacityCardTest {

  private static CardRow found(CardProtocol p, CardFigure f, double ceiling, double failure) {
    CeilingResult r = new CeilingResult(OptionalDouble.of(ceiling), OptionalDouble.of(failure),
        CeilingResult.Outcome.FOUND, List.of(CeilingStep.pass(ceiling, "ok"), CeilingStep.fail(failure, "bound 1.5 ms")));
    return new CardRow(p, f, r, OptionalDouble.of(ceiling), OptionalDouble.of(2 * ceiling), OptionalDouble.of(0.8),
        "hiccup p99", f == CardFigure.STREAMS ? OptionalDouble.of(4096) : OptionalDouble.empty(),
        failure + " " + f.unit() + ": bound 1.5 ms");
  }

  private static CardRow none(CardProtocol p, CardFigure f, double failure) {
    CeilingResult r = new CeilingResult(OptionalDouble.empty(), OptionalDouble.of(failure),
        CeilingResult.Outcome.BELOW_MIN, List.of(CeilingStep.fail(failure, "bound 9 ms")));
    return new CardRow(p, f, r, OptionalDouble.empty(), OptionalDouble.empty(), OptionalDouble.empty(), "",
        OptionalDouble.empty(), failure + " " + f.unit() + ": bound 9 ms");
  }

  private static CapacityCard card(List<CardRow> rows) {
    return new CapacityCard(2, "0.50 0.40 0.30", "0.60 0.40 0.30", "17.0.15", "Shenandoah Pauses",
        CardSettings.full(), Duration.ofSeconds(200), rows);
  }

  @Test
  void theTableHasAHeaderTheMachineAndOneAlignedLinePerRow() {
    String table = card(List.of(found(CardProtocol.HTTP_1_1, CardFigure.STREAMED_TOKENS, 25_600, 28_000),
        found(CardProtocol.H2C, CardFigure.STREAMS, 4_096, 4_500))).toTable();
    List<String> lines = table.lines().toList();

    assertThat(lines.get(0)).isEqualTo("infermark capacity card: 2 cores, load average 0.50 0.40 0.30 before, "
        + "0.60 0.40 0.30 after; Java 17.0.15, GC Shenandoah Pauses");
    assertThat(lines.get(1)).contains("<= 1.00 ms at p99", "steps of 2000 ms", "3 wires", "200 s");
    assertThat(lines.get(3)).startsWith("HTTP/1.1 | streamed tokens/s, 1 per chunk").contains("25,600", "28,000",
        "51,200", "0.80 ms hiccup p99", "found (+9 %), 2 steps");
    assertThat(lines.get(4)).startsWith("h2c      | concurrent streams (1000 ms gaps)").contains("4.0 KiB");
    assertThat(lines.get(3).indexOf(" | ", 12)).isEqualTo(lines.get(4).indexOf(" | ", 12)); // aligned columns
    assertThat(table).contains("HTTP/1.1 streamed tokens/s, 1 per chunk: first failure at 28000.0 tokens/s")
        .doesNotContain("No level passed");
  }

  @Test
  void aCardWhereNothingPassedSaysSoAndInventsNoFigure() {
    String table = card(List.of(none(CardProtocol.GRPC, CardFigure.REQUESTS, 4))).toTable();

    assertThat(table.lines().toList().get(3)).matches("gRPC     \\| non-streamed requests/s \\| +- \\| +4 \\| +- \\| -.*"
        + "the lowest level failed, 1 step");
    assertThat(table).contains("No level passed: every level tried put the client's error bound above 1.00 ms");
  }

  @Test
  void settingsRejectNonsense() {
    assertThatThrownBy(() -> CardSettings.quick().toBuilder().protocols(EnumSet.noneOf(CardProtocol.class)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one protocol");
    assertThatThrownBy(() -> CardSettings.quick().toBuilder().tokensPerChunk(1).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tokensPerChunk");
    assertThat(CardSettings.quick().protocols()).containsExactly(CardProtocol.HTTP_1_1);
    assertThat(CardSettings.full().rows()).isEqualTo(12);
  }
}
