package io.infermark.metrics.progress;

import static io.infermark.metrics.TestRuns.ms;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.RunStart;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.request.GenerationParams;
import io.infermark.metrics.TestRuns;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ConsoleProgressTest {

  private final AtomicLong now = new AtomicLong(7_000_000_000L);

  private RunStart start(OptionalLong planned) {
    return new RunStart(TestRuns.STARTED_AT, 7_000_000_000L, now::get, "t", LoadProfile.concurrency(2).requests(4),
        GenerationParams.defaults(), planned);
  }

  private static RequestRecord ok(int i, double ttftMs) {
    return RequestRecord.builder().index(i).httpStatus(200)
        .chunks(ChunkTimeline.builder().add(ms(ttftMs), ChunkKind.CONTENT, 1).build()).endOffsetNanos(ms(ttftMs + 1))
        .build();
  }

  @Test
  void printsPeriodicLinesOnTheRunClock() {
    StringBuilder out = new StringBuilder();
    ConsoleProgress p = ConsoleProgress.builder(out).refresh(Duration.ofSeconds(10)).build();
    p.onRunStarted(start(OptionalLong.of(4)));
    now.addAndGet(ms(5_000));
    p.onRecord(ok(0, 50));
    assertThat(out).isEmpty(); // 5 s < 10 s
    now.addAndGet(ms(5_000));
    p.onRecord(ok(1, 100));
    now.addAndGet(ms(1_000));
    p.onRecord(RequestRecord.builder().index(2).failure(Optional.of(Failure.of(ErrorCategory.RESET, "slow")))
        .build());
    now.addAndGet(ms(9_000));
    p.onRecord(ok(3, 200));
    p.onRunFinished(null);
    // At 10 s: 2 done, 0.2 req/s, TTFT values 50 and 100 ms; at 20 s: 4 done; then the final line.
    assertThat(out.toString()).isEqualTo(
        "[2/4  50.0%] 00:00:10 elapsed, 0.2 req/s, TTFT p50 50.0 ms p99 100 ms, 0 errors\n"
        + "[4/4 100.0%] 00:00:20 elapsed, 0.2 req/s, TTFT p50 100 ms p99 200 ms, 1 error\n"
        + "[4/4 100.0%] 00:00:20 elapsed, 0.2 req/s, TTFT p50 100 ms p99 200 ms, 1 error\n");
  }

  @Test
  void rewritesOneLineInPlaceOnATerminal() {
    StringBuilder out = new StringBuilder();
    ConsoleProgress p = ConsoleProgress.builder(out).terminal(true).build();
    p.onRunStarted(start(OptionalLong.empty()));
    now.addAndGet(ms(250));
    p.onRecord(ok(0, 12.5));
    now.addAndGet(ms(100));
    p.onRecord(ok(1, 12.5)); // within 250 ms: no update
    now.addAndGet(ms(3_600_000));
    p.onRunFinished(null);
    assertThat(out.toString()).isEqualTo(
        "\r[1 done] 00:00:00 elapsed, 4.0 req/s, TTFT p50 12.5 ms p99 12.5 ms, 0 errors"
        + "\r[2 done] 01:00:00 elapsed, 0.0 req/s, TTFT p50 12.5 ms p99 12.5 ms, 0 errors\n");
  }

  @Test
  void aBrokenOutputIsLeftAlone() {
    Appendable failing = new Appendable() {
      @Override
      public Appendable append(CharSequence csq) throws IOException {
        throw new IOException("closed");
      }

      @Override
      public Appendable append(CharSequence csq, int start, int end) throws IOException {
        throw new IOException("closed");
      }

      @Override
      public Appendable append(char c) throws IOException {
        throw new IOException("closed");
      }
    };
    ConsoleProgress p = ConsoleProgress.builder(failing).refresh(Duration.ofNanos(1)).build();
    p.onRunStarted(start(OptionalLong.of(2)));
    now.addAndGet(10);
    p.onRecord(ok(0, 1));
    now.addAndGet(10);
    p.onRecord(ok(1, 1));
    assertThat(p.line()).startsWith("[2/2 100.0%]");
    assertThatThrownBy(() -> ConsoleProgress.builder(new StringBuilder()).refresh(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("refresh must be positive");
  }
}
