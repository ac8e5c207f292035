package io.infermark.core.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Bad parameters fail when they are built, not as one CLIENT record per request of a run. */
class GenerationParamsTest {

  @Test
  void headerNamesMustBeHttpTokens() {
    for (String bad : List.of("", " ", "X Key", "X:Key", "X-Key\n", "é")) {
      assertThatThrownBy(() -> GenerationParams.builder().header(bad, "v"))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("invalid header name");
    }
  }

  @Test
  void headerValuesWithLineBreaksAreRejectedWithoutShowingTheValue() {
    assertThatThrownBy(() -> GenerationParams.builder().header("Authorization", "Bearer secret-1234\r\nX-Evil: 1"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Authorization")
        .hasMessageContaining("CR, LF or NUL").message().doesNotContain("secret-1234");
  }

  @Test
  void anExtraBodyValueThatCannotBeJsonIsRejectedAtBuildTime() {
    Object unserialisable = new Object() {
      @SuppressWarnings("unused")
      public Object getSelf() {
        return this;
      }
    };
    assertThatThrownBy(() -> GenerationParams.builder().extraBody("weird", unserialisable))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("extraBody field \"weird\"");
  }

  @Test
  void validHeadersAndBodiesPass() {
    GenerationParams p = GenerationParams.builder().header("X-Tenant", "a b\tc").extraBody("top_k", 5)
        .extraBody("stop", List.of("\n\n")).build();
    assertThat(p.headers()).containsEntry("X-Tenant", "a b\tc");
    assertThat(p.extraBody()).containsKeys("top_k", "stop");
  }
}
