package io.infermark.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.ScheduleStats;
import io.infermark.core.capture.StreamingScheduleStats;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Prompt;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RunListenerTest {

  private static final Prompt PROMPT = Prompt.user("hello");
  private static final Target INSTANT = OneTokenTarget.INSTANCE;

  /** Records the order of events, and checks that onRecord calls never overlap. */
  private static final class Recording implements RunListener {
    final List<String> events = new CopyOnWriteArrayList<>();
    final List<RequestRecord> records = new ArrayList<>();
    final AtomicInteger inOnRecord = new AtomicInteger();
    volatile boolean overlapped;
    volatile RunStart start;
    volatile RunResult result;

    @Override
    public void onRunStarted(RunStart s) {
      start = s;
      events.add("start");
    }

    @Override
    public void onRecord(RequestRecord r) {
      if (inOnRecord.incrementAndGet() > 1) {
        overlapped = true;
      }
      records.add(r); // a plain list: the engine serialises onRecord calls
      Thread.yield();
      inOnRecord.decrementAndGet();
    }

    @Override
    public void onRunFinished(RunResult r) {
      result = r;
      events.add("finish after " + records.size());
    }
  }

  @Test
  void listenerSeesStartEveryRecordOnceWithoutOverlapAndThenTheResult() {
    Recording listener = new Recording();

    RunResult result = Benchmark.target(INSTANT).prompts(PROMPT).listener(listener)
        .load(LoadProfile.concurrency(8).requests(200).warmupRequests(10)).run();

    assertThat(listener.events).containsExactly("start", "finish after 210");
    assertThat(listener.overlapped).isFalse();
    assertThat(listener.records).extracting(RequestRecord::index).doesNotHaveDuplicates().hasSize(210);
    assertThat(listener.start.plannedRequests()).hasValue(210);
    assertThat(listener.start.originNanos()).isEqualTo(result.originNanos());
    assertThat(listener.result).isSameAs(result);
  }

  @Test
  void openLoopPlansItsScheduleLengthAndReportsRequestsNeverSent() {
    Recording listener = new Recording();
    JumpingClock clock = new JumpingClock();
    Target jumpFirst = (request, observer, cancellation) -> {
      clock.jump(java.time.Duration.ofHours(1)); // the run's one-minute timeout passes during the first request
      INSTANT.execute(request, observer, cancellation);
    };

    RunResult result = Benchmark.target(jumpFirst).prompts(PROMPT).clock(clock).listener(listener)
        .load(LoadProfile.constantRate(10).requests(5).timeout(java.time.Duration.ofMinutes(1))).run();

    assertThat(listener.start.plannedRequests()).hasValue(5);
    assertThat(listener.records).hasSize(5);
    assertThat(listener.records.stream().filter(r -> !r.wasSent()))
        .allSatisfy(r -> assertThat(r.failure().get().category()).isEqualTo(ErrorCategory.NOT_SENT)).hasSize(4);
    assertThat(result.records()).hasSize(5);
  }

  @Test
  void closedLoopLimitedByDurationPlansNoCount() {
    Recording listener = new Recording();
    Benchmark.target(INSTANT).prompts(PROMPT).listener(listener)
        .load(LoadProfile.concurrency(1).duration(java.time.Duration.ofMillis(1))).run();

    assertThat(listener.start.plannedRequests()).isEmpty();
  }

  @Test
  void beforeSendCanAddHeadersThatTheTargetSees() {
    Map<String, String> seen = new ConcurrentHashMap<>();
    Target target = (request, observer, cancellation) -> {
      seen.put(request.id(), request.params().headers().getOrDefault("traceparent", "none"));
      INSTANT.execute(request, observer, cancellation);
    };
    RunListener tracing = new RunListener() {
      @Override
      public InferenceRequest beforeSend(InferenceRequest r) {
        return new InferenceRequest(r.id(), r.prompt(),
            r.params().toBuilder().header("traceparent", "00-" + r.id() + "-01").build());
      }
    };

    Benchmark.target(target).prompts(PROMPT).listener(tracing).load(LoadProfile.concurrency(2).requests(4)).run();

    assertThat(seen).hasSize(4).allSatisfy((id, header) -> assertThat(header).isEqualTo("00-" + id + "-01"));
  }

  @Test
  void aListenerThatThrowsOrRewritesTheRequestIdDoesNotStopTheRunOrLoseRecords() {
    RunListener broken = new RunListener() {
      @Override
      public InferenceRequest beforeSend(InferenceRequest r) {
        return InferenceRequest.of("other-id", r.prompt());
      }

      @Override
      public void onRecord(RequestRecord record) {
        throw new IllegalStateException("boom");
      }
    };
    Map<String, String> ids = new ConcurrentHashMap<>();
    Target target = (request, observer, cancellation) -> {
      ids.put(request.id(), request.id());
      INSTANT.execute(request, observer, cancellation);
    };
    Recording after = new Recording();

    RunResult result = Benchmark.target(target).prompts(PROMPT).listener(broken).listener(after)
        .load(LoadProfile.concurrency(2).requests(10)).run();

    assertThat(result.records()).hasSize(10).allMatch(RequestRecord::succeeded);
    assertThat(ids.keySet()).doesNotContain("other-id").hasSize(10);
    assertThat(after.records).hasSize(10);
  }

  @Test
  void runThatDoesNotRetainRecordsStillReportsThemAndItsScheduleButRefusesToListThem() {
    Recording listener = new Recording();

    RunResult result = Benchmark.target(INSTANT).prompts(PROMPT).retainRecords(false).listener(listener)
        .load(LoadProfile.constantRate(5000).requests(100).warmupRequests(5)).run();

    assertThat(listener.records).hasSize(105);
    assertThat(result.recordsRetained()).isFalse();
    assertThat(result.schedule().sent()).isEqualTo(100);
    assertThat(result.schedule().scheduledRate()).isCloseTo(5000.0, org.assertj.core.data.Offset.offset(1e-6));
    assertThat(result.durationNanos()).isGreaterThanOrEqualTo(104 * 200_000L);
    assertThatThrownBy(result::records).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("retainRecords(false)");
    assertThatThrownBy(result::measured).isInstanceOf(IllegalStateException.class);
    assertThat(result.toString()).contains("records not retained", "100 sent");
  }

  @Test
  void streamingScheduleStatsAgreeWithTheExactOnesWithinHdrPrecision() {
    RunResult retained = Benchmark.target(INSTANT).prompts(PROMPT)
        .load(LoadProfile.poisson(2000).requests(300).seed(7)).run();
    StreamingScheduleStats streaming = new StreamingScheduleStats();
    retained.records().forEach(streaming::add);

    ScheduleStats exact = retained.schedule();
    ScheduleStats approx = streaming.result(exact.requestedRate());
    assertThat(approx.sent()).isEqualTo(exact.sent());
    assertThat(approx.scheduledRate()).isEqualTo(exact.scheduledRate());
    assertThat(approx.achievedRate()).isEqualTo(exact.achievedRate());
    assertThat(approx.lagMaxNanos()).isEqualTo(exact.lagMaxNanos());
    // HdrHistogram at 3 digits: each percentile is a recorded lag's bucket, within 0.1 % of some sample;
    // the linear definition interpolates, so compare against the bracketing order statistics.
    double[] lags = retained.measured().stream().mapToDouble(RequestRecord::scheduleLagNanos).sorted().toArray();
    int n = lags.length;
    int lo = (int) Math.floor(0.99 * (n - 1));
    assertThat(approx.lagP99Nanos()).isBetween(lags[Math.max(0, lo - 1)] * 0.999 - 1, lags[n - 1] * 1.001 + 1);
  }
}
