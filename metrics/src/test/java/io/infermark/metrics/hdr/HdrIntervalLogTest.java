package io.infermark.metrics.hdr;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.TestRuns;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.Test;

class HdrIntervalLogTest {

  private static List<Histogram> readBack(byte[] log) {
    HistogramLogReader reader = new HistogramLogReader(new ByteArrayInputStream(log));
    List<Histogram> out = new ArrayList<>();
    for (var h = reader.nextIntervalHistogram(); h != null; h = reader.nextIntervalHistogram()) {
      out.add((Histogram) h);
    }
    return out;
  }

  @Test
  void hdrHistogramsOwnReaderReadsTaggedIntervals() {
    // mixedRun: TTFT 10 ms at 110 ms, 20 ms at 270 ms, 10 ms at 810 ms; E2E 30 at 130, 40 at 290, 20 at 820;
    // ITL 10 at 120 and 130, 20 at 290, 10 at 820. In 100 ms intervals: TTFT in #1, #2, #8.
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    HdrIntervalLog.write(TestRuns.mixedRun(), Duration.ofMillis(100), HdrIntervalLog.DEFAULT_METRICS, out);
    String text = out.toString(StandardCharsets.UTF_8);
    assertThat(text).contains("#[StartTime: 1741064767.000").contains("\"StartTimestamp\",\"Interval_Length\"");
    List<Histogram> all = readBack(out.toByteArray());
    List<Histogram> ttft = all.stream().filter(h -> "TTFT".equals(h.getTag())).toList();
    assertThat(ttft).hasSize(3);
    long base = TestRuns.STARTED_AT.toEpochMilli();
    assertThat(ttft).extracting(Histogram::getStartTimeStamp).containsExactly(base + 100, base + 200, base + 800);
    assertThat(ttft.get(1).getMaxValue()).isCloseTo(20_000_000L, within(20_000L));
    List<Histogram> itl = all.stream().filter(h -> "ITL".equals(h.getTag())).toList();
    assertThat(itl.stream().mapToLong(Histogram::getTotalCount).sum()).isEqualTo(4);
    assertThat(itl.get(0).getTotalCount()).isEqualTo(2); // both gaps of #1 end in [100, 200) ms
    List<Histogram> e2e = all.stream().filter(h -> "E2E".equals(h.getTag())).toList();
    assertThat(e2e.stream().mapToLong(Histogram::getTotalCount).sum()).isEqualTo(3);
    assertThat(e2e.get(0).getValueAtPercentile(50)).isCloseTo(30_000_000L, within(30_000L));
  }

  @Test
  void oneSecondIntervalsMergeTheWholeShortRun() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    HdrIntervalLog.write(TestRuns.mixedRun(), Duration.ofSeconds(1), List.of(LatencyMetric.TTFT), out);
    List<Histogram> all = readBack(out.toByteArray());
    assertThat(all).hasSize(1);
    assertThat(all.get(0).getTotalCount()).isEqualTo(3);
    assertThat(all.get(0).getMean()).isCloseTo(40e6 / 3, within(40e6 / 3 * 1e-3));
  }

  @Test
  void rejectsEmptyMetricList() {
    assertThatThrownBy(() -> HdrIntervalLog.write(TestRuns.mixedRun(), Duration.ofSeconds(1), List.of(),
        new ByteArrayOutputStream())).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("metric");
  }
}
