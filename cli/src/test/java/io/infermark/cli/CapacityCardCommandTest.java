package io.infermark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.cli.InfermarkCliTest.Outcome;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * {@code infermark capacity-card} on a tiny budget: the table's structure and the consistency of its figures, never
 * their values (they are this machine's, at whatever load it has).
 */
class CapacityCardCommandTest {

  @Test
  void printsACardWithARowPerFigureAndConsistentFigures() {
    Outcome o = InfermarkCliTest.run("capacity-card", "--quick", "--budget", "3s", "--step", "200ms",
        "--max-streams", "32");

    assertThat(o.code()).as(o.err()).isZero();
    List<String> lines = o.out().lines().toList();
    assertThat(lines.get(0)).matches("infermark capacity card: \\d+ cores, load average .* before, .* after; Java .*, "
        + "GC .*");
    assertThat(lines.get(1)).contains("<= 1.00 ms at p99", "HTTP/1.1 only");
    assertThat(lines.get(2)).startsWith("protocol").contains("| figure", "| ceiling", "| first failure",
        "| per client core", "| error bound", "| heap/stream", "| search");
    List<String[]> rows = lines.stream().filter(l -> l.startsWith("HTTP/1.1 ") && l.contains(" | "))
        .map(l -> l.split("\\s*\\|\\s*")).toList();
    assertThat(rows).extracting(r -> r[1]).containsExactly("streamed tokens/s, 1 per chunk",
        "streamed tokens/s, 8 per chunk", "non-streamed requests/s", "concurrent streams (200 ms gaps)");
    for (String[] r : rows) {
      assertThat(r).hasSize(8);
      assertThat(r[7]).matches("(found|the maximum passed|the lowest level failed|budget spent).*, [1-9]\\d* steps?");
      if (r[1].startsWith("concurrent")) { // the heap per stream is measured whether or not a level passed
        assertThat(r[6]).endsWith("KiB");
        assertThat(Double.parseDouble(r[6].replace(" KiB", ""))).isPositive();
      }
      if (r[2].equals("-")) { // nothing passed: the level that failed is named, and no figure is made up
        assertThat(number(r[3])).isPositive();
        assertThat(r[4]).isEqualTo("-");
        assertThat(r[5]).isEqualTo("-");
        continue;
      }
      double ceiling = number(r[2]);
      assertThat(ceiling).isPositive();
      if (!r[3].equals("-")) {
        assertThat(number(r[3])).isGreaterThan(ceiling);
      }
      // the ceiling's own error bound is within the limit it was judged against
      assertThat(Double.parseDouble(r[5].split(" ")[0])).isBetween(0.0, 1.0);
      if (r[1].startsWith("concurrent")) {
        assertThat(ceiling).isLessThanOrEqualTo(32);
      } else {
        assertThat(number(r[4])).isPositive();
      }
    }
  }

  @Test
  void anUnknownProtocolIsAUsageError() {
    Outcome o = InfermarkCliTest.run("capacity-card", "--protocols", "http3");

    assertThat(o.code()).isEqualTo(Infermark.USAGE);
    assertThat(o.err()).contains("--protocols takes http1, h2c and grpc, was 'http3'");
  }

  private static double number(String cell) {
    return Double.parseDouble(cell.replace(">=", "").replace(",", "").trim().toLowerCase(Locale.ROOT));
  }
}
