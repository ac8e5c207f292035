package io.infermark.core.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.Prompt;
import io.infermark.core.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ConnectBackoffTest {

  private static final Clock CLOCK = Clock.system();
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  private static RequestRecord failed(ErrorCategory category, int status, int chunks) {
    ChunkTimeline.Builder c = ChunkTimeline.builder();
    for (int i = 0; i < chunks; i++) {
      c.add(i + 1, ChunkKind.CONTENT, 1);
    }
    return RequestRecord.builder().httpStatus(status).chunks(c.build())
        .failure(Optional.of(Failure.of(category, "x"))).build();
  }

  private static RequestRecord ok() {
    return RequestRecord.builder().httpStatus(200).build();
  }

  @Test
  void refusedConnectionsDoubleTheWaitFromFiveMillisecondsToOneSecond() {
    ConnectBackoff b = new ConnectBackoff();
    long[] waits = new long[10];
    for (int i = 0; i < waits.length; i++) {
      waits[i] = b.after(failed(ErrorCategory.CONNECT, 0, 0)) / MS;
    }
    assertThat(waits).containsExactly(5, 10, 20, 40, 80, 160, 320, 640, 1000, 1000);
  }

  @Test
  void anyAnswerFromTheServerResetsTheWait() {
    ConnectBackoff b = new ConnectBackoff();
    b.after(failed(ErrorCategory.CONNECT, 0, 0));
    b.after(failed(ErrorCategory.CONNECT, 0, 0));
    assertThat(b.after(failed(ErrorCategory.HTTP_STATUS, 503, 0))).isZero();
    assertThat(b.after(failed(ErrorCategory.CONNECT, 0, 0))).isEqualTo(5 * MS);
    assertThat(b.after(ok())).isZero();
    assertThat(b.after(failed(ErrorCategory.RESET, 0, 0))).isEqualTo(5 * MS);
  }

  @Test
  void aResetAfterTheResponseBeganIsNotUnreachability() {
    ConnectBackoff b = new ConnectBackoff();
    assertThat(b.after(failed(ErrorCategory.RESET, 200, 3))).isZero();
    assertThat(b.after(failed(ErrorCategory.RESET, 0, 0))).isEqualTo(5 * MS);
    assertThat(b.after(failed(ErrorCategory.STREAM_ERROR, 200, 0))).isZero();
    assertThat(ConnectBackoff.unreachable(failed(ErrorCategory.STREAM_ERROR, 200, 1))).isFalse();
  }

  @Test
  void aClosedLoopAgainstADeadServerWaitsBetweenAttemptsAndRecordsEveryOne() {
    AtomicInteger attempts = new AtomicInteger();
    Target refused = (request, observer, cancellation) -> {
      attempts.incrementAndGet();
      observer.onFailure(Failure.of(ErrorCategory.CONNECT, "connection refused"), CLOCK.nanoTime());
    };
    RunResult result = Benchmark.target(refused).prompts(Prompt.user("hi"))
        .load(LoadProfile.concurrency(1).requests(6)).run();

    List<RequestRecord> records = result.records();
    assertThat(records).hasSize(6).allSatisfy(
        r -> assertThat(r.failure().orElseThrow().category()).isEqualTo(ErrorCategory.CONNECT));
    assertThat(attempts).hasValue(6);
    long expected = 5 * MS;
    for (int i = 1; i < records.size(); i++) {
      RequestRecord prev = records.get(i - 1);
      long gap = records.get(i).intendedNanos() - (prev.sendNanos() + prev.endOffsetNanos());
      assertThat(gap).as("wait before attempt %d", i).isGreaterThanOrEqualTo(expected);
      expected *= 2;
    }
  }

  @Test
  void withoutBackoffADeadServerWouldFloodTheRecord() {
    Target refused = (request, observer, cancellation) ->
        observer.onFailure(Failure.of(ErrorCategory.CONNECT, "connection refused"), CLOCK.nanoTime());
    RunResult result = Benchmark.target(refused).prompts(Prompt.user("hi"))
        .load(LoadProfile.concurrency(4).duration(Duration.ofMillis(400))).run();

    // 5 + 10 + 20 + 40 + 80 + 160 = 315 ms: at most seven attempts per stream fit in 400 ms.
    assertThat(result.records()).hasSizeBetween(4, 4 * 7);
  }
}
