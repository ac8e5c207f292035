package io.infermark.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class E04PerturbationStudyTest {

  @Test
  void l9SendsNineCellsCoveringEveryLevelPairAndPaddingLengthensThePrompt() {
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    E04PerturbationStudy.Result result = E04PerturbationStudy.run(new PrintStream(console, true, StandardCharsets.UTF_8));

    List<E04PerturbationStudy.Cell> cells = result.cells();
    assertThat(cells).hasSize(9);
    assertThat(cells).allSatisfy(c -> {
      assertThat(c.requests()).isEqualTo(E04PerturbationStudy.REPETITIONS);
      assertThat(c.failed()).isZero();
    });
    // Orthogonal array of strength 2: every pair of levels of every two factors appears exactly once.
    for (int a = 0; a < 4; a++) {
      for (int b = a + 1; b < 4; b++) {
        Set<List<Integer>> pairs = new HashSet<>();
        for (E04PerturbationStudy.Cell c : cells) {
          pairs.add(List.of(c.levels()[a], c.levels()[b]));
        }
        assertThat(pairs).as("level pairs of factors %d and %d", a, b).hasSize(9);
      }
    }
    // Padding (factor 2) to 0, 512 and 2048 estimated tokens: the server counts more prompt tokens at each level.
    double[] byPadding = new double[3];
    for (int level = 0; level < 3; level++) {
      int l = level;
      byPadding[level] = cells.stream().filter(c -> c.levels()[2] == l)
          .mapToDouble(E04PerturbationStudy.Cell::meanPromptTokens).average().orElseThrow();
    }
    assertThat(byPadding[1]).isGreaterThan(byPadding[0] + 256);
    assertThat(byPadding[2]).isGreaterThan(byPadding[1] + 1024);
    assertThat(Arrays.stream(byPadding)).allMatch(Double::isFinite);
    assertThat(console.toString(StandardCharsets.UTF_8)).contains("| cell | typos | noise | padding | paraphrase |",
        "Main effects");
  }
}
