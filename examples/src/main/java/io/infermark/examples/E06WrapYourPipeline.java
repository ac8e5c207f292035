package io.infermark.examples;

import io.infermark.attribution.phase.LatencyBasis;
import io.infermark.attribution.phase.LatencyPhase;
import io.infermark.attribution.phase.PhaseDecomposition;
import io.infermark.attribution.phase.RequestPhases;
import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.pipeline.Retrieval;
import io.infermark.core.pipeline.RetrievalTarget;
import io.infermark.core.pipeline.Retriever;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.metrics.otel.GenAiTelemetry;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * Example 06, wrap your own pipeline (seed 002 §2.2 and §4.2): a retrieval-augmented service is a
 * retrieval stage and then a generation call, and what users wait for is both. {@code RetrievalTarget}
 * makes the pair one {@code Target}: your {@code Retriever} runs first (here {@link KeywordRetriever}, a
 * small in-memory keyword index standing in for BM25 or a vector database), and the generation target
 * (the embedded simulator) answers with the retrieved passages in front of the question.
 *
 * <p>What the run shows:
 * <ul>
 *   <li>each record's phases begin with the retrieval stage ({@code RETRIEVAL_START} at the send,
 *       {@code RETRIEVAL_END}), so TTFT and E2E include it, and {@code PhaseDecomposition} with
 *       {@code LatencyBasis.SERVICE_TIME_WITH_RETRIEVAL} splits E2E into retrieval and the generation
 *       phases: here the tail is the queries whose passages sit in the index's cold archive tier
 *       ({@value #ARCHIVE_MS} ms to fetch);
 *   <li>recall@k per query against ground-truth ids ({@code retrieval.relevant} prompt tags): keyword
 *       search misses a question phrased without the documents' words;
 *   <li>one OpenTelemetry CLIENT span per request ({@code GenAiTelemetry}) carrying the stage as the
 *       events {@code infermark.retrieval.start} and {@code .end} and the attribute
 *       {@code infermark.retrieval.duration}; the time after the end event is generation. {@code main}
 *       exports to the global OpenTelemetry (a no-op unless an SDK or the Java agent is installed, see
 *       E07); the test exports to an in-memory exporter and checks the spans.
 * </ul>
 *
 * <p>Run it with {@code java -cp examples/target/infermark-quickstart.jar io.infermark.examples.E06WrapYourPipeline}
 * (a few seconds).
 */
public final class E06WrapYourPipeline {

  static final int REQUESTS = 40;
  static final int WARMUP = 4;
  static final int TOP_K = 2;
  /** What fetching a passage from the index's cold archive tier costs, at least. */
  static final int ARCHIVE_MS = 60;
  /** Prompt tag: the question's position in {@link #QUESTIONS}. */
  static final String QUESTION_TAG = "question";
  /** Record tag the retriever adds: {@code hot} or {@code archive}, the tier its passages came from. */
  static final String TIER_TAG = "retrieval.tier";

  /** The corpus: id, text, and whether the passage is in the cold archive tier. */
  static final List<Document> CORPUS = List.of(
      new Document("d1", "Reset your password from the account page: open Security, then Reset password.", false),
      new Document("d2", "Passwords need twelve characters and at least one digit.", false),
      new Document("d3", "Refunds are paid to the original card within five business days.", false),
      new Document("d4", "To cancel a subscription open Billing and choose Cancel plan.", false),
      new Document("d5", "Invoices of the last twelve months are under Billing, Invoices.", false),
      new Document("d6", "Archived invoices, older than twelve months, are kept in cold storage.", true),
      new Document("d7", "The support line is open from 8 to 18 on weekdays.", false));

  /** The questions with their ground-truth documents, asked in turn. */
  static final Map<String, String> QUESTIONS = questions();

  private E06WrapYourPipeline() {}

  private static Map<String, String> questions() {
    Map<String, String> q = new LinkedHashMap<>();
    q.put("How do I reset my password?", "d1,d2");
    q.put("When will my refund arrive?", "d3");
    q.put("How can I cancel my subscription?", "d4");
    q.put("Where are my archived invoices?", "d5,d6");
    q.put("Can I get my money back?", "d3"); // no word in common with d3: keyword search misses it
    return q;
  }

  /** A passage of the corpus. */
  record Document(String id, String text, boolean archived) {}

  /** What the example found, for its test. */
  record Result(RunResult run, PhaseDecomposition phases) {}

  /** Runs the example against the embedded simulator, spans to the global OpenTelemetry. */
  public static void main(String[] args) {
    E05WhyP99Moved.quietSimulator();
    run(System.out, GlobalOpenTelemetry.get());
  }

  static Result run(PrintStream out, OpenTelemetry openTelemetry) {
    SimulatorConfig config = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(10))
        .interTokenInterval(Duration.ofMillis(2)).seed(6).build();
    List<Prompt> prompts = new ArrayList<>();
    int next = 0;
    for (Map.Entry<String, String> q : QUESTIONS.entrySet()) {
      prompts.add(Prompt.user(q.getKey()).withTag(RetrievalTarget.RELEVANT_TAG, q.getValue())
          .withTag(QUESTION_TAG, Integer.toString(next++)));
    }
    RunResult run;
    try (Simulator sim = Simulator.start(config);
        RetrievalTarget pipeline = RetrievalTarget.builder(
            OpenAiTarget.chat(sim.baseUrl() + "/v1", config.model()).build(), new KeywordRetriever(CORPUS))
            .topK(TOP_K).build()) {
      GenAiTelemetry spans = GenAiTelemetry.builder(openTelemetry).operation("chat").model(config.model())
          .server("127.0.0.1", sim.port()).build();
      run = Benchmark.target(pipeline).prompts(prompts)
          .params(GenerationParams.builder().maxTokens(16).ignoreEos(true).build())
          .load(LoadProfile.concurrency(4).requests(REQUESTS).warmupRequests(WARMUP))
          .listener(spans)
          .run();
    }

    out.println("Recall@" + TOP_K + " per question (retrieved ids vs the relevant ones):");
    List<String> questions = List.copyOf(QUESTIONS.keySet());
    for (int i = 0; i < questions.size(); i++) {
      String position = Integer.toString(i);
      String question = questions.get(i);
      run.measured().stream().filter(r -> position.equals(r.tags().get(QUESTION_TAG))).findFirst().ifPresent(r -> {
        String retrieved = r.tags().get(RetrievalTarget.RETRIEVED_TAG);
        out.printf(Locale.ROOT, "  %-34s relevant %-6s retrieved %-6s recall %.2f (%s tier)%n", question,
            r.tags().get(RetrievalTarget.RELEVANT_TAG), retrieved.isEmpty() ? "-" : retrieved,
            RetrievalTarget.recallAtK(r).orElse(Double.NaN), r.tags().get(TIER_TAG));
      });
    }
    double meanRecall = run.measured().stream().mapToDouble(r -> RetrievalTarget.recallAtK(r).orElse(0))
        .average().orElse(Double.NaN);
    out.printf(Locale.ROOT, "  mean recall@%d over %d requests: %.3f%n%n", TOP_K, run.measured().size(), meanRecall);

    PhaseDecomposition phases = PhaseDecomposition.of(run, LatencyBasis.SERVICE_TIME_WITH_RETRIEVAL);
    out.println("Where the time went (service time; retrieval is the pipeline's own stage):");
    out.println(phases.table(0.5, 0.9));

    RequestPhases slowest = phases.requests().stream().max(Comparator.comparingLong(RequestPhases::totalNanos))
        .orElseThrow();
    double retrieval = slowest.millis(LatencyPhase.RETRIEVAL);
    out.printf(Locale.ROOT, "Slowest request #%d: %.1f ms = retrieval %.1f ms + generation %.1f ms%n",
        slowest.index(), slowest.totalMillis(), retrieval, slowest.totalMillis() - retrieval);
    out.println("Each request's OpenTelemetry span carries the stage as events " + GenAiTelemetry.RETRIEVAL_START_EVENT
        + " / " + GenAiTelemetry.RETRIEVAL_END_EVENT + " and " + GenAiTelemetry.RETRIEVAL_DURATION + ".");
    if (run.clientHealth().isWarning()) {
      out.printf(Locale.ROOT, "WARNING: the client did not keep up; differences below %.1f ms are its noise%n",
          run.clientHealth().floorMillis());
    }
    return new Result(run, phases);
  }

  /**
   * A user-supplied retriever: an in-memory keyword index. A document's score for a query is the
   * number of distinct query terms it contains (terms: lower-case words of 3+ letters, a trailing
   * {@code s} dropped, a few stop words left out); the top {@code k} documents with a score above 0
   * are returned, best first, ties in corpus order. Passages in the archive tier take
   * {@value E06WrapYourPipeline#ARCHIVE_MS} ms or more to fetch. Immutable, so thread-safe.
   */
  static final class KeywordRetriever implements Retriever {
    private static final Set<String> STOP = Set.of("how", "the", "and", "can", "are", "what", "when", "where",
        "will", "your", "from", "then", "get");
    private final List<Document> corpus;
    private final List<Set<String>> terms = new ArrayList<>();

    KeywordRetriever(List<Document> corpus) {
      this.corpus = List.copyOf(corpus);
      for (Document d : this.corpus) {
        terms.add(terms(d.text()));
      }
    }

    static Set<String> terms(String text) {
      Set<String> out = new LinkedHashSet<>();
      for (String w : text.toLowerCase(Locale.ROOT).split("[^a-z]+")) {
        String t = w.endsWith("s") && w.length() > 3 ? w.substring(0, w.length() - 1) : w;
        if (t.length() >= 3 && !STOP.contains(t)) {
          out.add(t);
        }
      }
      return out;
    }

    @Override
    public Retrieval retrieve(String query, int k) {
      Set<String> q = terms(query);
      List<int[]> scored = new ArrayList<>();
      for (int i = 0; i < corpus.size(); i++) {
        int score = 0;
        for (String t : q) {
          if (terms.get(i).contains(t)) {
            score++;
          }
        }
        if (score > 0) {
          scored.add(new int[] {i, score});
        }
      }
      scored.sort((a, b) -> a[1] != b[1] ? Integer.compare(b[1], a[1]) : Integer.compare(a[0], b[0]));
      List<String> ids = new ArrayList<>();
      List<String> passages = new ArrayList<>();
      boolean archive = false;
      for (int j = 0; j < Math.min(k, scored.size()); j++) {
        Document d = corpus.get(scored.get(j)[0]);
        ids.add(d.id());
        passages.add(d.text());
        archive |= d.archived();
      }
      if (archive) { // the cold tier: park until at least ARCHIVE_MS have passed
        long end = System.nanoTime() + ARCHIVE_MS * 1_000_000L;
        for (long left; (left = end - System.nanoTime()) > 0; ) {
          LockSupport.parkNanos(left);
        }
      }
      return new Retrieval(ids, passages, Map.of(TIER_TAG, archive ? "archive" : "hot"));
    }

    @Override
    public String toString() {
      return "KeywordRetriever[" + corpus.size() + " documents]";
    }
  }
}
