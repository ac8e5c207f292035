package io.infermark.core.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.capture.TokenTimeline;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import io.infermark.core.time.Clock;
import io.infermark.core.transport.Cancellation;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class RetrievalTargetTest {

  private final AtomicLong now = new AtomicLong(1_000);
  private final Clock clock = now::get;
  private final AtomicReference<InferenceRequest> generated = new AtomicReference<>();

  /** A generation target that streams one token 7 ns after it is called, on the fake clock. */
  private final Target generation = new Target() {
    @Override
    public void execute(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
      generated.set(request);
      observer.onSend(now.get()); // ignored: the pipeline sent first
      observer.onPhase(Phase.REQUEST_SENT, now.addAndGet(2));
      observer.onResponseHeaders(200, now.addAndGet(2));
      observer.onChunk(now.addAndGet(3), ChunkKind.CONTENT, 1);
      observer.onComplete(now.get());
    }
  };

  private RequestRecord run(RetrievalTarget target, Prompt prompt) {
    AtomicReference<RequestRecord> out = new AtomicReference<>();
    TokenTimeline timeline = TokenTimeline.builder(clock).index(0).requestId("r").tags(prompt.tags())
        .originNanos(0).intendedNanos(1_000).sendNanos(1_000).onDone(out::set).build();
    target.execute(new InferenceRequest("r", prompt, io.infermark.core.request.GenerationParams.defaults()),
        timeline, new Cancellation());
    return out.get();
  }

  @Test
  void retrievalIsAPhaseBeforeGenerationAndItsIdsAndRecallReachTheRecord() {
    Retriever retriever = (query, k) -> {
      now.addAndGet(50); // the stage takes 50 ns
      return new Retrieval(List.of("a", "x"), List.of("alpha", "chi"), Map.of("index.shard", "3"));
    };
    RetrievalTarget target = RetrievalTarget.builder(generation, retriever).topK(2).clock(clock).build();
    RequestRecord r = run(target, Prompt.user("what is a?").withTag(RetrievalTarget.RELEVANT_TAG, "a,b"));

    assertThat(r.succeeded()).isTrue();
    assertThat(r.phases().offsetNanos(Phase.RETRIEVAL_START)).hasValue(0);
    assertThat(r.phases().retrievalNanos()).hasValue(50);
    assertThat(r.chunks().firstTokenOffsetNanos()).hasValue(57); // 50 retrieval + 7 generation
    assertThat(r.tags()).containsEntry(RetrievalTarget.RETRIEVED_TAG, "a,x").containsEntry(RetrievalTarget.K_TAG, "2")
        .containsEntry("index.shard", "3");
    // One of the two relevant ids retrieved.
    assertThat(RetrievalTarget.recallAtK(r)).hasValue(0.5);
    // Generation got the passages as a system message in front, and the prompt's tags.
    Prompt sent = generated.get().prompt();
    assertThat(sent.messages()).hasSize(2);
    assertThat(sent.messages().get(0)).isEqualTo(Message.system("Answer from these passages:\n[a] alpha\n[x] chi"));
    assertThat(sent.tags()).containsEntry(RetrievalTarget.RELEVANT_TAG, "a,b");
  }

  @Test
  void recordContextKeepsThePassagesOnTheRecordAndIsOffByDefault() {
    Retriever retriever = (query, k) -> Retrieval.of(List.of("a", "x"), List.of("alpha beta", "chi"));
    RequestRecord plain = run(RetrievalTarget.builder(generation, retriever).clock(clock).build(), Prompt.user("q"));
    assertThat(plain.tags()).doesNotContainKey(RetrievalTarget.CONTEXT_TAG);
    RequestRecord kept = run(RetrievalTarget.builder(generation, retriever).recordContext(true).clock(clock).build(),
        Prompt.user("q"));
    assertThat(kept.tags()).containsEntry(RetrievalTarget.CONTEXT_TAG, "alpha beta\nchi");
  }

  @Test
  void aFailingRetrieverFailsTheRequestAsAClientErrorWithoutGenerating() {
    RetrievalTarget target = RetrievalTarget.builder(generation, (q, k) -> {
      throw new IllegalStateException("index offline");
    }).clock(clock).build();
    RequestRecord r = run(target, Prompt.text("q"));
    assertThat(r.failure()).get().satisfies(f -> {
      assertThat(f.category()).isEqualTo(ErrorCategory.CLIENT);
      assertThat(f.message()).contains("retrieval stage failed").contains("index offline");
    });
    assertThat(generated.get()).isNull();
  }

  @Test
  void textPromptsGetThePassagesAsAPreambleAndTheQueryTagWins() {
    AtomicReference<String> asked = new AtomicReference<>();
    RetrievalTarget target = RetrievalTarget.builder(generation, (q, k) -> {
      asked.set(q);
      return Retrieval.of(List.of("d1"), List.of("one"));
    }).clock(clock).build();
    run(target, Prompt.text("long prompt").withTag(RetrievalTarget.QUERY_TAG, "short query"));
    assertThat(asked.get()).isEqualTo("short query");
    assertThat(generated.get().prompt().text()).isEqualTo("Answer from these passages:\n[d1] one\n\nlong prompt");
  }

  @Test
  void idsWithCommasAreRejected() {
    assertThatThrownBy(() -> Retrieval.of(List.of("a,b"), List.of())).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("comma");
  }
}
