package io.infermark.core.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** A verdict that weighs the client's error bound against what the run measured. */
class WeighedVerdictTest {

  private static final long MS = 1_000_000;
  private static final long WALL = 10_000 * MS;

  /** A client whose hiccup p99 is past the CLIENT_BOUND limit (10 ms), on a machine of the given busy share. */
  private static ClientMeasurements starved(long hiccupP99, double clientCores, double machineBusy, String server) {
    LatencyStats hiccup = new LatencyStats(10_000, 50_000, hiccupP99, hiccupP99, hiccupP99);
    CpuUsage cpu = new CpuUsage(OptionalLong.of(Math.round(clientCores * WALL)), WALL, 2, OptionalDouble.of(2.5));
    RunQueueWait waits = new RunQueueWait(400 * MS, 320 * MS, 4); // 0.8 ms waited per ms run
    SharedMachine machine = new SharedMachine(OptionalDouble.of(machineBusy), SharedMachine.localHost(server));
    return new ClientMeasurements(WALL, hiccup, cpu, waits, GcPauses.NONE, List.of(), SendFigures.NONE, machine);
  }

  /** TTFT 750 ms, TPOT 10 ms over 170 tokens, ITL 10 ms, E2E 2.4 s: a CPU engine's figures. */
  private static List<MetricBound> cpuEngine(long floor) {
    return List.of(new MetricBound("TTFT", 40, 750 * MS, 790 * MS, floor, true),
        new MetricBound("TPOT", 40, 10 * MS, 11 * MS, floor / 169, true),
        new MetricBound("ITL", 6_760, 10 * MS, 28 * MS, floor, false),
        new MetricBound("E2E", 40, 2_400 * MS, 2_500 * MS, floor, true));
  }

  @Test
  void aSmallErrorAgainstWhatWasMeasuredIsDegradedNotClientBound() {
    ClientMeasurements m = starved(12 * MS, 0.1, 0.98, "http://127.0.0.1:8080/v1/chat/completions");
    ClientHealth h = ClientHealth.evaluate(m, HealthThresholds.defaults(), cpuEngine(ClientHealth.floor(m)));

    assertThat(h.verdict()).isEqualTo(HealthVerdict.DEGRADED);
    assertThat(h.floorNanos()).isEqualTo(12 * MS);
    assertThat(h.reasons().get(0)).isEqualTo("the client was disturbed, but its error bound (12.0 ms) is at most "
        + "1.6 % of the p50 of what it measured (TTFT 1.6 %, TPOT 0.71 %, E2E 0.50 %; CLIENT_BOUND from 10 %): the "
        + "figures stand within it, so the run is DEGRADED, not CLIENT_BOUND");
    assertThat(h.reasons()).contains("ITL: the error bound 12.0 ms is 120 % of its p50 10.0 ms: single gaps between "
        + "chunks are the client's at this load (TPOT, their average per request, is not)");
    assertThat(h.reasons()).contains("hiccup p99 12.0 ms > 10 ms: the client's threads could not run on time");
    assertThat(h.bounds()).hasSize(4);
    assertThat(h.bounds().get(0).toString()).isEqualTo("TTFT: bound 12.0 ms = 1.6 % of p50 750 ms, 1.5 % of p99 790 ms");
  }

  @Test
  void aCpuBoundServerOnTheSameMachineIsNamed() {
    ClientMeasurements m = starved(12 * MS, 0.1, 0.98, "http://127.0.0.1:8080/v1/chat/completions");
    ClientHealth h = ClientHealth.evaluate(m, HealthThresholds.defaults(), cpuEngine(ClientHealth.floor(m)));

    assertThat(h.reasons()).contains("the machine's cores were 98 % busy while this client used 5 % of them, and its "
        + "threads waited 0.80 ms for a core per ms they ran: the server at 127.0.0.1 runs on this machine: it, or another "
        + "process, is "
        + "CPU-bound on the client's own cores and starves the client (see docs/cpu-engine-on-the-same-machine.md)");
    ClientMeasurements remote = starved(12 * MS, 0.1, 0.98, "http://10.0.0.7:8000/v1");
    assertThat(ClientHealth.evaluate(remote, HealthThresholds.defaults()).reasons())
        .anyMatch(r -> r.contains("another process on this machine is CPU-bound"));
    ClientMeasurements quietMachine = starved(12 * MS, 0.1, 0.40, "http://127.0.0.1:8080/v1");
    assertThat(ClientHealth.evaluate(quietMachine, HealthThresholds.defaults()).reasons())
        .noneMatch(r -> r.contains("CPU-bound"));
  }

  @Test
  void aMaterialErrorStaysClientBoundAndSaysAgainstWhat() {
    ClientMeasurements m = starved(12 * MS, 0.1, 0.98, "http://127.0.0.1:8080/v1");
    List<MetricBound> fast = List.of(new MetricBound("TTFT", 40, 20 * MS, 30 * MS, 12 * MS, true),
        new MetricBound("E2E", 40, 650 * MS, 700 * MS, 12 * MS, true));
    ClientHealth h = ClientHealth.evaluate(m, HealthThresholds.defaults(), fast);

    assertThat(h.verdict()).isEqualTo(HealthVerdict.CLIENT_BOUND);
    assertThat(h.reasons().get(0)).isEqualTo("the client's error bound (12.0 ms) is a material share of what it "
        + "measured: 60 % of the p50 of TTFT (material from 10 %; TTFT 60 %, E2E 1.8 %)");
  }

