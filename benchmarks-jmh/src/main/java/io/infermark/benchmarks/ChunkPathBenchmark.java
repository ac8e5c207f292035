package io.infermark.benchmarks;

import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.TokenTimeline;
import io.infermark.core.stream.StreamDecoder;
import io.infermark.core.stream.StreamDialect;
import io.infermark.core.time.Clock;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The per-chunk cost of capture: SSE framing, JSON classification and recording into a
 * {@link TokenTimeline}, for one OpenAI-compatible streamed response of {@value #CHUNKS} content
 * chunks (plus role, usage and {@code [DONE]}), fed one network read per chunk as a server that
 * flushes every token would deliver it. Results are per chunk ({@link OperationsPerInvocation}),
 * including the amortised cost of creating the timeline and building the record.
 *
 * <p>Run: {@code java -jar benchmarks-jmh/target/benchmarks.jar ChunkPath -prof gc}; the target is
 * at most 1 µs and 200 bytes allocated per chunk ({@code gc.alloc.rate.norm}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ChunkPathBenchmark {

  static final int CHUNKS = 128;

  /** vLLM's chunk shape, or vLLM's with continuous usage stats on every chunk. */
  @Param({"vllm", "vllm-continuous-usage"})
  public String shape;

  private byte[][] reads;
  private final Clock clock = Clock.system();

  @Setup(Level.Trial)
  public void setUp() {
    boolean continuous = shape.equals("vllm-continuous-usage");
    reads = new byte[CHUNKS + 3][];
    String prefix = "data: {\"id\":\"chatcmpl-0b5a1b9f1c7e4bd9a3a4\",\"object\":\"chat.completion.chunk\","
        + "\"created\":1743000000,\"model\":\"meta-llama/Llama-3.1-8B-Instruct\",\"choices\":[{\"index\":0,";
    reads[0] = bytes(prefix + "\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,"
        + "\"finish_reason\":null}]" + usage(continuous, 0) + "}\n\n");
    for (int i = 1; i <= CHUNKS; i++) {
      reads[i] = bytes(prefix + "\"delta\":{\"content\":\" token" + (i % 10) + "\"},\"logprobs\":null,"
          + "\"finish_reason\":" + (i == CHUNKS ? "\"length\",\"stop_reason\":null" : "null") + "}]"
          + usage(continuous, i) + "}\n\n");
    }
    reads[CHUNKS + 1] = bytes("data: {\"id\":\"chatcmpl-0b5a1b9f1c7e4bd9a3a4\",\"object\":\"chat.completion.chunk\","
        + "\"created\":1743000000,\"model\":\"meta-llama/Llama-3.1-8B-Instruct\",\"choices\":[],"
        + "\"usage\":{\"prompt_tokens\":42,\"total_tokens\":" + (42 + CHUNKS) + ",\"completion_tokens\":" + CHUNKS
        + "}}\n\n");
    reads[CHUNKS + 2] = bytes("data: [DONE]\n\n");
  }

  private static String usage(boolean continuous, int completion) {
    return continuous ? ",\"usage\":{\"prompt_tokens\":42,\"total_tokens\":" + (42 + completion)
        + ",\"completion_tokens\":" + completion + "}" : "";
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** One whole response; JMH divides by the chunk count. */
  @Benchmark
  @OperationsPerInvocation(CHUNKS)
  public RequestRecord parseClassifyRecord() {
    TokenTimeline timeline = TokenTimeline.start(clock);
    StreamDecoder decoder = StreamDialect.OPENAI.newDecoder(timeline);
    for (byte[] read : reads) {
      decoder.feed(read, 0, read.length, clock.nanoTime());
    }
    decoder.end(clock.nanoTime());
    return timeline.record().orElseThrow();
  }
}
