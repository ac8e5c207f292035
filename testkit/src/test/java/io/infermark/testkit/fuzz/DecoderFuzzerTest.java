package io.infermark.testkit.fuzz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.stream.StreamDialect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every dialect decoder and whole-body reader survives 20,000 mutated streams seeded from the real
 * transcripts in {@code core/src/test/resources/fixtures}: no exception, no contract break, one
 * outcome each. Runs in the build's small-heap execution, so a decoder buffering past its limits
 * would fail it.
 */
@Tag("hostile")
class DecoderFuzzerTest {

  private static final Path FIXTURES = Path.of("..", "core", "src", "test", "resources", "fixtures");

  @Test
  void twentyThousandMutatedStreamsBreakNoContractOnAnyDecoder() {
    DecoderFuzzer fuzzer = DecoderFuzzer.builder().seedBodies(DecoderFuzzer.readDirectory(FIXTURES)).seed(20251201L)
        .build();

    DecoderFuzzer.Result r = fuzzer.run(20_000);

    assertThat(r.firstBreaks()).isEmpty();
    assertThat(r.contractBreaks()).isZero();
    assertThat(r.completed() + r.failed()).isEqualTo(20_000);
    // the mutations reach both outcomes, and failures are the documented decoder ones
    assertThat(r.completed()).isPositive();
    assertThat(r.failuresByCategory()).containsKey(ErrorCategory.MALFORMED_STREAM);
    assertThat(r.failuresByCategory().keySet()).isSubsetOf(ErrorCategory.MALFORMED_STREAM,
        ErrorCategory.STREAM_ERROR, ErrorCategory.HTTP_STATUS);
    assertThat(r.streams()).isGreaterThanOrEqualTo(1000L * (StreamDialect.values().length + 2));
  }

  @Test
  void aRunIsReproducibleFromItsSeed() {
    List<byte[]> seeds = DecoderFuzzer.readDirectory(FIXTURES);
    DecoderFuzzer.Result a = DecoderFuzzer.builder().seedBodies(seeds).seed(7).build().run(500);
    DecoderFuzzer.Result b = DecoderFuzzer.builder().seedBodies(seeds).seed(7).build().run(500);
    DecoderFuzzer.Result c = DecoderFuzzer.builder().seedBodies(seeds).seed(8).build().run(500);

    assertThat(b).isEqualTo(a);
    assertThat(c.bytesFed()).isNotEqualTo(a.bytesFed());
  }

  @Test
  void aDecoderBreakingTheContractWouldBeCaught() {
    // an error object mid-stream must end as one failure; a seed of only that must not read as a success
    byte[] error = "data: {\"error\":{\"message\":\"boom\"}}\n\n".getBytes(StandardCharsets.UTF_8);
    DecoderFuzzer.Result r = DecoderFuzzer.builder().seedBodies(List.of(error)).seed(3).build().run(200);
    assertThat(r.contractBreaks()).isZero();
    assertThat(r.failed()).isPositive();
  }

  @Test
  void badConfigurationIsRejectedWithItsReason() {
    assertThatThrownBy(() -> DecoderFuzzer.builder().build()).hasMessageContaining("seedBodies");
    assertThatThrownBy(() -> DecoderFuzzer.builder().seedBodies(List.of())).hasMessageContaining("at least one");
  }
}
