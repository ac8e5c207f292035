package io.infermark.core.pipeline;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.Phase;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.health.Probe;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import io.infermark.core.time.Clock;
import io.infermark.core.transport.Cancellation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A retrieval-augmented generation pipeline as one target: a {@link Retriever} finds the top
 * {@code k} documents for the prompt, and the generation target answers the prompt with their
 * passages in front of it.
 *
 * <pre>{@code
 * Target rag = RetrievalTarget.builder(OpenAiTarget.chat(url, model).build(), retriever).topK(4).build();
 * }</pre>
 *
 * <p>The request is sent (the record's send time) when retrieval starts; the record's phases carry
 * {@link Phase#RETRIEVAL_START} and {@link Phase#RETRIEVAL_END} before the generation request's own
 * milestones, so TTFT and E2E include retrieval and the phase decomposition
 * ({@code LatencyBasis.SERVICE_TIME_WITH_RETRIEVAL}) shows it as its own phase. The record's tags
 * gain {@value #RETRIEVED_TAG} (the returned ids, comma-separated, best first), {@value #K_TAG} and
 * the retriever's annotations; a prompt tagged {@value #RELEVANT_TAG} with the ground-truth ids lets
 * {@link #recallAtK} score it.
 *
 * <p>The query is the prompt's {@value #QUERY_TAG} tag when present, else its text. Chat prompts
 * get the passages as a system message in front; text prompts get them as a preamble. A retriever
 * that throws fails the request as a {@link ErrorCategory#CLIENT} error naming the retrieval stage.
 * Blocking: each request holds its thread through both stages.
 */
public final class RetrievalTarget implements Target {

  /** Record tag: the retrieved document ids, comma-separated, best first. */
  public static final String RETRIEVED_TAG = "retrieval.retrieved";
  /** Record tag: the {@code k} retrieval asked for. */
  public static final String K_TAG = "retrieval.k";
  /** Prompt tag: the ground-truth relevant document ids, comma-separated. */
  public static final String RELEVANT_TAG = "retrieval.relevant";
  /** Prompt tag: the query to retrieve with, when it is not the prompt's text. */
  public static final String QUERY_TAG = "retrieval.query";
  /**
   * Record tag, with {@link Builder#recordContext(boolean)}: the retrieved passages given to generation, one
   * per line, best first; what seed 000's {@code context_relevance_score} compares the answer with.
   */
  public static final String CONTEXT_TAG = "retrieval.context";

  private final Target generation;
  private final Retriever retriever;
  private final int k;
  private final Clock clock;
  private final boolean recordContext;

  private RetrievalTarget(Builder b) {
    this.generation = b.generation;
    this.retriever = b.retriever;
    this.k = b.k;
    this.clock = b.clock;
    this.recordContext = b.recordContext;
  }

  /** A builder for a pipeline of {@code retriever} then {@code generation}. */
  public static Builder builder(Target generation, Retriever retriever) {
    return new Builder(Objects.requireNonNull(generation, "generation"), Objects.requireNonNull(retriever, "retriever"));
  }

  @Override
  public void execute(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
    long start = clock.nanoTime();
    observer.onSend(start);
    observer.onPhase(Phase.RETRIEVAL_START, start);
    Prompt prompt = request.prompt();
    String query = prompt.tags().getOrDefault(QUERY_TAG, prompt.text());
    Retrieval found;
    try {
      found = Objects.requireNonNull(retriever.retrieve(query, k), "the retriever returned null");
    } catch (RuntimeException e) {
      observer.onFailure(Failure.of(ErrorCategory.CLIENT, "retrieval stage failed: " + e), clock.nanoTime());
      return;
    }
    observer.onPhase(Phase.RETRIEVAL_END, clock.nanoTime());
    observer.onAnnotation(RETRIEVED_TAG, String.join(",", found.ids()));
    observer.onAnnotation(K_TAG, Integer.toString(k));
    if (recordContext) {
      observer.onAnnotation(CONTEXT_TAG, String.join("\n", found.passages()));
    }
    found.annotations().forEach(observer::onAnnotation);
    if (cancellation.isCancelled()) {
      observer.onFailure(Failure.of(ErrorCategory.CANCELLED, "cancelled after the retrieval stage"), clock.nanoTime());
      return;
    }
    InferenceRequest augmented = new InferenceRequest(request.id(), augment(prompt, found), request.params());
    generation.execute(augmented, observer, cancellation);
  }

  /**
   * The passages as the generation call receives them: a line {@code Answer from these passages:}, then one line
   * {@code [id] passage} each, in order, each line ending in a newline.
   *
   * @throws IllegalArgumentException if the lists differ in length
   */
  public static String context(List<String> ids, List<String> passages) {
    if (ids.size() != passages.size()) {
      throw new IllegalArgumentException(ids.size() + " ids for " + passages.size() + " passages");
    }
    StringBuilder context = new StringBuilder("Answer from these passages:\n");
    for (int i = 0; i < passages.size(); i++) {
      context.append('[').append(ids.get(i)).append("] ").append(passages.get(i)).append('\n');
    }
    return context.toString();
  }

  /** The prompt with the passages in front: a system message for chat, a preamble for text. */
  static Prompt augment(Prompt prompt, Retrieval found) {
    if (found.passages().isEmpty()) {
      return prompt;
    }
    String context = context(found.ids(), found.passages());
    Prompt out;
    if (prompt.isChat()) {
      List<Message> messages = new ArrayList<>();
      messages.add(Message.system(context.strip()));
      messages.addAll(prompt.messages());
      out = Prompt.chat(messages);
    } else {
      out = Prompt.text(context + "\n" + prompt.text());
    }
    for (Map.Entry<String, String> t : prompt.tags().entrySet()) {
      out = out.withTag(t.getKey(), t.getValue());
    }
    return out;
  }

  /**
   * Recall at k of a record: the share of its prompt's {@value #RELEVANT_TAG} ids among its
   * {@value #RETRIEVED_TAG} ids; empty when the record lacks either tag or has no relevant id.
   */
  public static java.util.OptionalDouble recallAtK(io.infermark.core.capture.RequestRecord record) {
    String relevant = record.tags().get(RELEVANT_TAG);
    String retrieved = record.tags().get(RETRIEVED_TAG);
    if (relevant == null || retrieved == null || relevant.isBlank()) {
      return java.util.OptionalDouble.empty();
    }
    java.util.Set<String> got = new java.util.HashSet<>(List.of(retrieved.split(",")));
    String[] truth = relevant.split(",");
    int hits = 0;
    for (String id : truth) {
      if (got.contains(id.strip())) {
        hits++;
      }
    }
    return java.util.OptionalDouble.of((double) hits / truth.length);
  }

  /**
   * The reciprocal rank of a record's retrieval within the first {@code depth} results: {@code 1 / r} for
   * the rank {@code r} (from 1) of the first {@value #RETRIEVED_TAG} id that is among the prompt's
   * {@value #RELEVANT_TAG} ids, 0 when none is within the first {@code depth}; empty when the record lacks
   * either tag or has no relevant id. The mean over requests is MRR@depth; seed 003 §2.2 reports
   * "召回准确率（Top-3 MRR）" (retrieval accuracy as Top-3 MRR), {@link #MRR_DEPTH}.
   *
   * @throws IllegalArgumentException if the depth is below 1
   */
  public static java.util.OptionalDouble reciprocalRank(io.infermark.core.capture.RequestRecord record, int depth) {
    if (depth < 1) {
      throw new IllegalArgumentException("depth must be >= 1, was " + depth);
    }
    String relevant = record.tags().get(RELEVANT_TAG);
    String retrieved = record.tags().get(RETRIEVED_TAG);
    if (relevant == null || retrieved == null || relevant.isBlank()) {
      return java.util.OptionalDouble.empty();
    }
    java.util.Set<String> truth = new java.util.HashSet<>();
    for (String id : relevant.split(",")) {
      truth.add(id.strip());
    }
    String[] got = retrieved.isEmpty() ? new String[0] : retrieved.split(",");
    for (int i = 0; i < Math.min(depth, got.length); i++) {
      if (truth.contains(got[i].strip())) {
        return java.util.OptionalDouble.of(1.0 / (i + 1));
      }
    }
    return java.util.OptionalDouble.of(0);
  }

  /** The depth of seed 003's "Top-3 MRR": 3. */
  public static final int MRR_DEPTH = 3;

  @Override
  public void prepare(int maxInFlight) {
    generation.prepare(maxInFlight);
  }

  @Override
  public List<Probe> healthProbes() {
    return generation.healthProbes();
  }

  @Override
  public void close() {
    generation.close();
  }

  @Override
  public String toString() {
    return "RetrievalTarget[top " + k + " then " + generation + "]";
  }

  /** Collects a {@link RetrievalTarget}'s settings. */
  public static final class Builder {
    private final Target generation;
    private final Retriever retriever;
    private int k = 4;
    private Clock clock = Clock.system();
    private boolean recordContext;

    private Builder(Target generation, Retriever retriever) {
      this.generation = generation;
      this.retriever = retriever;
    }

    /** How many documents to retrieve, &gt; 0 [4]. */
    public Builder topK(int k) {
      if (k < 1) {
        throw new IllegalArgumentException("topK must be > 0, was " + k);
      }
      this.k = k;
      return this;
    }

    /** The clock the retrieval stage is timed on: the run's ({@link Clock#system()} by default). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Whether each record keeps the retrieved passages as the tag {@value RetrievalTarget#CONTEXT_TAG} [false: records
     * and journals carry the ids only]; a context-relevance score needs them.
     */
    public Builder recordContext(boolean record) {
      this.recordContext = record;
      return this;
    }

    /** The target. */
    public RetrievalTarget build() {
      return new RetrievalTarget(this);
    }
  }
}
