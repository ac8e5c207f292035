package io.infermark.perturbation.validate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.perturbation.PerturbationSpace;
import io.infermark.perturbation.TestRecords;
import io.infermark.perturbation.Variant;
import io.infermark.perturbation.design.Designs;
import io.infermark.perturbation.operator.SchemaMutation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

class ValidatorsTest {

  static final String SCHEMA = """
      {"type":"object","properties":{"order_id":{"type":"string","pattern":"^ORDER-\\\\d{6}$"},
       "total":{"type":"number","minimum":0}},"required":["order_id","total"],"additionalProperties":false}""";

  @Test
  void jsonSchemaAcceptsConformingJsonEvenInsideFencesAndProse() {
    ResponseValidator v = Validators.jsonSchema(SCHEMA);
    assertThat(v.validate("{\"order_id\":\"ORDER-123456\",\"total\":12.5}").valid()).isTrue();
    assertThat(v.validate("Here you go:\n```json\n{\"order_id\":\"ORDER-000001\",\"total\":0}\n```").valid())
        .isTrue();
    assertThat(v.validate("Result: {\"order_id\":\"ORDER-000001\",\"total\":3} done").valid()).isTrue();
  }

  @Test
  void jsonSchemaRejectsWithTheSchemaErrors() {
    ResponseValidator v = Validators.jsonSchema(SCHEMA);
    Verdict missing = v.validate("{\"order_id\":\"ORDER-123456\"}");
    assertThat(missing.valid()).isFalse();
    assertThat(missing.reason().orElseThrow()).contains("total");
    Verdict pattern = v.validate("{\"order_id\":\"ORD-1\",\"total\":1}");
    assertThat(pattern.reason().orElseThrow()).contains("order_id");
    assertThat(v.validate("{\"order_id\":\"ORDER-123456\",\"total\":-1}").valid()).isFalse();
    assertThat(v.validate("{\"order_id\":\"ORDER-123456\",\"total\":1,\"x\":1}").valid()).isFalse();
    assertThat(v.validate("no json here").reason().orElseThrow()).contains("no JSON in the response");
    assertThatThrownBy(() -> Validators.jsonSchema("{not json")).hasMessageContaining("not valid JSON");
  }

  @Test
  void regexFindsOrderIdsInTheWholeTextOrMatchesAFieldEntirely() {
    ResponseValidator whole = Validators.regex("ORDER-\\d{6}");
    assertThat(whole.validate("Your order ORDER-123456 shipped.").valid()).isTrue();
    assertThat(whole.validate("Your order ORDER-12345 shipped.").valid()).isFalse();
    ResponseValidator field = Validators.regexField("/order/id", "ORDER-\\d{6}");
    assertThat(field.validate("{\"order\":{\"id\":\"ORDER-654321\"}}").valid()).isTrue();
    assertThat(field.validate("{\"order\":{\"id\":\"ORDER-654321x\"}}").valid()).isFalse();
    assertThat(field.validate("{\"order\":{}}").reason().orElseThrow()).contains("no JSON field /order/id");
    assertThatThrownBy(() -> Validators.regexField("order", "x")).hasMessageContaining("'order'");
  }

  @Test
  void numericRangesIncludeTheirBounds() {
    ResponseValidator whole = Validators.numericRange(1, 5);
    assertThat(whole.validate(" 1 ").valid()).isTrue();
    assertThat(whole.validate("5.0").valid()).isTrue();
    assertThat(whole.validate("5.01").valid()).isFalse();
    assertThat(whole.validate("five").reason().orElseThrow()).contains("not a number");
    ResponseValidator field = Validators.numericRange("/score", 0, 10);
    assertThat(field.validate("{\"score\": 10}").valid()).isTrue();
    assertThat(field.validate("{\"score\": \"7\"}").valid()).isTrue();
    assertThat(field.validate("{\"score\": 11}").reason().orElseThrow()).contains("11.0 outside [0.0, 10.0]");
    assertThatThrownBy(() -> Validators.numericRange(2, 1)).hasMessageContaining("[2.0, 1.0]");
  }

  @Test
  void exactPredicatesAndConjunctions() {
    assertThat(Validators.exact("Paris").validate("  Paris\n").valid()).isTrue();
    assertThat(Validators.exact("Paris").validate("paris").valid()).isFalse();
    ResponseValidator shortAnswer = Validators.predicate("at most 5 words", s -> s.split("\\s+").length <= 5);
    assertThat(shortAnswer.validate("one two three four five six").reason().orElseThrow()).contains("at most 5 words");
    ResponseValidator both = Validators.allOf(Validators.regex("^Paris"), shortAnswer);
    assertThat(both.validate("Paris is it").valid()).isTrue();
    assertThat(both.validate("It is Paris").reason().orElseThrow()).contains("no match");
  }

