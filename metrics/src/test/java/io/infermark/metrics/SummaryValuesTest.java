package io.infermark.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.infermark.core.capture.TokenCountSource;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SummaryValuesTest {

  @Test
  void requestCountsMustAddUp() {
    assertThatThrownBy(() -> new RequestCounts(10, 1, 0, 8, 8, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("do not add up: 10 scheduled = 1 warmup + 0 cooldown + 8 measured");
    assertThatThrownBy(() -> new RequestCounts(3, 0, 0, 3, 2, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RequestCounts(3, 0, 0, 3, 2, 1, 3)).isInstanceOf(IllegalArgumentException.class);
    assertThat(new RequestCounts(3, 1, 0, 2, 1, 1, 1).toString()).isEqualTo(
        "RequestCounts[3 scheduled, 1 warmup excluded, 2 measured, 1 succeeded (1 without tokens), 1 failed]");
  }

  @Test
  void measurementWindowCannotEndBeforeItStarts() {
    assertThatThrownBy(() -> new MeasurementWindow(10, 9))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("before its start");
    MeasurementWindow w = new MeasurementWindow(500_000_000L, 2_000_000_000L);
    assertThat(w.durationNanos()).isEqualTo(1_500_000_000L);
    assertThat(w.durationSeconds()).isEqualTo(1.5);
    assertThat(w).hasToString("MeasurementWindow[1.500 s, from 500.000 ms to 2000.000 ms]");
  }

  @Test
  void tokenSummaryDropsEmptySourcesAndKeepsTheirOrder() {
    TokenSummary t = new TokenSummary(5, 50, 0, 0,
        Map.of(TokenCountSource.NONE, 1, TokenCountSource.SERVER_USAGE, 4, TokenCountSource.CHUNK_COUNT, 0), 0);

    assertThat(t.sources()).containsExactly(entry(TokenCountSource.SERVER_USAGE, 4), entry(TokenCountSource.NONE, 1));
    assertThat(t.meanInputTokens()).isEmpty();
    assertThat(t.meanOutputTokens()).hasValue(10.0);
    assertThat(t.requestsWithoutInputTokens()).isEqualTo(5);
  }

  @Test
  void percentilesHaveLabelsAndFieldNames() {
    assertThat(Percentile.P99_9.p()).isEqualTo(0.999);
    assertThat(Percentile.P99_9.label()).isEqualTo("p99.9");
    assertThat(Percentile.P99_9.fieldName()).isEqualTo("p99_9");
    assertThat(Percentile.P50.label()).isEqualTo("p50");
  }
}
