package io.infermark.metrics.report;

import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.Usage;
import io.infermark.core.load.LoadProfile;
import io.infermark.metrics.TestRuns;
import io.infermark.metrics.server.ServerSeries;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;

/** A synthetic, seeded run that looks like a real one, with hostile strings wherever users and models write. */
final class ReportFixtures {

  static final String SCRIPT = "<script>alert('x')</script>";

  private ReportFixtures() {}

  /**
   * {@code n} requests arriving at {@code rate}/s (Poisson) whose queueing grows with load: TTFT
   * 40 ms plus a heavy-ish tail, 32 chunks 20 ms apart with jitter, 2 % HTTP 503s.
   */
  static RunResult run(int n, double rate, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    List<RequestRecord> records = new ArrayList<>();
    double t = 0;
    for (int i = 0; i < n; i++) {
      t += -Math.log(1 - random.nextDouble()) / rate;
      long send = TestRuns.ms(t * 1000);
      double ttft = 40 + 15 * rate / 10 * -Math.log(1 - random.nextDouble());
      Map<String, String> tags = Map.of("scenario", i % 2 == 0 ? "chat" : SCRIPT, "tenant", "t" + i % 3);
      if (random.nextDouble() < 0.02) {
        records.add(RequestRecord.builder().index(i).requestId("r" + i).tags(tags).intendedNanos(send).sendNanos(send)
            .httpStatus(503).failure(Optional.of(Failure.httpStatus(503, "<img src=x onerror=alert(1)> overloaded")))
            .endOffsetNanos(TestRuns.ms(5)).build());
        continue;
      }
      ChunkTimeline.Builder c = ChunkTimeline.builder().add(TestRuns.ms(ttft * 0.5), ChunkKind.ROLE, -1);
      double at = ttft;
      for (int k = 0; k < 32; k++) {
        c.add(TestRuns.ms(at), ChunkKind.CONTENT, 1);
        at += 18 + 4 * random.nextDouble() + (random.nextDouble() < 0.01 ? 150 : 0);
      }
      records.add(RequestRecord.builder().index(i).requestId("r" + i).tags(tags).intendedNanos(send).sendNanos(send)
          .httpStatus(200).chunks(c.build()).usage(Usage.of(200 + i % 50, 32)).finishReason("stop")
          .endOffsetNanos(TestRuns.ms(at + 1))
          .text(Optional.of(i % 7 == 0 ? "Sure! " + SCRIPT + " & done" : "Hello number " + i)).build());
    }
    return TestRuns.run(records, LoadProfile.poisson(rate).requests(n));
  }

  /** A server gauge that follows a sine over the run, with a hostile name. */
  static ServerSeries server(String name, long durationNanos) {
    int n = (int) (durationNanos / 500_000_000L) + 1;
    long[] times = new long[n];
    double[] values = new double[n];
    for (int i = 0; i < n; i++) {
      times[i] = i * 500_000_000L;
      values[i] = 4 + 3 * Math.sin(i / 4.0);
    }
    return new ServerSeries(name, times, values);
  }
}