  @Test
  void responseFormatCarriesTheSameSchema() throws Exception {
    var schema = new ObjectMapper().readTree(SCHEMA);
    GenerationParams p = ResponseFormat.apply(GenerationParams.builder().maxTokens(10).build(), "order", schema);
    String body = new ObjectMapper().writeValueAsString(p.extraBody());
    assertThat(new ObjectMapper().readTree(body)).isEqualTo(new ObjectMapper().readTree(
        "{\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"order\",\"schema\":" + SCHEMA
            + ",\"strict\":true}}}"));
    assertThat(p.maxTokens()).hasValue(10);
    assertThatThrownBy(() -> ResponseFormat.jsonSchema("bad name", schema, true)).hasMessageContaining("'bad name'");
  }

  @Test
  void validityIsAPredicateThatCountsFailuresAsInvalid() {
    Predicate<RequestRecord> validity = Validity.of(Validators.regex("ORDER-\\d{6}"));
    assertThat(validity.test(TestRecords.ok(0, Map.of(), "ORDER-111111", 10, 20, 3))).isTrue();
    assertThat(validity.test(TestRecords.ok(1, Map.of(), "nothing", 10, 20, 3))).isFalse();
    assertThat(validity.test(TestRecords.failed(2, Map.of()))).isFalse();
    assertThat(Validity.of(Validators.regex("x")).verdict(TestRecords.failed(2, Map.of())).reason())
        .contains("request failed: HTTP_STATUS");
    RequestRecord noText = TestRecords.ok(3, Map.of(), "x", 1, 2, 1).toBuilder().text(Optional.empty()).build();
    assertThatThrownBy(() -> validity.test(noText)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("captureText(true)");
  }

  @Test
  void perVariantValidityChecksEachVariantAgainstItsOwnSchema() {
    PerturbationSpace space = PerturbationSpace.builder(Prompt.user("Return the order as JSON."))
        .outputSchema(SCHEMA).dimension("schema", SchemaMutation.of(0, 3)).build();
    List<Variant> variants = space.variants(Designs.fullFactorial(2), 3);
    Validity validity = Validity.perVariant(variants, v -> Validators.jsonSchema(v.outputSchema().orElseThrow()));
    String original = "{\"order_id\":\"ORDER-123456\",\"total\":1}";
    Map<String, String> v0 = variants.get(0).prompt().tags();
    Map<String, String> v1 = variants.get(1).prompt().tags();
    assertThat(validity.test(TestRecords.ok(0, v0, original, 1, 2, 1))).isTrue();
    // The mutated schema (three structural changes) no longer accepts the original shape.
    boolean mutatedAccepts = Validators.jsonSchema(variants.get(1).outputSchema().orElseThrow())
        .validate(original).valid();
    assertThat(validity.test(TestRecords.ok(1, v1, original, 1, 2, 1))).isEqualTo(mutatedAccepts);
    assertThatThrownBy(() -> validity.test(TestRecords.ok(2, Map.of("variant", "7"), original, 1, 2, 1)))
        .hasMessageContaining("'7'");
  }

  @Test
  void correctnessRatesByRunClassVariantAndLevel() {
    List<RequestRecord> records = new ArrayList<>();
    // variant 0 (class a, level.x=0): 3 valid of 4 (one failure); variant 1 (class b, level.x=1): 1 of 2
    Map<String, String> t0 = Map.of("variant", "0", "class", "a", "level.x", "0", "level.y", "1");
    Map<String, String> t1 = Map.of("variant", "1", "class", "b", "level.x", "1", "level.y", "1");
    records.add(TestRecords.ok(0, t0, "ORDER-000001", 1, 2, 1));
    records.add(TestRecords.ok(1, t0, "ORDER-000002", 1, 2, 1));
    records.add(TestRecords.ok(2, t0, "ORDER-000003", 1, 2, 1));
    records.add(TestRecords.failed(3, t0));
    records.add(TestRecords.ok(4, t1, "ORDER-000004", 1, 2, 1));
    records.add(TestRecords.ok(5, t1, "nope", 1, 2, 1));
    records.add(TestRecords.ok(6, t1, "ORDER-000004", 1, 2, 1).toBuilder().warmup(true).build());
    CorrectnessReport report = CorrectnessReport.of(records, Validity.of(Validators.regex("ORDER-\\d{6}")));
    assertThat(report.overall()).isEqualTo(new Rate(4, 6));
    assertThat(report.overall().rate().getAsDouble()).isEqualTo(4 / 6.0);
    assertThat(report.byClass()).containsEntry("a", new Rate(3, 4)).containsEntry("b", new Rate(1, 2));
    assertThat(report.byVariant()).containsEntry("0", new Rate(3, 4)).containsEntry("1", new Rate(1, 2));
    assertThat(report.byLevel("x")).containsEntry(0, new Rate(3, 4)).containsEntry(1, new Rate(1, 2));
    assertThat(report.byLevel("y")).containsEntry(1, new Rate(4, 6));
    assertThat(report.dimensions()).containsExactly("x", "y");
    assertThat(report.table("x")).contains("75.0%").contains("50.0%");
    assertThatThrownBy(() -> report.byLevel("z")).hasMessageContaining("'z'");
    assertThat(new Rate(0, 0).rate()).isEmpty();
  }
}