  @Test
  void aClientOutOfCpuStaysClientBoundWhateverTheBound() {
    LatencyStats hiccup = new LatencyStats(10_000, 50_000, 100_000, 100_000, 100_000);
    CpuUsage cpu = new CpuUsage(OptionalLong.of(Math.round(1.9 * WALL)), WALL, 2, OptionalDouble.empty());
    ClientMeasurements m = new ClientMeasurements(WALL, hiccup, cpu, RunQueueWait.UNMEASURED, GcPauses.NONE,
        List.of(), SendFigures.NONE);
    ClientHealth h = ClientHealth.evaluate(m, HealthThresholds.defaults(), cpuEngine(ClientHealth.floor(m)));

    assertThat(h.verdict()).isEqualTo(HealthVerdict.CLIENT_BOUND);
    assertThat(h.reasons().get(0)).startsWith("the client's error bound (0.10 ms) is a material share");
  }

  @Test
  void theThresholdIsConfigurableAndReevaluationKeepsTheBounds() {
    ClientMeasurements m = starved(12 * MS, 0.1, 0.98, "");
    ClientHealth h = ClientHealth.evaluate(m, HealthThresholds.defaults(), cpuEngine(ClientHealth.floor(m)));
    ClientHealth strict = h.reevaluate(HealthThresholds.builder().materialErrorShare(0.01).build());

    assertThat(strict.verdict()).isEqualTo(HealthVerdict.CLIENT_BOUND);
    assertThat(strict.bounds()).isEqualTo(h.bounds());
    assertThat(ClientHealth.evaluate(m, HealthThresholds.defaults()).verdict()).isEqualTo(HealthVerdict.CLIENT_BOUND);
  }

  /** A successful record: first token at {@code ttftMs}, then {@code tokens - 1} more every {@code itlMs}. */
  private static RequestRecord record(long index, double ttftMs, int tokens, double itlMs) {
    ChunkTimeline.Builder c = ChunkTimeline.builder();
    c.add(0, ChunkKind.ROLE, ChunkTimeline.UNKNOWN_TOKENS);
    for (int i = 0; i < tokens; i++) {
      c.add(Math.round((ttftMs + i * itlMs) * MS), ChunkKind.CONTENT, ChunkTimeline.UNKNOWN_TOKENS);
    }
    return RequestRecord.builder().index(index).chunks(c.build())
        .endOffsetNanos(Math.round((ttftMs + tokens * itlMs) * MS)).build();
  }

  @Test
  void theScaleIsTheRunsOwnTtftTpotItlAndE2eOverSuccessfulMeasuredRecords() {
    LatencyScale scale = new LatencyScale();
    for (int i = 0; i < 10; i++) {
      scale.add(record(i, 20, 65, 10)); // TTFT 20 ms, TPOT 10 ms, E2E 660 ms
    }
    scale.add(record(10, 5000, 3, 1000).toBuilder().warmup(true).build());
    scale.add(record(11, 5000, 3, 1000).toBuilder()
        .failure(Optional.of(Failure.of(ErrorCategory.RESET, "reset"))).build());

    List<MetricBound> b = scale.bounds(4 * MS);
    assertThat(b).extracting(MetricBound::metric).containsExactly("TTFT", "TPOT", "ITL", "E2E");
    assertThat(b.get(0).samples()).isEqualTo(10);
    assertThat(b.get(0).p50Nanos() / 1e6).isCloseTo(20, org.assertj.core.api.Assertions.within(0.2));
    assertThat(b.get(1).p50Nanos() / 1e6).isCloseTo(10, org.assertj.core.api.Assertions.within(0.1));
    assertThat(b.get(1).boundNanos()).isEqualTo(4 * MS / 64); // the floor over N − 1 gaps
    assertThat(b.get(2).samples()).isEqualTo(640);
    assertThat(b.get(2).judged()).isFalse();
    assertThat(b.get(3).p50Nanos() / 1e6).isCloseTo(660, org.assertj.core.api.Assertions.within(6.0));
    assertThat(b.get(3).boundNanos()).isEqualTo(4 * MS);
    assertThat(new LatencyScale().bounds(4 * MS)).isEmpty();
  }

  @Test
  void theMachinesBusyShareComesFromProcStatsCounters() {
    SharedMachine.Snapshot a = SharedMachine.Snapshot.parse("cpu  100 0 50 800 50 0 0 0 0 0");
    SharedMachine.Snapshot b = SharedMachine.Snapshot.parse("cpu  280 0 110 810 50 0 0 0 0 0");
    assertThat(a.busyShareUntil(b).getAsDouble()).isCloseTo(240.0 / 250, org.assertj.core.api.Assertions.within(1e-9));
    assertThat(SharedMachine.Snapshot.NONE.busyShareUntil(b)).isEmpty();
    assertThat(SharedMachine.localHost("http://localhost:8080/x")).contains("localhost");
    assertThat(SharedMachine.localHost("http://[::1]:8080/x")).contains("[::1]");
    assertThat(SharedMachine.localHost("https://api.openai.com/v1")).isEmpty();
    assertThat(SharedMachine.localHost("not a url")).isEmpty();
  }
}
