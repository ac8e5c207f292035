package io.infermark.metrics.hdr;

import static io.infermark.metrics.TestRuns.ms;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.Usage;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.Prompt;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.TestRuns;
import org.junit.jupiter.api.Test;

class StreamingSummaryTest {

  @Test
  void countsLikeTheExactSummary() {
    RunResult run = TestRuns.mixedRun();
    StreamingSummary streaming = new StreamingSummary();
    run.records().forEach(streaming::onRecord);
    RunSummary exact = RunSummary.of(run);
    assertThat(streaming.requests()).isEqualTo(exact.requests());
    assertThat(streaming.failuresByCategory()).isEqualTo(exact.failuresByCategory());
    assertThat(streaming.tokens()).isEqualTo(exact.tokens());
    assertThat(streaming.window()).isEqualTo(exact.window());
    assertThat(streaming.outputTokenThroughputTps()).isEqualTo(exact.outputTokenThroughputTps());
    assertThat(streaming.requestThroughputRps()).isEqualTo(exact.requestThroughputRps());
    for (LatencyMetric m : LatencyMetric.values()) {
      assertThat(streaming.distribution(m).count()).as(m.name()).isEqualTo(exact.distribution(m).count());
    }
    // Nearest-rank within HdrHistogram's 0.1 %: TTFT [10, 10, 20] has median 10 ms and max 20 ms.
    assertThat(streaming.distribution(LatencyMetric.TTFT).percentile(0.5).getAsDouble()).isCloseTo(10, within(0.01));
    assertThat(streaming.distribution(LatencyMetric.TTFT).max().getAsDouble()).isCloseTo(20, within(0.02));
    assertThat(streaming.distribution(LatencyMetric.ITL).mean().getAsDouble()).isCloseTo(12.5, within(0.0125));
  }

  @Test
  void memoryStaysFlatHoweverManyRecords() {
    StreamingSummary s = new StreamingSummary();
    feed(s, 0, 10_000);
    long after10k = s.footprintBytes();
    feed(s, 10_000, 60_000);
    assertThat(s.footprintBytes()).isEqualTo(after10k);
    assertThat(s.requests().succeeded()).isEqualTo(60_000);
    assertThat(s.distribution(LatencyMetric.ITL).count()).isEqualTo(60_000L * 15);
    // TTFT cycles 50..149 ms evenly: the 30 000th of 60 000 values is 99 ms (HdrHistogram: within 0.1 %).
    assertThat(s.distribution(LatencyMetric.TTFT).percentile(0.5).getAsDouble()).isCloseTo(99, within(0.1));
  }

  private static void feed(StreamingSummary s, int from, int to) {
    for (int i = from; i < to; i++) {
      ChunkTimeline.Builder c = ChunkTimeline.builder();
      long ttft = ms(50 + i % 100);
      for (int k = 0; k < 16; k++) {
        c.add(ttft + ms(k * 20), ChunkKind.CONTENT, 1);
      }
      s.onRecord(RequestRecord.builder().index(i).intendedNanos(ms(i)).sendNanos(ms(i)).httpStatus(200)
          .chunks(c.build()).usage(Usage.of(100, 16)).endOffsetNanos(ttft + ms(16 * 20)).build());
    }
  }

  @Test
  void summarisesARunThatKeptNoRecords() {
    Target instant = (request, observer, cancellation) -> {
      long t = System.nanoTime();
      observer.onResponseHeaders(200, t);
      observer.onChunk(t + 1_000_000, ChunkKind.CONTENT, 1);
      observer.onChunk(t + 2_000_000, ChunkKind.CONTENT, 1);
      observer.onUsage(Usage.of(7, 2));
      observer.onComplete(t + 3_000_000);
    };
    StreamingSummary summary = new StreamingSummary();
    RunResult result = Benchmark.target(instant).prompts(Prompt.user("hi"))
        .load(LoadProfile.concurrency(4).requests(300)).retainRecords(false).listener(summary).run();
    assertThatThrownBy(result::records).isInstanceOf(IllegalStateException.class);
    assertThat(summary.requests().succeeded()).isEqualTo(300);
    assertThat(summary.tokens().outputTokens()).isEqualTo(600);
    assertThat(summary.tokens().inputTokens()).isEqualTo(2100);
    assertThat(summary.runStart()).isPresent();
    assertThat(summary.distribution(LatencyMetric.ITL).count()).isEqualTo(300);
    // A run that kept no records still measured its client, and the summary keeps that verdict.
    assertThat(summary.clientHealth()).isEqualTo(result.clientHealth());
    assertThat(summary.clientHealth().isMeasured()).isTrue();
  }
}
