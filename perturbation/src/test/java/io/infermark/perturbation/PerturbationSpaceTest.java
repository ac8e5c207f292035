package io.infermark.perturbation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Message;
import io.infermark.core.request.Prompt;
import io.infermark.core.tokens.TokenCounter;
import io.infermark.perturbation.design.Design;
import io.infermark.perturbation.design.Designs;
import io.infermark.perturbation.operator.Channel;
import io.infermark.perturbation.operator.Noise;
import io.infermark.perturbation.operator.Padding;
import io.infermark.perturbation.operator.PromptInjection;
import io.infermark.perturbation.operator.SchemaMutation;
import io.infermark.perturbation.operator.Typos;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PerturbationSpaceTest {

  static final String SCHEMA = """
      {"type":"object","properties":{"order_id":{"type":"string"},"total":{"type":"number"}},
       "required":["order_id","total"]}""";

  private static PerturbationSpace space() {
    return PerturbationSpace.builder(Prompt.user("Read the order and return order_id and total as JSON please."))
        .outputSchema(SCHEMA)
        .dimension("typos", Typos.budgets(0, 1, 3))
        .dimension("noise", Noise.rates(0, 0.1, 0.3))
        .dimension("injection", PromptInjection.bundled())
        .dimension("schema", SchemaMutation.of(0, 1, 2))
        .build();
  }

  @Test
  void applyingAPointIsDeterministicGivenTheSeed() {
    PerturbationSpace space = space();
    Variant a = space.apply(new int[] {2, 2, 1, 2}, 11);
    Variant b = space.apply(new int[] {2, 2, 1, 2}, 11);
    assertThat(a.prompt()).isEqualTo(b.prompt());
    assertThat(a.edits()).isEqualTo(b.edits());
    assertThat(a.outputSchema()).isEqualTo(b.outputSchema());
    assertThat(space.apply(new int[] {2, 2, 1, 2}, 12).prompt()).isNotEqualTo(a.prompt());
  }

  @Test
  void eachDimensionDrawsFromItsOwnStream() {
    PerturbationSpace space = space();
    // Changing the injection level leaves the typos the typo dimension made untouched.
    Variant plain = space.apply(new int[] {2, 0, 0, 0}, 5);
    Variant injected = space.apply(new int[] {2, 0, 3, 0}, 5);
    assertThat(injected.edits().stream().filter(e -> e.dimension().equals("typos")).toList())
        .isEqualTo(plain.edits());
  }

  @Test
  void variantsAreTaggedWithLevelsVariantAndClass() {
    PerturbationSpace space = space();
    Variant v = space.apply(new int[] {1, 0, 2, 1}, 3);
    Map<String, String> tags = v.prompt().tags();
    assertThat(tags).containsEntry("level.typos", "1").containsEntry("level.noise", "0")
        .containsEntry("level.injection", "2").containsEntry("level.schema", "1").containsEntry("variant", "0")
        .containsEntry("class", "base[injection=2;schema=1]");
    assertThat(v.preservesMeaning()).isFalse();
    Variant preserving = space.apply(new int[] {2, 2, 0, 0}, 3);
    assertThat(preserving.preservesMeaning()).isTrue();
    assertThat(preserving.classId()).isEqualTo("base");
    assertThat(preserving.prompt().messages()).hasSize(1);
  }

  @Test
  void baseClassTagPrefixesTheClass() {
    PerturbationSpace space = PerturbationSpace.builder(Prompt.text("Say hi.").withTag("class", "greeting"))
        .dimension("injection", PromptInjection.bundled()).build();
    assertThat(space.apply(new int[] {0}, 1).classId()).isEqualTo("greeting");
    assertThat(space.apply(new int[] {4}, 1).classId()).isEqualTo("greeting[injection=4]");
    assertThat(space.apply(new int[] {4}, 1).prompt().isChat()).isFalse();
  }

  @Test
  void channelIntensityWeighsLevelsByOperatorWeights() {
    PerturbationSpace space = space();
    Variant v = space.apply(new int[] {1, 2, 0, 2}, 3);
    // typos 1/2 × 1.0 + noise 2/2 × 1.0 + injection 0 + schema 2/2 × 0.2 = 1.7 text; schema 0.8 structure
    assertThat(v.intensity(Channel.TEXT)).isCloseTo(1.7, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(v.intensity(Channel.STRUCTURE)).isCloseTo(0.8, org.assertj.core.data.Offset.offset(1e-12));
  }

  @Test
  void schemaMutationsReachTheResponseFormat() {
    PerturbationSpace space = space();
    Variant v = space.apply(new int[] {0, 0, 0, 2}, 8);
    GenerationParams params = v.params(GenerationParams.defaults());
    @SuppressWarnings("unchecked")
    Map<String, Object> format = (Map<String, Object>) params.extraBody().get("response_format");
    assertThat(format).containsEntry("type", "json_schema");
    @SuppressWarnings("unchecked")
    Map<String, Object> jsonSchema = (Map<String, Object>) format.get("json_schema");
    assertThat(jsonSchema.get("schema").toString()).isEqualTo(
        new com.fasterxml.jackson.databind.ObjectMapper().convertValue(v.outputSchema().orElseThrow(), Map.class)
            .toString());
    assertThat(v.outputSchema()).isNotEqualTo(space.outputSchema());
  }

  @Test
  void chatPromptsPerturbTheLastUserMessageOnly() {
    Prompt chat = Prompt.chat(Message.system("You are terse and careful always."),
        Message.user("Explain batching in servers."), Message.assistant("Sure."),
        Message.user("Now explain caching in servers please."));
    PerturbationSpace space = PerturbationSpace.builder(chat).dimension("typos", Typos.budgets(0, 2)).build();
    Variant v = space.apply(new int[] {1}, 4);
    List<Message> m = v.prompt().messages();
    assertThat(m.subList(0, 3)).isEqualTo(chat.messages().subList(0, 3));
    assertThat(m.get(3).content()).isNotEqualTo(chat.messages().get(3).content());
    Variant first = PerturbationSpace.builder(chat).dimension("typos", Typos.budgets(0, 2)).perturbMessage(0).build()
        .apply(new int[] {1}, 4);
    assertThat(first.prompt().messages().get(0)).isNotEqualTo(chat.messages().get(0));
    assertThat(first.prompt().messages().subList(1, 4)).isEqualTo(chat.messages().subList(1, 4));
  }

  @Test
  void variantsFollowTheDesignRowByRow() {
    PerturbationSpace space = space();
    Design design = Designs.orthogonalArray(space.levelCounts());
    assertThat(design.runs()).isEqualTo(81);
    Design small = Designs.orthogonalArray(3, 3, 3, 3);
    PerturbationSpace four = PerturbationSpace.builder(Prompt.text("Count the apples in the basket and report."))
        .dimension("typos", Typos.budgets(0, 1, 2)).dimension("noise", Noise.rates(0, 0.2, 0.4))
        .dimension("padding", Padding.toTokens(TokenCounter.estimate(), 0, 50, 100))
        .dimension("typos2", Typos.budgets(0, 1, 2)).build();
    List<Variant> variants = four.variants(small, 1);
    assertThat(variants).hasSize(9);
    for (int i = 0; i < 9; i++) {
      assertThat(variants.get(i).levels()).isEqualTo(small.row(i));
      assertThat(variants.get(i).prompt().tags()).containsEntry("variant", Integer.toString(i));
    }
    assertThat(four.prompts(small, 1)).hasSize(9);
  }

  @Test
  void badPointsAndMissingSchemasAreRejected() {
    PerturbationSpace space = space();
    assertThatThrownBy(() -> space.apply(new int[] {0, 0}, 1)).hasMessageContaining("2 entries");
    assertThatThrownBy(() -> space.apply(new int[] {3, 0, 0, 0}, 1)).hasMessageContaining("'typos'")
        .hasMessageContaining("was 3");
    assertThatThrownBy(() -> PerturbationSpace.builder(Prompt.text("x")).dimension("s", SchemaMutation.of(0, 1))
        .build()).hasMessageContaining("outputSchema");
    assertThatThrownBy(() -> PerturbationSpace.builder(Prompt.text("x")).dimension("a", Typos.budgets(1))
        .dimension("a", Typos.budgets(2))).hasMessageContaining("already");
    assertThatThrownBy(() -> space.variants(Designs.fullFactorial(2, 2), 1)).hasMessageContaining("do not match");
    assertThat(space.size()).isEqualTo(3L * 3 * 9 * 3);
  }

  @Test
  void designsOfTheSameSizeCompareOnOneSpace() {
    PerturbationSpace four = PerturbationSpace.builder(Prompt.text("Count the apples in the basket and report."))
        .dimension("typos", Typos.budgets(0, 1, 2)).dimension("noise", Noise.rates(0, 0.2, 0.4))
        .dimension("padding", Padding.toTokens(TokenCounter.estimate(), 0, 50, 100))
        .dimension("typos2", Typos.budgets(0, 1, 2)).build();
    int[] l = four.levelCounts();
    var comparison = four.compare(7, List.of(Designs.orthogonalArray(l), Designs.random(9, 7, l),
        Designs.latinHypercube(9, 7, l), Designs.sobol(9, l)));
    assertThat(comparison.rows()).hasSize(4).allMatch(q -> q.runs() == 9 && q.diversity().isPresent());
    assertThat(comparison.rows().get(0).pairwiseCoverage()).isEqualTo(1.0);
    assertThat(comparison.rows().get(0).diversity().getAsDouble()).isBetween(0.0, 1.0);
    assertThat(comparison.table()).contains("diversity");
  }
}
