package io.infermark.cli;

import io.infermark.core.RunResult;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.report.ComparisonReport;
import io.infermark.metrics.report.HtmlReport;
import io.infermark.metrics.report.RunComparison;
import io.infermark.metrics.slo.SloReport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The HTML pages the commands write: a run's report ({@code bench}, {@code report}), the comparison of two
 * runs ({@code report --compare}) and a sweep's latency–load curve ({@code sweep}). Each is one
 * self-contained file; a page that cannot be written is a {@link CliException} (exit 3).
 */
final class ReportPages {

  private ReportPages() {}

  /** A run's report, with its gates' verdicts when it had any. */
  static Path runPage(RunResult result, Optional<SloReport> gates, Path file, String title) {
    HtmlReport.Builder b = HtmlReport.builder(result).title(title);
    gates.ifPresent(b::slo);
    return write(file, b.build().html());
  }

  /** The comparison page of a candidate run against a baseline. */
  static Path comparisonPage(RunComparison comparison, RunSummary baseline, RunSummary candidate, Path file) {
    return write(file, ComparisonReport.of(comparison, baseline, candidate).html());
  }

  /** Writes a page, creating its directory. */
  static Path write(Path file, String html) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(file, html);
      return file;
    } catch (IOException | UncheckedIOException e) {
      throw new CliException(Infermark.FAILED, "cannot write " + file + ": " + e.getMessage());
    }
  }
}
