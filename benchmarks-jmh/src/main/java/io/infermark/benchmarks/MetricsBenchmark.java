package io.infermark.benchmarks;

import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.hdr.StreamingSummary;
import io.infermark.metrics.otel.GenAiTelemetry;
import io.infermark.metrics.report.JsonReport;
import io.opentelemetry.api.OpenTelemetry;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the metrics module costs per request and per chunk, for records of {@value #CHUNKS} chunks:
 * recording a finished request into the streaming summary (all twelve latency metrics into
 * HdrHistograms) and into the OpenTelemetry listener (no-op SDK: infermark's own overhead), computing
 * every metric's values for one record, and summarising a retained run exactly.
 *
 * <p>Run: {@code java -jar benchmarks-jmh/target/benchmarks.jar MetricsBenchmark -prof gc}. The
 * {@code PerChunk} variants report the same work divided by the chunk count.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class MetricsBenchmark {

  static final int CHUNKS = 128;
  static final int RUN = 10_000;

  private RequestRecord[] records;
  private int next;
  private StreamingSummary streaming;
  private GenAiTelemetry otel;
  private RunResult run;

  @Setup(Level.Trial)
  public void setUp() {
    SplittableRandom random = new SplittableRandom(1);
    records = new RequestRecord[1024];
    for (int i = 0; i < records.length; i++) {
      records[i] = MetricsData.record(i, CHUNKS, random);
    }
    streaming = new StreamingSummary();
    otel = GenAiTelemetry.builder(OpenTelemetry.noop()).model("m").provider("openai").build();
    List<RequestRecord> list = MetricsData.records(RUN, CHUNKS, 2);
    run = MetricsData.run(list);
  }

  private RequestRecord nextRecord() {
    RequestRecord r = records[next];
    next = (next + 1) & (records.length - 1);
    return r;
  }

  @Benchmark
  public StreamingSummary streamingSummaryPerRequest() {
    streaming.onRecord(nextRecord());
    return streaming;
  }

  @Benchmark
  @OperationsPerInvocation(CHUNKS)
  public StreamingSummary streamingSummaryPerChunk() {
    streaming.onRecord(nextRecord());
    return streaming;
  }

  @Benchmark
  public GenAiTelemetry openTelemetryNoopPerRequest() {
    otel.onRecord(nextRecord());
    return otel;
  }

  @Benchmark
  public double[] itlValuesPerRequest() {
    return LatencyMetric.ITL.valuesMillis(nextRecord());
  }

  /** Exact summary of a retained run, per record. */
  @Benchmark
  @OperationsPerInvocation(RUN)
  @Measurement(iterations = 5, time = 4)
  public RunSummary exactSummaryPerRecord() {
    return RunSummary.of(run);
  }

  /** The JSON report of a 10,000-record run's summary, per report (intervals and tail diagnostics included). */
  @Benchmark
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public String jsonReportOf10kSummary() {
    return JsonReport.toJson(RunSummary.of(run));
  }
}
