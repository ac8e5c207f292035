package io.infermark.perturbation.fidelity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import io.infermark.perturbation.TestRecords;
import io.infermark.testkit.simulator.PromptBehaviour;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Seed 003 §2.2's semantic-fidelity fuse: BERTScore below 0.75 trips it. */
class SemanticFidelityFuseTest {

  @Test
  void greedyTrigramF1MatchesWordsByTheirPaddedTrigrams() {
    SemanticScorer s = SemanticScorer.greedyTrigramF1();
    // "cat" = {^ca, cat, at$}, "cats" = {^ca, cat, ats, ts$}: 2 shared, cosine 2 / sqrt(12)
    assertThat(s.score("cat", "cats")).isCloseTo(2 / Math.sqrt(12), within(1e-12));
    assertThat(s.score("The cat sat.", "the CAT sat")).isEqualTo(1.0);
    assertThat(s.score("dog", "cat")).isZero();
    assertThat(s.score("", "cat")).isZero();
    // "the cat" against "the cats sat": precision (1 + 0.577) / 2; recall (1 + 0.577 + 1/3) / 3, "sat" sharing
    // at$ of 3 trigrams with "cat"
    double p = (1 + 2 / Math.sqrt(12)) / 2;
    double r = (1 + 2 / Math.sqrt(12) + 1 / 3.0) / 3;
    assertThat(s.score("the cat", "the cats sat")).isCloseTo(2 * p * r / (p + r), within(1e-12));
  }

  /** Answers whose text is their own score, for a scorer that reads it back. */
  private static List<RequestRecord> answers(double... scores) {
    List<RequestRecord> out = new ArrayList<>();
    for (int i = 0; i < scores.length; i++) {
      out.add(TestRecords.ok(i, Map.of(SemanticFidelityFuse.REFERENCE_TAG, "reference"), Double.toString(scores[i]),
          1, 2, 1).toBuilder().sendNanos(i * 1_000_000L).build());
    }
    return out;
  }

  private static final SemanticScorer READ_BACK = (candidate, reference) -> Double.parseDouble(candidate);

  @Test
  void theFuseTripsAtTheFirstAnswerBelowTheSeedsThreshold() {
    // The seed's table: BertScore 0.87 at 50 concurrent, 0.81 at 200; both hold. 0.74 trips the fuse.
    FidelityVerdict held = SemanticFidelityFuse.of(READ_BACK).judge(answers(0.92, 0.87, 0.81, 0.75));
    assertThat(held.tripped()).isFalse();
    assertThat(held.meanScore()).isCloseTo((0.92 + 0.87 + 0.81 + 0.75) / 4, within(1e-12));
    assertThat(held.minScore()).isEqualTo(0.75);
    assertThat(held.belowThreshold()).isZero();

    FidelityVerdict v = SemanticFidelityFuse.of(READ_BACK).judge(answers(0.87, 0.81, 0.74, 0.70));
    assertThat(v.tripped()).isTrue();
    assertThat(v.trip().orElseThrow().index()).isEqualTo(2);
    assertThat(v.trip().orElseThrow().score()).isEqualTo(0.74);
    assertThat(v.belowThreshold()).isEqualTo(2);
    assertThat(v.toString()).contains("TRIPPED", "tripped at request #2 (0.740)");

    // Over two answers: means 0.84, 0.775, then (0.74 + 0.70) / 2 = 0.72 < 0.75 at the fourth.
    FidelityVerdict two = SemanticFidelityFuse.of(READ_BACK).window(2).judge(answers(0.87, 0.81, 0.74, 0.70));
    assertThat(two.trip().orElseThrow().index()).isEqualTo(3);
    assertThat(two.trip().orElseThrow().windowMean()).isCloseTo(0.72, within(1e-12));
  }

  @Test
  void failedRequestsAndAnswersWithoutAReferenceAreCountedNotScored() {
    List<RequestRecord> records = new ArrayList<>(answers(0.9));
    records.add(TestRecords.ok(1, Map.of(), "0.1", 1, 2, 1));
    assertThat(SemanticFidelityFuse.of(READ_BACK).judge(records)).satisfies(v -> {
      assertThat(v.scored()).isEqualTo(1);
      assertThat(v.unscored()).isEqualTo(1);
      assertThat(v.tripped()).isFalse();
    });
    RequestRecord noText = answers(0.9).get(0).toBuilder().text(Optional.empty()).build();
    assertThatThrownBy(() -> SemanticFidelityFuse.defaults().judge(List.of(noText)))
        .hasMessageContaining("captureText(true)");
    assertThatThrownBy(() -> SemanticFidelityFuse.of((c, r) -> 1.5).judge(answers(0.9)))
        .hasMessageContaining("must be in [0, 1]");
  }

  private static final String CONTEXT = "Refunds are possible within 30 days of purchase.";

  private static FidelityVerdict againstTheSimulator(PromptBehaviour behaviour) {
    // Each question carries its context as a system message and the context itself as the reference answer.
    Prompt p = Prompt.chat(Message.system(CONTEXT), Message.user("Can I get my money back?"))
        .withTag(SemanticFidelityFuse.REFERENCE_TAG, CONTEXT);
    try (Simulator sim = Simulator.start(SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(1))
        .interTokenInterval(Duration.ofMillis(1)).promptBehaviour(behaviour).build());
        OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", sim.config().model()).build()) {
      // 8 words of context, 8 tokens of answer.
      RunResult run = Benchmark.target(target).prompts(p).captureText(true)
          .params(GenerationParams.builder().maxTokens(8).ignoreEos(true).build())
          .load(LoadProfile.concurrency(2).requests(10)).run();
      return SemanticFidelityFuse.defaults().judge(run.measured());
    }
  }

  @Test
  void aModelAnsweringFromItsContextHoldsTheFuseAndOneIgnoringItTripsIt() {
    // echoContext: every answer is the context's 8 words, exactly the reference: score 1.
    FidelityVerdict faithful = againstTheSimulator(PromptBehaviour.echoContext());
    assertThat(faithful.scored()).isEqualTo(10);
    assertThat(faithful.meanScore()).isEqualTo(1.0);
    assertThat(faithful.tripped()).isFalse();
    // The default: vocabulary words ("the model token ..."), none shares a trigram with the context's words
    // except by chance; the first answer already scores below 0.75.
    FidelityVerdict unfaithful = againstTheSimulator(PromptBehaviour.ignorePrompts());
    assertThat(unfaithful.tripped()).isTrue();
    assertThat(unfaithful.trip().orElseThrow().score()).isLessThan(0.75);
    assertThat(unfaithful.belowThreshold()).isEqualTo(10);
  }
}
