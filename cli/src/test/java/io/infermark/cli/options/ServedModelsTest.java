package io.infermark.cli.options;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The model list's first non-empty id, as vLLM's client reads it when {@code --model} is missing. */
class ServedModelsTest {

  @Test
  void aModelListWithNoModelIsAClearError() {
    assertThat(ServedModels.firstId("{\"object\":\"list\",\"data\":[]}".getBytes(StandardCharsets.UTF_8))).isEmpty();
    assertThat(ServedModels.firstId("<html>".getBytes(StandardCharsets.UTF_8))).isEmpty();
    assertThat(ServedModels.firstId("{\"data\":[{\"id\":\"\"},{\"id\":\"b\"}]}".getBytes(StandardCharsets.UTF_8)))
        .contains("b");
  }
}
