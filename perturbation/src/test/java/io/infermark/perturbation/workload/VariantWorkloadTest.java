package io.infermark.perturbation.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.workload.RequestSpec;
import io.infermark.perturbation.PerturbationSpace;
import io.infermark.perturbation.Variant;
import io.infermark.perturbation.design.Designs;
import io.infermark.perturbation.operator.SchemaMutation;
import io.infermark.perturbation.operator.Typos;
import io.infermark.perturbation.validate.ResponseFormat;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class VariantWorkloadTest {

  static final String SCHEMA = """
      {"type":"object","properties":{"order_id":{"type":"string"},"total":{"type":"number"}},
       "required":["order_id","total"]}""";

  private static final GenerationParams DEFAULTS = GenerationParams.builder().maxTokens(32).build();

  private static List<Variant> variants() {
    PerturbationSpace space = PerturbationSpace.builder(
            Prompt.user("Read the order and return order_id and total as JSON please."))
        .outputSchema(SCHEMA)
        .dimension("typos", Typos.budgets(0, 1, 3))
        .dimension("schema", SchemaMutation.of(0, 1, 3))
        .build();
    return space.variants(Designs.fullFactorial(space.levelCounts()), 7);
  }

  private static List<String> variantTags(VariantWorkload w, int requests) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < requests; i++) {
      Prompt p = w.request(i, 0, DEFAULTS).prompt();
      out.add(p.tags().get(Variant.VARIANT_TAG) + "/" + p.tags().get(VariantWorkload.REPETITION_TAG));
    }
    return out;
  }

  @Test
  void interleavedSendsEveryVariantOncePerRound() {
    VariantWorkload w = VariantWorkload.of(variants().subList(0, 3)).repetitions(2);
    assertThat(w.size()).isEqualTo(6);
    assertThat(variantTags(w, 8)).containsExactly("0/0", "1/0", "2/0", "0/1", "1/1", "2/1", "0/2", "1/2");
  }

  @Test
  void blockedSendsEachVariantsRepetitionsInARow() {
    VariantWorkload w = VariantWorkload.of(variants().subList(0, 3)).repetitions(2)
        .order(VariantWorkload.Order.BLOCKED);
    assertThat(variantTags(w, 8)).containsExactly("0/0", "0/1", "1/0", "1/1", "2/0", "2/1", "0/2", "0/3");
  }

  @Test
  void eachRequestCarriesItsVariantsPromptTagsAndResponseFormat() {
    List<Variant> variants = variants();
    VariantWorkload w = VariantWorkload.of(variants).repetitions(3);
    assertThat(w.distinctPrompts()).isEqualTo(9);
    for (int i = 0; i < w.size(); i++) {
      RequestSpec spec = w.request(i, 0, DEFAULTS);
      Variant v = variants.get(i % 9);
      assertThat(spec.prompt().text()).isEqualTo(v.prompt().text());
      assertThat(spec.prompt().tags()).containsAllEntriesOf(v.prompt().tags());
      assertThat(spec.params().maxTokens()).isEqualTo(DEFAULTS.maxTokens());
      assertThat(spec.params().extraBody().get(ResponseFormat.FIELD))
          .isEqualTo(ResponseFormat.jsonSchema("output", v.outputSchema().orElseThrow(), true));
    }
    // Schema-mutated variants send schemas of their own: more than one distinct response_format.
    assertThat(variants.stream().map(v -> w.request(v.index(), 0, DEFAULTS).params().extraBody()).distinct().count())
        .isGreaterThan(1);
  }

  @Test
  void aParamsRuleAdjustsEachVariantsParameters() {
    VariantWorkload w = VariantWorkload.of(variants())
        .params((v, defaults) -> defaults.toBuilder().temperature(0.5 * v.level(0)).build());
    assertThat(w.request(0, 0, DEFAULTS).params().temperature()).hasValue(0.0);
    assertThat(w.request(8, 0, DEFAULTS).params().temperature()).hasValue(1.0);
    assertThat(w.request(8, 0, DEFAULTS).params().extraBody()).isEmpty();
  }

  @Test
  void badArgumentsAreRejectedWithTheirNames() {
    assertThatThrownBy(() -> VariantWorkload.of(List.of())).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("variants");
    VariantWorkload w = VariantWorkload.of(variants());
    assertThatThrownBy(() -> w.repetitions(0)).hasMessageContaining("repetitions must be >= 1, was 0");
    assertThatThrownBy(() -> w.request(-1, 0, DEFAULTS)).hasMessageContaining("request index must be >= 0, was -1");
    assertThatThrownBy(() -> w.params((v, d) -> null).request(0, 0, DEFAULTS))
        .isInstanceOf(NullPointerException.class).hasMessageContaining("params rule returned null");
  }
}
