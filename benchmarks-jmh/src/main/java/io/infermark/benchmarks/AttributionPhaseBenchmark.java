package io.infermark.benchmarks;

import io.infermark.attribution.phase.LatencyBasis;
import io.infermark.attribution.phase.PhaseBreakdown;
import io.infermark.attribution.phase.PhaseDecomposition;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.ConnectionPhases;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.RequestRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What splitting a run into latency phases costs: {@link PhaseDecomposition} of {@value #REQUESTS}
 * records (pooled connections with request, header milestones and {@value #CHUNKS} chunks each; one in
 * {@value #NEW_CONNECTION_EVERY} on a new TLS connection), and the P99 tail breakdown on top of it.
 *
 * <p>Run: {@code java -jar benchmarks-jmh/target/benchmarks.jar AttributionPhaseBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class AttributionPhaseBenchmark {

  static final int REQUESTS = 100_000;
  static final int CHUNKS = 64;
  static final int NEW_CONNECTION_EVERY = 50;

  private List<RequestRecord> records;
  private PhaseDecomposition decomposition;

  @Setup(Level.Trial)
  public void setUp() {
    SplittableRandom random = new SplittableRandom(1);
    records = new ArrayList<>(REQUESTS);
    for (int i = 0; i < REQUESTS; i++) {
      long[] offsets = new long[Phase.values().length];
      Arrays.fill(offsets, -1);
      long t = 0;
      if (i % NEW_CONNECTION_EVERY == 0) {
        offsets[Phase.DNS_START.ordinal()] = t += 50_000;
        offsets[Phase.DNS_END.ordinal()] = t += 500_000;
        offsets[Phase.CONNECT_START.ordinal()] = t += 10_000;
        offsets[Phase.SECURE_CONNECT_START.ordinal()] = t += 300_000;
        offsets[Phase.SECURE_CONNECT_END.ordinal()] = t += 2_000_000;
        offsets[Phase.CONNECT_END.ordinal()] = t += 20_000;
      }
      offsets[Phase.CONNECTION_ACQUIRED.ordinal()] = t += 20_000;
      offsets[Phase.REQUEST_SENT.ordinal()] = t += 100_000 + random.nextInt(100_000);
      offsets[Phase.RESPONSE_HEADERS_START.ordinal()] = t += 1_000_000 + random.nextInt(50_000_000);
      offsets[Phase.RESPONSE_HEADERS_END.ordinal()] = t += 50_000;
      ChunkTimeline.Builder chunks = ChunkTimeline.builder();
      for (int c = 0; c < CHUNKS; c++) {
        chunks.add(t += 5_000_000 + random.nextInt(5_000_000), ChunkKind.CONTENT, 1);
      }
      long intended = i * 10_000_000L;
      records.add(RequestRecord.builder().index(i).intendedNanos(intended).sendNanos(intended + random.nextInt(100_000))
          .phases(ConnectionPhases.of(offsets)).httpStatus(200).chunks(chunks.build()).endOffsetNanos(t + 10_000)
          .build());
    }
    decomposition = PhaseDecomposition.of(records, LatencyBasis.RESPONSE_TIME);
  }

  /** Splitting every record on the response-time basis (eight phases) and the mean breakdown. */
  @Benchmark
  public PhaseDecomposition decompose() {
    return PhaseDecomposition.of(records, LatencyBasis.RESPONSE_TIME);
  }

  /** The P99 tail breakdown of an existing decomposition (percentile, selection, sums). */
  @Benchmark
  public PhaseBreakdown p99Tail() {
    return decomposition.atOrAbovePercentile(0.99);
  }
}
