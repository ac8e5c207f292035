package io.infermark.benchmarks;

import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.perturbation.PerturbationSpace;
import io.infermark.perturbation.Variant;
import io.infermark.perturbation.design.Design;
import io.infermark.perturbation.design.Designs;
import io.infermark.perturbation.operator.Confusables;
import io.infermark.perturbation.operator.Lexicon;
import io.infermark.perturbation.operator.Noise;
import io.infermark.perturbation.operator.Padding;
import io.infermark.perturbation.operator.Reorder;
import io.infermark.perturbation.operator.Synonyms;
import io.infermark.perturbation.operator.Typos;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of perturbation: applying a level vector of six operators (typos, noise, synonyms,
 * confusables, reorder, padding) to a prompt of about {@value #PROMPT_TOKENS} tokens (target: under
 * 50 µs), and generating {@value #POINTS}-point Sobol and Latin hypercube designs over six
 * three-level factors.
 *
 * <p>For scale, {@link #countTokensOf2000TokenPrompt()} is one full {@link TokenCounter} pass over the
 * prompt: with an additive counter such as the estimate, padding no longer makes it per variant (the
 * base text is counted once per space and adjusted by the stretches earlier operators changed), but a
 * BPE counter still does. {@link #applyOneOperator(OneOperator)} applies each operator alone at level 1
 * to the base text.
 *
 * <p>Run: {@code java -jar benchmarks-jmh/target/benchmarks.jar Perturbation}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PerturbationBenchmark {

  static final int PROMPT_TOKENS = 2000;
  static final int POINTS = 10_000;
  static final int[] LEVELS = {3, 3, 3, 3, 3, 3};

  private PerturbationSpace space;
  private TokenCounter counter;
  private String prompt;
  private final int[] point = {1, 1, 1, 1, 1, 1};
  private long seed;

  @Setup(Level.Trial)
  public void setUp() {
    counter = TokenCounter.estimate();
    prompt = text(counter);
    space = space(prompt, counter);
  }

  static String text(TokenCounter counter) {
    StringBuilder text = new StringBuilder("Read the report below and list the main risk for order ORDER-123456. ");
    List<String> sentences = Padding.bundledDistractors();
    int i = 0;
    while (counter.count(text.toString()) < PROMPT_TOKENS) {
      text.append(sentences.get(i % sentences.size())).append(' ');
      if (i % 7 == 6) {
        text.append("The total was 3.14 units and the code `make test` said \"all clear\".\n\n");
      }
      i++;
    }
    return text.toString().strip();
  }

  static PerturbationSpace space(String prompt, TokenCounter counter) {
    Lexicon lexicon = Lexicon.parse("""
        river: stream, creek
        old: ancient, aged
        small: little, tiny
        keeps: holds, retains
        slowly: gradually
        main: key, principal
        risk: hazard, danger
        """);
    return PerturbationSpace.builder(Prompt.user(prompt))
        .dimension("typos", Typos.budgets(0, 8, 16))
        .dimension("noise", Noise.rates(0, 0.02, 0.05))
        .dimension("synonyms", Synonyms.of(lexicon, 0, 0.3, 0.6))
        .dimension("confusables", Confusables.rates(0, 0.01, 0.02))
        .dimension("reorder", Reorder.swaps(0, 3, 6))
        .dimension("padding", Padding.toTokens(counter, 0, PROMPT_TOKENS + 100, PROMPT_TOKENS + 400))
        .build();
  }

  /** One operator of the six alone (the others at level 0), on the 2,000-token base text. */
  @State(Scope.Thread)
  public static class OneOperator {
    @Param({"0", "1", "2", "3", "4", "5"})
    int dimension;
    PerturbationSpace space;
    int[] point;
    long seed;

    @Setup(Level.Trial)
    public void setUp() {
      TokenCounter counter = TokenCounter.estimate();
      space = space(text(counter), counter);
      point = new int[LEVELS.length];
      point[dimension] = 1;
    }
  }

  /** One variant at level 1 of all six dimensions, a new seed each time. */
  @Benchmark
  public Variant applySixOperatorsTo2000Tokens() {
    return space.apply(point, seed++);
  }

  /** Level 1 of one dimension only ({@code dimension} = 0 typos ... 5 padding). */
  @Benchmark
  public Variant applyOneOperator(OneOperator one) {
    return one.space.apply(one.point, one.seed++);
  }

  /** The token count of the 2,000-token prompt: the pass padding must make over its input. */
  @Benchmark
  public int countTokensOf2000TokenPrompt() {
    return counter.count(prompt);
  }

  /** A 10,000-point Sobol design over six three-level factors. */
  @Benchmark
  public Design sobol10k() {
    return Designs.sobol(POINTS, LEVELS);
  }

  /** A 10,000-point Latin hypercube over six three-level factors. */
  @Benchmark
  public Design latinHypercube10k() {
    return Designs.latinHypercube(POINTS, seed++, LEVELS);
  }
}
