package io.infermark.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TargetAvailabilityTest {

  private static final long MS = 1_000_000;

  private static RequestRecord ok(int index, long sendMs) {
    return RequestRecord.builder().index(index).intendedNanos(sendMs * MS).sendNanos(sendMs * MS).httpStatus(200)
        .chunks(ChunkTimeline.builder().add(MS, ChunkKind.CONTENT, 1).build()).endOffsetNanos(2 * MS).build();
  }

  private static RequestRecord failed(int index, long sendMs, ErrorCategory c, int status, long endMs) {
    return RequestRecord.builder().index(index).intendedNanos(sendMs * MS).sendNanos(sendMs * MS).httpStatus(status)
        .failure(Optional.of(status > 0 ? Failure.httpStatus(status, "") : Failure.of(c, "x")))
        .endOffsetNanos(endMs * MS).build();
  }

  @Test
  void outagesRunFromTheFirstFailedConnectionToTheNextAnsweredSend() {
    List<RequestRecord> records = List.of(
        ok(0, 0),
        failed(1, 100, ErrorCategory.CONNECT, 0, 1),
        failed(2, 150, ErrorCategory.CONNECT, 0, 1),
        ok(3, 400), // first outage: 100 -> 400 ms
        failed(4, 500, ErrorCategory.RESET, 0, 3),
        failed(5, 600, ErrorCategory.RESET, 0, 10)); // second outage still open at the end: 500 -> 610 ms

    TargetAvailability a = TargetAvailability.of(records);

    assertThat(a.unreachableNanos()).isEqualTo(410 * MS);
    assertThat(a.outages()).isEqualTo(2);
    assertThat(a.connectionFailures()).isEqualTo(4);
    assertThat(a.summary()).isEqualTo("target unreachable for 0.4 s (2 outages, 4 failed connections)");
  }

  @Test
  void anHttpErrorProvesTheServerReachableAndRetryAfterIsCounted() {
    List<RequestRecord> records = List.of(
        failed(0, 0, ErrorCategory.CONNECT, 0, 1),
        failed(1, 50, null, 503, 1).toBuilder().retryAfter("30").build(), // closes the outage at 50 ms
        failed(2, 60, null, 429, 1).toBuilder().retryAfter("Wed, 21 Oct 2026 07:28:00 GMT").build(),
        failed(3, 70, null, 429, 1).toBuilder().retryAfter("30").build());

    TargetAvailability a = TargetAvailability.of(records);

    assertThat(a.unreachableNanos()).isEqualTo(50 * MS);
    assertThat(a.retryAfterAnswers()).isEqualTo(3);
    assertThat(a.retryAfterValues()).containsExactly("30", "Wed, 21 Oct 2026 07:28:00 GMT");
    assertThat(a.summary()).endsWith("3 answers asked to retry after 30, Wed, 21 Oct 2026 07:28:00 GMT");
  }

  @Test
  void aResetAfterTheResponseBeganAndWarmupRecordsDoNotCount() {
    RequestRecord resetMidStream = RequestRecord.builder().index(0).httpStatus(200)
        .chunks(ChunkTimeline.builder().add(MS, ChunkKind.CONTENT, 1).build())
        .failure(Optional.of(Failure.of(ErrorCategory.RESET, "reset"))).endOffsetNanos(2 * MS).build();
    RequestRecord warmupRefused = failed(1, 5, ErrorCategory.CONNECT, 0, 1).toBuilder().warmup(true).build();

    TargetAvailability a = TargetAvailability.of(List.of(resetMidStream, warmupRefused));

    assertThat(a.anyTrouble()).isFalse();
    assertThat(a).isEqualTo(TargetAvailability.ALWAYS);
    assertThat(a.toString()).isEqualTo("TargetAvailability[always reachable]");
  }
}
