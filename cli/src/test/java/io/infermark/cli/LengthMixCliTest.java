package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.infermark.cli.InfermarkCliTest.Outcome;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --length-mix}: seed 002's lm-bench line sends "200条多样化提示（含短/中/长上下文）" (200 varied prompts with
 * short, medium and long contexts), where random prompts of one {@code --random-input-len} are all one length.
 */
class LengthMixCliTest {

  @TempDir
  Path dir;

  @Test
  void randomPromptsTakeTheMixsLengthsInTurn() throws IOException {
    try (WireCapture server = new WireCapture()) {
      Outcome o = InfermarkCliTest.run("bench", "--backend", "openai-chat", "--base-url", server.baseUrl(), "--model",
          "m", "--progress", "none", "--no-html", "--result-dir", dir.toString(), "--result-filename", "r.json",
          "--length-mix", "8,32,64", "--random-output-len", "2", "--num-prompts", "6", "--max-concurrency", "1",
          "--save-detailed");

      assertThat(o.code()).as(o.out() + o.err()).isZero();
      List<Integer> inputs = new ArrayList<>();
      new ObjectMapper().readTree(dir.resolve("r.json").toFile()).get("input_lens").forEach(n -> inputs.add(n.asInt()));
      assertThat(inputs).containsExactlyInAnyOrder(8, 32, 64, 8, 32, 64);
    }
    Outcome bad = InfermarkCliTest.run("bench", "--model", "m", "--base-url", "http://127.0.0.1:1", "--length-mix",
        "8,0");
    assertThat(bad.code()).isEqualTo(Infermark.USAGE);
    assertThat(bad.err()).contains("--length-mix must be >= 1, was 0");
    Outcome both = InfermarkCliTest.run("bench", "--model", "m", "--base-url", "http://127.0.0.1:1", "--length-mix",
        "8,16", "--shared-prefix-ratio", "0.5");
    assertThat(both.code()).isEqualTo(Infermark.USAGE);
    assertThat(both.err()).contains("give --length-mix or --shared-prefix-ratio, not both");
  }
}
