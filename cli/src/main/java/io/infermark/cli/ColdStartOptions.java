package io.infermark.cli;

import io.infermark.cli.options.DurationText;
import io.infermark.core.RunResult;
import io.infermark.core.stats.QuantileMethod;
import io.infermark.metrics.ColdStarts;
import io.infermark.metrics.RunSummary;
import java.time.Duration;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * Which requests paid a cold start (seed 003 §3.3). The server's own signal (Ollama's {@code load_duration}) is
 * always read; {@code --cold-start-idle-gap} adds the seed's idle rule, the only one that can mark anything against
 * an OpenAI-compatible server: a request sent after the target had nothing in flight for that long (and the run's
 * first request) is cold. Marked records carry the tag {@code cold_start} with the reason; the summaries count warm
 * and cold apart.
 */
final class ColdStartOptions {

  @Option(names = "--cold-start-idle-gap", paramLabel = "DURATION", converter = DurationText.class,
      description = "Mark a request cold when it was sent after the target had no request in flight for at least "
          + "DURATION (e.g. a server that scales to zero after that long), and the run's first request; cold requests "
          + "are tagged cold_start in the records and summarised apart (console, JSON cold_start). Without it only a "
          + "server's own signal (Ollama's load_duration) marks one.")
  Duration idleGap;

  /** The rule the run is judged by: the server's signal, and the idle gap when given. */
  ColdStarts rule() {
    return idleGap == null ? ColdStarts.serverReported() : ColdStarts.serverReported().afterIdle(idleGap);
  }

  /** Whether {@code --cold-start-idle-gap} was given. */
  boolean given() {
    return idleGap != null;
  }

  /** The run with its cold records tagged {@value ColdStarts#TAG} (unchanged without the flag). */
  RunResult mark(RunResult result) {
    if (idleGap == null || !result.recordsRetained()) {
      return result;
    }
    return result.toBuilder().records(rule().mark(result.records())).build();
  }

  /** The run's summary with warm and cold requests judged by {@link #rule()}. */
  RunSummary summary(RunResult result) {
    return RunSummary.of(result, QuantileMethod.LINEAR, rule());
  }

  /** The console line of a summary's cold starts, when any request was cold. */
  static Optional<String> line(RunSummary s) {
    io.infermark.metrics.ColdStartSummary c = s.coldStarts();
    if (c.cold() == 0) {
      return Optional.empty();
    }
    return Optional.of(String.format(java.util.Locale.ROOT, "%d cold / %d warm; TTFT p50 cold %s, warm %s ms", c.cold(),
        c.warm(), c.ttftCold().p50().isPresent() ? String.format(java.util.Locale.ROOT, "%.2f", c.ttftCold().p50()
            .getAsDouble()) : "-", c.ttftWarm().p50().isPresent() ? String.format(java.util.Locale.ROOT, "%.2f",
            c.ttftWarm().p50().getAsDouble()) : "-"));
  }
}
