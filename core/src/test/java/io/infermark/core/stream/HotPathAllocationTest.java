package io.infermark.core.stream;

import static io.infermark.core.stream.Feeding.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.Usage;
import java.lang.management.ManagementFactory;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Guards the per-chunk allocation budget (about 200 bytes with text capture off) that the JMH
 * benchmark will measure precisely: a token chunk must not decode strings or build trees.
 */
class HotPathAllocationTest {

  private static final int WARMUP = 50_000;
  private static final int MEASURED = 50_000;

  /** Counts chunks and nothing else, so only the decoder's own allocation is measured. */
  private static final class CountingObserver implements StreamObserver {
    long chunks;
    boolean ended;

    @Override public void onPhase(Phase phase, long nanoTime) {}
    @Override public void onResponseHeaders(int httpStatus, long nanoTime) {}
    @Override public void onChunk(long nanoTime, ChunkKind kind, int tokens) {
      chunks++;
    }
    @Override public void onUsage(Usage usage) {}
    @Override public void onFinishReason(String reason) {}
    @Override public void onServerTiming(String name, double value) {}
    @Override public void onComplete(long nanoTime) {
      ended = true;
    }
    @Override public void onFailure(Failure failure, long nanoTime) {
      ended = true;
    }
  }

  static Stream<Arguments> tokenEvents() {
    return Stream.of(
        Arguments.of(StreamDialect.OPENAI,
            "data: {\"id\":\"chatcmpl-ABfw031mOJeYCSHe4yI2ZjOA6kMJL\",\"object\":\"chat.completion.chunk\",\"created\":1727346168,\"model\":\"gpt-4o-2024-08-06\",\"system_fingerprint\":\"fp_5050236cbd\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" unable\"},\"logprobs\":null,\"finish_reason\":null}],\"obfuscation\":\"x1y2\"}\n\n"),
        Arguments.of(StreamDialect.OPENAI,
            "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"finish_reason\":null}],\"usage\":{\"prompt_tokens\":5,\"total_tokens\":6,\"completion_tokens\":1}}\n\n"),
        Arguments.of(StreamDialect.ANTHROPIC,
            "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\" there\"}}\n\n"),
        Arguments.of(StreamDialect.OLLAMA_NDJSON,
            "{\"model\":\"gemma4\",\"created_at\":\"2025-10-26T17:15:24.109172Z\",\"response\":\"'\",\"done\":false}\n"),
        Arguments.of(StreamDialect.TGI_GENERATE,
            "data: {\"index\":2,\"token\":{\"id\":5608,\"text\":\" faire\",\"logprob\":-2.4882812,\"special\":false},\"generated_text\":null,\"details\":null}\n\n"),
        Arguments.of(StreamDialect.LLAMACPP_COMPLETION,
            "data: {\"index\":0,\"content\":\" planet\",\"tokens\":[11],\"stop\":false,\"id_slot\":-1,\"tokens_predicted\":2,\"tokens_evaluated\":16}\n\n"),
        Arguments.of(StreamDialect.TRITON_GENERATE,
            "data: {\"model_name\":\"ensemble\",\"model_version\":\"1\",\"sequence_end\":false,\"sequence_id\":0,\"text_output\":\" hi\"}\n\n"));
  }

  @ParameterizedTest
  @MethodSource("tokenEvents")
  void tokenChunkAllocatesLessThan200BytesWithoutTextCapture(StreamDialect dialect, String event) {
    com.sun.management.ThreadMXBean threads = threadBean();
    // Two reads per event, split mid-line, so carrying a partial line over is measured too.
    byte[] bytes = utf8(event);
    int split = bytes.length / 2;
    CountingObserver observer = new CountingObserver();
    StreamDecoder decoder = dialect.newDecoder(observer);
    for (int i = 0; i < WARMUP; i++) {
      decoder.feed(bytes, 0, split, i);
      decoder.feed(bytes, split, bytes.length - split, i);
    }
    long thread = Thread.currentThread().getId();
    long before = threads.getThreadAllocatedBytes(thread);
    for (int i = 0; i < MEASURED; i++) {
      decoder.feed(bytes, 0, split, i);
      decoder.feed(bytes, split, bytes.length - split, i);
    }
    long perChunk = (threads.getThreadAllocatedBytes(thread) - before) / MEASURED;

    assertThat(observer.ended).isFalse();
    assertThat(observer.chunks).isEqualTo(WARMUP + MEASURED);
    assertThat(perChunk).as("bytes allocated per chunk").isLessThan(200);
  }

  private static com.sun.management.ThreadMXBean threadBean() {
    java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
    assumeTrue(bean instanceof com.sun.management.ThreadMXBean, "needs HotSpot's allocation counter");
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
    assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
    return threads;
  }
}
