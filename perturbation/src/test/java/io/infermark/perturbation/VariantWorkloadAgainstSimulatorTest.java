package io.infermark.perturbation;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.StreamObserver;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.OpenAiTarget;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.InferenceRequest;
import io.infermark.core.request.Prompt;
import io.infermark.core.transport.Cancellation;
import io.infermark.perturbation.design.Designs;
import io.infermark.perturbation.operator.SchemaMutation;
import io.infermark.perturbation.operator.Typos;
import io.infermark.perturbation.validate.ResponseFormat;
import io.infermark.perturbation.workload.VariantWorkload;
import io.infermark.testkit.junit.SimulatorExtension;
import io.infermark.testkit.simulator.Simulator;
import io.infermark.testkit.simulator.SimulatorConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * End to end: 9 schema-mutated variants x 20 requests through a {@link VariantWorkload}; every
 * request reaches the target with its own variant's {@code response_format}.
 */
class VariantWorkloadAgainstSimulatorTest {

  private static final SimulatorConfig CONFIG = SimulatorConfig.builder().timeToFirstToken(Duration.ofMillis(2))
      .interTokenInterval(Duration.ofMillis(1)).seed(5).build();

  @RegisterExtension
  static final SimulatorExtension SIMULATOR = SimulatorExtension.withConfig(CONFIG);

  private static final String SCHEMA = """
      {"type":"object","properties":{"order_id":{"type":"string"},"status":{"type":"string"}},
       "required":["order_id"]}""";

  /** Hands every request on to the real target and keeps what it was given. */
  private static final class Recording implements Target {
    final Target delegate;
    final Queue<InferenceRequest> seen = new ConcurrentLinkedQueue<>();

    Recording(Target delegate) {
      this.delegate = delegate;
    }

    @Override
    public void execute(InferenceRequest request, StreamObserver observer, Cancellation cancellation) {
      seen.add(request);
      delegate.execute(request, observer, cancellation);
    }

    @Override
    public void prepare(int maxInFlight) {
      delegate.prepare(maxInFlight);
    }
  }

  @Test
  void eachVariantsOwnResponseFormatIsSentWithItsRequests(Simulator sim) {
    PerturbationSpace space = PerturbationSpace.builder(
            Prompt.user("Look up order ORDER-123456 and return order_id and status as JSON."))
        .outputSchema(SCHEMA)
        .dimension("typos", Typos.budgets(0, 1, 3))
        .dimension("schema", SchemaMutation.of(0, 1, 3))
        .build();
    List<Variant> variants = space.variants(Designs.fullFactorial(space.levelCounts()), 11);
    VariantWorkload workload = VariantWorkload.of(variants).repetitions(20);
    GenerationParams defaults = GenerationParams.builder().maxTokens(8).ignoreEos(true).build();

    RunResult run;
    Recording recording;
    try (OpenAiTarget target = OpenAiTarget.chat(sim.baseUrl() + "/v1", sim.config().model()).build()) {
      recording = new Recording(target);
      run = Benchmark.target(recording).workload(workload).params(defaults)
          .load(LoadProfile.concurrency(6).requests(workload.size())).run();
    }
    assertThat(run.measured()).hasSize(180).allSatisfy(r -> assertThat(r.succeeded()).isTrue());

    // Every variant was sent 20 times, with repetitions 0..19.
    Map<String, List<String>> repetitions = run.measured().stream().collect(Collectors.groupingBy(
        r -> r.tags().get(Variant.VARIANT_TAG),
        Collectors.mapping(r -> r.tags().get(VariantWorkload.REPETITION_TAG), Collectors.toList())));
    assertThat(repetitions).hasSize(9).allSatisfy((v, reps) -> assertThat(reps).hasSize(20)
        .containsExactlyInAnyOrderElementsOf(java.util.stream.IntStream.range(0, 20).mapToObj(Integer::toString)
            .toList()));

    // What the target was handed: the variant's prompt and its own schema as response_format.
    assertThat(recording.seen).hasSize(180);
    for (InferenceRequest sent : recording.seen) {
      Variant v = variants.get(Integer.parseInt(sent.prompt().tags().get(Variant.VARIANT_TAG)));
      assertThat(sent.prompt().text()).isEqualTo(v.prompt().text());
      assertThat(sent.params().maxTokens()).isEqualTo(defaults.maxTokens());
      assertThat(sent.params().extraBody()).containsExactly(Map.entry(ResponseFormat.FIELD,
          ResponseFormat.jsonSchema("output", v.outputSchema().orElseThrow(), true)));
    }
    // Mutated schemas differ from the base one, so requests carried several distinct formats; the
    // variants at schema level 0 all sent the base schema.
    Object base = ResponseFormat.jsonSchema("output", space.outputSchema().orElseThrow(), true);
    Map<Boolean, Long> baseFormat = recording.seen.stream().collect(Collectors.partitioningBy(
        r -> r.params().extraBody().get(ResponseFormat.FIELD).equals(base), Collectors.counting()));
    long levelZero = run.measured().stream().filter(r -> r.tags().get("level.schema").equals("0")).count();
    assertThat(levelZero).isEqualTo(60);
    assertThat(baseFormat.get(true)).isGreaterThanOrEqualTo(levelZero);
    assertThat(baseFormat.get(false)).isPositive();
    assertThat(recording.seen.stream().map(r -> r.params().extraBody()).distinct().count()).isGreaterThan(2);
    for (RequestRecord r : run.measured()) {
      if (!r.tags().get("level.schema").equals("0")) {
        continue;
      }
      Variant v = variants.get(Integer.parseInt(r.tags().get(Variant.VARIANT_TAG)));
      assertThat(v.outputSchema()).isEqualTo(space.outputSchema());
    }
  }
}
