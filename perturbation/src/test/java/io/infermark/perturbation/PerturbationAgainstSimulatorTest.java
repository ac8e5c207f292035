package io.infermark.perturbation;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.perturbation.analysis.LevelTable;
import io.infermark.perturbation.consistency.ClassConsistency;
import io.infermark.perturbation.consistency.ConsistencyReport;
import io.infermark.perturbation.design.Design;
import io.infermark.perturbation.design.Designs;
import io.infermark.perturbation.operator.Noise;
import io.infermark.perturbation.operator.Padding;
import io.infermark.perturbation.operator.Paraphrase;
import io.infermark.perturbation.operator.Typos;
import io.infermark.perturbation.validate.CorrectnessReport;
import io.infermark.perturbation.validate.Rate;
import io.infermark.perturbation.validate.ResponseValidator;
import io.infermark.perturbation.validate.Validators;
import io.infermark.perturbation.validate.Validity;
import io.infermark.testkit.junit.SimulatorExtension;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** End to end: an L9 design of perturbed prompts, 20 requests each, against the simulator. */
class PerturbationAgainstSimulatorTest {

  // The simulator streams one vocabulary word per token; some requests fail with HTTP 500.
  private static final SimulatorConfig CONFIG = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(3))
      .interTokenInterval(Duration.ofMillis(1)).serverErrors(0.1).seed(3).build();

  @RegisterExtension
  static final SimulatorExtension SIMULATOR = SimulatorExtension.withConfig(CONFIG);

  private static final int TOKENS = 16;

  @Test
  void nineVariantsTimesTwentyRequestsGivePerLevelLatencyAndCorrectnessTables(Simulator sim) {
    PerturbationSpace space = PerturbationSpace.builder(
            Prompt.user("Look up order ORDER-123456 and report its status in one short line."))
        .dimension("typos", Typos.budgets(0, 1, 3))
        .dimension("noise", Noise.rates(0, 0.1, 0.3))
        .dimension("padding", Padding.toTokens(TokenCounter.estimate(), 0, 64, 256))
        .dimension("paraphrase", Paraphrase.templates("{text}", "Please help: {text}", "{text}\n\nThanks."))
        .build();
    Design l9 = Designs.orthogonalArray(space.levelCounts());
    assertThat(l9.runs()).isEqualTo(9);
    List<Prompt> prompts = space.prompts(l9, 42);

    RunResult run;
    try (OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", sim.config().model()).build()) {
      run = Benchmark.target(target).prompts(prompts)
          .params(GenerationParams.builder().maxTokens(TOKENS).ignoreEos(true).build())
          .captureText(true).load(LoadProfile.concurrency(6).requests(180)).run();
    }
    assertThat(run.measured()).hasSize(180);

    // Valid: exactly 16 words, each 1-6 lowercase letters (the simulator's vocabulary).
    ResponseValidator sixteenWords = Validators.allOf(Validators.regex("^( [a-z]{1,6}){16}$"),
        Validators.predicate("16 words", s -> s.strip().split(" ").length == TOKENS));
    Validity validity = Validity.of(sixteenWords);
    long failed = run.measured().stream().filter(r -> !r.succeeded()).count();
    assertThat(failed).as("server errors at 10%").isBetween(1L, 60L);

    CorrectnessReport correctness = CorrectnessReport.of(run, validity);
    assertThat(correctness.overall()).isEqualTo(new Rate(180 - failed, 180));
    assertThat(correctness.byVariant()).hasSize(9).allSatisfy((v, rate) -> assertThat(rate.total()).isEqualTo(20));

    for (String dimension : List.of("typos", "noise", "padding", "paraphrase")) {
      LevelTable table = LevelTable.of(run, dimension, validity);
      assertThat(table.rows()).hasSize(3);
      Map<Integer, Rate> rates = correctness.byLevel(dimension);
      for (LevelTable.Row row : table.rows()) {
        // L9 is balanced: each level is in 3 variants x 20 requests.
        assertThat(row.requests()).isEqualTo(60);
        List<RequestRecord> atLevel = run.measured().stream()
            .filter(r -> r.tags().get("level." + dimension).equals(Integer.toString(row.level()))).toList();
        long ok = atLevel.stream().filter(RequestRecord::succeeded).count();
        assertThat(row.failed()).isEqualTo(60 - ok);
        assertThat(row.validRate().getAsDouble()).isEqualTo(ok / 60.0);
        assertThat(rates.get(row.level())).isEqualTo(new Rate(ok, 60));
        // 16 tokens one millisecond apart after a 3 ms first token: E2E is at least 18 ms.
        assertThat(row.ttftP50Ms().getAsDouble()).isGreaterThanOrEqualTo(3.0);
        assertThat(row.e2eP50Ms().getAsDouble()).isGreaterThanOrEqualTo(18.0)
            .isGreaterThan(row.ttftP50Ms().getAsDouble());
        assertThat(row.meanOutputTokens().getAsDouble()).isEqualTo(TOKENS);
      }
      assertThat(table.table().split("\n")).hasSize(4);
    }

    // Nothing here changes meaning: one equivalence class, whose consistency the report measures.
    ConsistencyReport consistency = ConsistencyReport.of(run);
    assertThat(consistency.classes()).containsOnlyKeys("base");
    ClassConsistency base = consistency.get("base").orElseThrow();
    assertThat(base.responses()).isEqualTo(180 - failed);
    assertThat(base.failed()).isEqualTo((int) failed);
    long modal = run.measured().stream().filter(RequestRecord::succeeded)
        .collect(java.util.stream.Collectors.groupingBy(r -> r.text().orElseThrow(),
            java.util.stream.Collectors.counting())).values().stream().mapToLong(Long::longValue).max().orElseThrow();
    assertThat(base.exactMatchRate()).isEqualTo(modal / (double) (180 - failed));
    assertThat(base.outputTokensVariance().getAsDouble()).isZero();

    // A JSON Schema validator rejects every response of a server that does not emit JSON.
    Validity json = Validity.of(Validators.jsonSchema("{\"type\":\"object\"}"));
    assertThat(CorrectnessReport.of(run, json).overall()).isEqualTo(new Rate(0, 180));
  }
}
