package io.infermark.testkit.simulator;

import io.infermark.core.pipeline.Retrieval;
import io.infermark.core.pipeline.RetrievalTarget;
import io.infermark.core.pipeline.Retriever;
import io.infermark.core.request.Prompt;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A simulated vector search for retrieval pipelines, whose latency and recall degrade with load
 * (seed 003 §4.2), with known ground truth.
 *
 * <pre>{@code
 * SimulatedVectorIndex index = SimulatedVectorIndex.builder().baseLatency(Duration.ofMillis(5))
 *     .latencyPerInFlight(Duration.ofMillis(2)).recallDropPerInFlight(0.1).build();
 * Target rag = RetrievalTarget.builder(generation, index).topK(4).build();
 * List<Prompt> prompts = index.prompts(100); // tagged with their relevant ids
 * }</pre>
 *
 * <p>Model. The corpus is {@code corpusSize} documents {@code doc-0 … doc-(N-1)}. Every query has
 * {@code relevantPerQuery} ({@code G}) relevant documents, chosen by hashing the query with the
 * seed. A search sees {@code n} searches in flight (itself included) when it starts; it then
 * <ul>
 *   <li>takes {@code baseLatency + latencyPerInFlight × (n − 1)} (it parks until then), and
 *   <li>finds {@code round(G × recall(n))} of the relevant documents (half up), with
 *       {@code recall(n) = max(minRecall, baseRecall − recallDropPerInFlight × (n − 1) − recallDropPerWrite × w)},
 *       {@code w} the documents {@link #write written} since the last {@link #rebalance()} [drop 0: load only], in
 *       their relevance order, and
 *   <li>ranks {@code displaced(n) = min(k, rankDropPerInFlight × (n − 1))} non-relevant documents
 *       above them [0 per search: the relevant ones come first], then as many found relevant ones as
 *       fit in the {@code k} results, then non-relevant ones.
 * </ul>
 * So with {@code k ≥ G} and no rank drop a request's recall@k is exactly {@code round(G × recall(n)) / G}:
 * with G = 4, base recall 1 and a drop of 0.1, one search in flight finds 4 of 4 (1.0), three find
 * round(3.2) = 3 (0.75). In general it is {@code min(found(n), k − displaced(n)) / G}, and the first
 * relevant document is at rank {@code displaced(n) + 1} when any fits (so its reciprocal rank, and the
 * Top-3 MRR term, is {@code 1 / (displaced(n) + 1)} when that rank is at most 3, else 0). Each result carries {@code retrieval.in_flight} ({@code n}) and
 * {@code retrieval.sim_recall} ({@code recall(n)}) as record annotations, and {@code retrieval.writes} ({@code w})
 * when writes degrade it. Seed 003 §4.2 degrades its index by writes over time ("FAISS IVF-PQ索引在持续写入72小时后
 * Top-10召回率从92.3%断崖式跌至61.7%而QPS无明显波动", recall falling after 72 hours of writes while QPS stays flat) and
 * recovers it by retraining ({@code index.train}): {@link #write} and {@link #rebalance} model both. Thread-safe.
 */
public final class SimulatedVectorIndex implements Retriever {

  /** Record tag: the searches in flight the search saw when it started, itself included. */
  public static final String IN_FLIGHT_TAG = "retrieval.in_flight";
  /** Record tag: the recall the model gave the search. */
  public static final String RECALL_TAG = "retrieval.sim_recall";
  /** Record tag: documents written since the last rebalance when the search ran (with a write drop set). */
  public static final String WRITES_TAG = "retrieval.writes";

  private final int corpusSize;
  private final int relevantPerQuery;
  private final long baseNanos;
  private final long perInFlightNanos;
  private final double baseRecall;
  private final double dropPerInFlight;
  private final double minRecall;
  private final double dropPerWrite;
  private final java.util.concurrent.atomic.AtomicLong writes = new java.util.concurrent.atomic.AtomicLong();
  private final int rankDrop;
  private final long seed;
  private final AtomicInteger inFlight = new AtomicInteger();

  private SimulatedVectorIndex(Builder b) {
    this.corpusSize = b.corpusSize;
    this.relevantPerQuery = b.relevantPerQuery;
    this.baseNanos = b.baseLatency.toNanos();
    this.perInFlightNanos = b.latencyPerInFlight.toNanos();
    this.baseRecall = b.baseRecall;
    this.dropPerInFlight = b.dropPerInFlight;
    this.minRecall = b.minRecall;
    this.dropPerWrite = b.dropPerWrite;
    this.rankDrop = b.rankDrop;
    this.seed = b.seed;
  }

  /** A builder with: 10,000 documents, 4 relevant per query, 5 ms + 1 ms per search in flight, recall 1 − 0.05 per search in flight, at least 0.25. */
  public static Builder builder() {
    return new Builder();
  }

  /** The relevant document ids of {@code query}, most relevant first. */
  public List<String> relevant(String query) {
    Set<String> ids = new LinkedHashSet<>();
    long h = Mix.mix64(seed, query.hashCode()) ^ query.length();
    for (int i = 0; ids.size() < relevantPerQuery; i++) {
      ids.add("doc-" + Math.floorMod(Mix.mix64(h, i), corpusSize));
    }
    return List.copyOf(ids);
  }

  /** The recall the model gives a search that sees {@code n} searches in flight, at the writes so far. */
  public double recall(int n) {
    return recall(n, writes.get());
  }

  private double recall(int n, long written) {
    return Math.max(minRecall, baseRecall - dropPerInFlight * (n - 1) - dropPerWrite * written);
  }

  /**
   * Inserts {@code documents} into the index without retraining it: each costs {@code recallDropPerWrite} of
   * recall until {@link #rebalance()}.
   *
   * @throws IllegalArgumentException if documents is negative
   */
  public void write(long documents) {
    if (documents < 0) {
      throw new IllegalArgumentException("documents must be >= 0, was " + documents);
    }
    writes.addAndGet(documents);
  }

  /** Documents written since the last rebalance. */
  public long writes() {
    return writes.get();
  }

  /** Retrains the index (seed 003 §4.2's {@code index.train}): writes no longer cost recall. */
  public void rebalance() {
    writes.set(0);
  }

  /** The latency the model gives a search that sees {@code n} searches in flight. */
  public Duration latency(int n) {
    return Duration.ofNanos(baseNanos + perInFlightNanos * (n - 1));
  }

  /** How many relevant documents a search that sees {@code n} searches in flight finds: round(G × recall(n)). */
  public int found(int n) {
    return (int) Math.floor(relevantPerQuery * recall(n) + 0.5);
  }

  /** How many non-relevant documents a search that sees {@code n} in flight ranks first, of {@code k} results. */
  public int displaced(int n, int k) {
    return (int) Math.min(k, (long) rankDrop * (n - 1));
  }

  /**
   * {@code count} distinct queries as chat prompts, each tagged with its ground truth
   * ({@link RetrievalTarget#RELEVANT_TAG}).
   */
  public List<Prompt> prompts(int count) {
    List<Prompt> out = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      String q = "Question " + i + ": what does document set " + Long.toHexString(Mix.mix64(seed, i)) + " say?";
      out.add(Prompt.user(q).withTag(RetrievalTarget.RELEVANT_TAG, String.join(",", relevant(q))));
    }
    return List.copyOf(out);
  }

  /**
   * What a perfect retrieval would put in front of {@code query}, one of {@link #prompts(int)}: its relevant
   * documents' passages, formatted as {@link RetrievalTarget#context} formats them for the generation call (the
   * reference answer of a model that answers from its context). Strip it to compare with a system message.
   *
   * @throws IllegalArgumentException if the prompt has no {@link RetrievalTarget#RELEVANT_TAG}
   */
  public String reference(Prompt query) {
    String relevant = query.tags().get(RetrievalTarget.RELEVANT_TAG);
    if (relevant == null || relevant.isEmpty()) {
      throw new IllegalArgumentException("the prompt has no " + RetrievalTarget.RELEVANT_TAG + " tag: not one of "
          + "this index's prompts(n)");
    }
    List<String> ids = List.of(relevant.split(","));
    return RetrievalTarget.context(ids, ids.stream().map(SimulatedVectorIndex::passage).toList());
  }

  /** The text of document {@code id}. */
  private static String passage(String id) {
    return "Passage of " + id + ".";
  }

  @Override
  public Retrieval retrieve(String query, int k) {
    Objects.requireNonNull(query, "query");
    int n = inFlight.incrementAndGet();
    try {
      long deadline = System.nanoTime() + baseNanos + perInFlightNanos * (n - 1);
      for (long left; (left = deadline - System.nanoTime()) > 0; ) {
        LockSupport.parkNanos(left);
      }
      List<String> truth = relevant(query);
      int displaced = displaced(n, k);
      long written = writes.get();
      double recall = recall(n, written);
      int hits = Math.max(0, Math.min((int) Math.floor(relevantPerQuery * recall + 0.5), k - displaced));
      Set<String> relevantSet = Set.copyOf(truth);
      List<String> distractors = new ArrayList<>();
      long h = Mix.mix64(seed ^ 0x5bd1e995L, query.hashCode());
      for (int i = 0; distractors.size() < Math.min(k, corpusSize - relevantPerQuery); i++) {
        String id = "doc-" + Math.floorMod(Mix.mix64(h, i), corpusSize);
        if (!relevantSet.contains(id) && !distractors.contains(id)) {
          distractors.add(id);
        }
      }
      List<String> ids = new ArrayList<>(distractors.subList(0, Math.min(displaced, distractors.size())));
      ids.addAll(truth.subList(0, hits));
      for (int i = displaced; ids.size() < k && i < distractors.size(); i++) {
        ids.add(distractors.get(i));
      }
      List<String> passages = ids.stream().map(SimulatedVectorIndex::passage).toList();
      return new Retrieval(ids, passages, dropPerWrite == 0
          ? Map.of(IN_FLIGHT_TAG, Integer.toString(n), RECALL_TAG, Double.toString(recall))
          : Map.of(IN_FLIGHT_TAG, Integer.toString(n), RECALL_TAG, Double.toString(recall), WRITES_TAG,
              Long.toString(written)));
    } finally {
      inFlight.decrementAndGet();
    }
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "SimulatedVectorIndex[%d docs, %d relevant/query, %.3f ms + %.3f ms/in flight, "
        + "recall %.3f - %.3f/in flight >= %.3f, rank drop %d/in flight, seed %d]", corpusSize, relevantPerQuery,
        baseNanos / 1e6, perInFlightNanos / 1e6, baseRecall, dropPerInFlight, minRecall, rankDrop, seed);
  }

  /** Collects a {@link SimulatedVectorIndex}'s parameters. */
  public static final class Builder {
    private int corpusSize = 10_000;
    private int relevantPerQuery = 4;
    private Duration baseLatency = Duration.ofMillis(5);
    private Duration latencyPerInFlight = Duration.ofMillis(1);
    private double baseRecall = 1.0;
    private double dropPerInFlight = 0.05;
    private double minRecall = 0.25;
    private double dropPerWrite;
    private int rankDrop;
    private long seed;

    private Builder() {}

    /**
     * Non-relevant documents ranked above the relevant ones per other search in flight, zero or more
     * [0]: what load does to ranking quality (Top-3 MRR) beside recall.
     */
    public Builder rankDropPerInFlight(int documents) {
      if (documents < 0) {
        throw new IllegalArgumentException("rankDropPerInFlight must be >= 0, was " + documents);
      }
      this.rankDrop = documents;
      return this;
    }

    /** Documents in the corpus, at least 2 × relevantPerQuery. */
    public Builder corpusSize(int documents) {
      this.corpusSize = documents;
      return this;
    }

    /** Relevant documents per query (G), at least 1. */
    public Builder relevantPerQuery(int g) {
      if (g < 1) {
        throw new IllegalArgumentException("relevantPerQuery must be at least 1, was " + g);
      }
      this.relevantPerQuery = g;
      return this;
    }

    /** Latency of a search alone, zero or more. */
    public Builder baseLatency(Duration d) {
      this.baseLatency = nonNegative(d, "baseLatency");
      return this;
    }

    /** Latency added per other search in flight, zero or more. */
    public Builder latencyPerInFlight(Duration d) {
      this.latencyPerInFlight = nonNegative(d, "latencyPerInFlight");
      return this;
    }

    /** Recall of a search alone, in (0, 1]. */
    public Builder baseRecall(double recall) {
      if (!(recall > 0 && recall <= 1)) {
        throw new IllegalArgumentException("baseRecall must be in (0, 1], was " + recall);
      }
      this.baseRecall = recall;
      return this;
    }

    /** Recall lost per other search in flight, in [0, 1]. */
    public Builder recallDropPerInFlight(double drop) {
      if (!(drop >= 0 && drop <= 1)) {
        throw new IllegalArgumentException("recallDropPerInFlight must be in [0, 1], was " + drop);
      }
      this.dropPerInFlight = drop;
      return this;
    }

    /** Recall lost per document {@link SimulatedVectorIndex#write written} since the last rebalance, >= 0 [0]. */
    public Builder recallDropPerWrite(double drop) {
      if (!(drop >= 0 && drop <= 1)) {
        throw new IllegalArgumentException("recallDropPerWrite must be in [0, 1], was " + drop);
      }
      this.dropPerWrite = drop;
      return this;
    }

    /** The recall floor, in [0, 1]. */
    public Builder minRecall(double recall) {
      if (!(recall >= 0 && recall <= 1)) {
        throw new IllegalArgumentException("minRecall must be in [0, 1], was " + recall);
      }
      this.minRecall = recall;
      return this;
    }

    /** Seed of the ground truth and the distractors. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    private static Duration nonNegative(Duration d, String name) {
      Objects.requireNonNull(d, name);
      if (d.isNegative()) {
        throw new IllegalArgumentException(name + " must be >= 0, was " + d);
      }
      return d;
    }

    /** The index. */
    public SimulatedVectorIndex build() {
      if (corpusSize < 2 * relevantPerQuery) {
        throw new IllegalArgumentException("corpusSize " + corpusSize + " must be at least 2 x relevantPerQuery ("
            + relevantPerQuery + ")");
      }
      if (minRecall > baseRecall) {
        throw new IllegalArgumentException("minRecall " + minRecall + " is above baseRecall " + baseRecall);
      }
      return new SimulatedVectorIndex(this);
    }
  }
}
