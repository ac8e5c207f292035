package io.infermark.metrics.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.infermark.core.Benchmark;
import io.infermark.core.BenchmarkRun;
import io.infermark.core.Interruption;
import io.infermark.core.RunResult;
import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ErrorCategory;
import io.infermark.core.capture.Failure;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.capture.Usage;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.request.Prompt;
import io.infermark.core.time.Clock;
import io.infermark.metrics.RunSummary;
import io.infermark.metrics.report.RecordsJsonl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RecordsJournalTest {

  private static final Clock CLOCK = Clock.system();
  private static final Prompt PROMPT = Prompt.user("hello");
  private static final GenerationParams PARAMS = GenerationParams.builder().maxTokens(3).build();

  @TempDir
  Path dir;

  /** Three tokens per request; requests after {@code quick} are held until cancelled (when {@code held} is set). */
  private static Target target(int quick, CountDownLatch held) {
    AtomicInteger n = new AtomicInteger();
    return (request, observer, cancellation) -> {
      observer.onResponseHeaders(200, CLOCK.nanoTime());
      if (held != null && n.getAndIncrement() >= quick) {
        CountDownLatch cancelled = new CountDownLatch(1);
        cancellation.onCancel(cancelled::countDown);
        held.countDown();
        try {
          cancelled.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        observer.onFailure(Failure.of(ErrorCategory.CANCELLED, "cancelled"), CLOCK.nanoTime());
        return;
      }
      for (int i = 0; i < 3; i++) {
        observer.onChunk(CLOCK.nanoTime(), ChunkKind.CONTENT, 1);
      }
      observer.onUsage(Usage.of(5, 3));
      observer.onComplete(CLOCK.nanoTime());
    };
  }

  @Test
  void aFinishedRunsJournalHoldsEveryRecordAndRebuildsTheRun() {
    Path file = dir.resolve("run.records.jsonl");
    LoadProfile load = LoadProfile.concurrency(3).requests(40).warmupRequests(2);
    RunResult run;
    try (RecordsJournal journal = RecordsJournal.builder(file).context("tool", "test").open()) {
      run = Benchmark.target(target(0, null)).prompts(PROMPT).params(PARAMS).load(load).listener(journal).run();
      assertThat(journal.recordsWritten()).isEqualTo(42);
      assertThat(journal.failure()).isEmpty();
    }

    Journal read = Journal.read(file);
    assertThat(read.complete()).isTrue();
    assertThat(read.unreadableLines()).isZero();
    assertThat(read.warnings()).isEmpty();
    assertThat(read.plannedRequests()).hasValue(42);
    assertThat(read.context().orElseThrow().path("tool").asText()).isEqualTo("test");
    assertThat(read.records()).hasSize(42);
    RunResult rebuilt = read.toRunResult(load, PARAMS);
    assertThat(rebuilt.records()).containsExactlyElementsOf(run.records());
    assertThat(rebuilt.startedAt()).isEqualTo(run.startedAt());
    assertThat(rebuilt.durationNanos()).isEqualTo(run.durationNanos());
    assertThat(rebuilt.target()).isEqualTo(run.target());
    assertThat(rebuilt.clientHealth().verdict()).isEqualTo(run.clientHealth().verdict());
    assertThat(rebuilt.clientHealth().floorNanos()).isEqualTo(run.clientHealth().floorNanos());
    assertThat(rebuilt.interruption()).isEmpty();
    assertThat(RunSummary.of(rebuilt).requests()).isEqualTo(RunSummary.of(run).requests());
    // A journal reads as a plain records file too: header and end lines are skipped.
    assertThat(RecordsJsonl.read(file)).hasSize(42);
  }

  @Test
  void aStoppedRunsJournalHoldsCompletedAndCancelledAndCountsTheNeverSent() {
    Path file = dir.resolve("stopped.records.jsonl");
    LoadProfile load = LoadProfile.concurrency(2).requests(50);
    CountDownLatch held = new CountDownLatch(2);
    RunResult run;
    try (RecordsJournal journal = RecordsJournal.open(file)) {
      BenchmarkRun started = Benchmark.target(target(7, held)).prompts(PROMPT).load(load).listener(journal).start();
      await(held);
      started.stop("SIGTERM", Duration.ZERO);
      run = started.await();
    }
    Interruption i = run.interruption().orElseThrow();
    assertThat(i.completed()).isEqualTo(7);
    assertThat(i.cancelled()).isEqualTo(2);
    assertThat(i.notSent()).isEqualTo(41);

    Journal read = Journal.read(file);
    assertThat(read.records()).hasSize((int) (i.completed() + i.cancelled()));
    assertThat(read.end().orElseThrow().path("not_sent").path("count").asLong()).isEqualTo(41);
    RunResult rebuilt = read.toRunResult(load, GenerationParams.defaults());
    assertThat(rebuilt.records()).hasSize(50);
    assertThat(rebuilt.interruption()).contains(i);
    assertThat(rebuilt.records().stream().filter(r -> r.failure().map(f -> f.category() == ErrorCategory.NOT_SENT)
        .orElse(false))).hasSize(41).allSatisfy(r -> assertThat(r.failure().orElseThrow().message())
            .contains("stopped (SIGTERM)"));
    assertThat(RunSummary.of(rebuilt).requests()).isEqualTo(RunSummary.of(run).requests());
  }

  @Test
  void aJournalCutByAKilledProcessIsReadWithItsTornLineSkippedAndCounted() throws IOException {
    Path file = dir.resolve("killed.records.jsonl");
    LoadProfile load = LoadProfile.concurrency(2).requests(20);
    try (RecordsJournal journal = RecordsJournal.open(file)) {
      Benchmark.target(target(0, null)).prompts(PROMPT).load(load).listener(journal).run();
    }
    // What kill -9 leaves: no end line, and the last record cut in the middle of a write.
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    List<String> kept = lines.subList(0, 1 + 12); // header + 12 records
    String torn = lines.get(13).substring(0, lines.get(13).length() / 2);
    Files.writeString(file, String.join("\n", kept) + "\n" + torn, StandardCharsets.UTF_8);

    Journal read = Journal.read(file);
    assertThat(read.records()).hasSize(12);
    assertThat(read.unreadableLines()).isEqualTo(1);
    assertThat(read.lastLineTorn()).isTrue();
    assertThat(read.complete()).isFalse();
    assertThat(read.warnings()).anySatisfy(w -> assertThat(w).contains("last line was cut"))
        .anySatisfy(w -> assertThat(w).contains("never ended").contains("8 planned requests have no record"));
    RunResult rebuilt = read.toRunResult(load, GenerationParams.defaults());
    Interruption i = rebuilt.interruption().orElseThrow();
    assertThat(i.reason()).contains("process died");
    assertThat(i.completed()).isEqualTo(12);
    assertThat(i.unknown()).isEqualTo(8);
    assertThat(rebuilt.records()).hasSize(12);
    assertThat(rebuilt.clientHealth().isMeasured()).isFalse();
  }

  @Test
  void recordsReachTheFileWhileTheRunIsStillGoing() throws Exception {
    Path file = dir.resolve("live.records.jsonl");
    CountDownLatch held = new CountDownLatch(1);
    try (RecordsJournal journal = RecordsJournal.builder(file).flushInterval(Duration.ofMillis(50)).open()) {
      BenchmarkRun run = Benchmark.target(target(5, held)).prompts(PROMPT).load(LoadProfile.concurrency(1).requests(10))
          .listener(journal).start();
      await(held); // five records done, the sixth request held: the run is not over
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (Journal.read(file).records().size() < 5 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertThat(Journal.read(file).records()).hasSize(5);
      assertThat(Journal.read(file).complete()).isFalse();
      assertThat(run.isDone()).isFalse();
      run.cancel();
      run.await();
    }
    assertThat(Journal.read(file).complete()).isTrue();
  }

  @Test
  void anInterruptedWriterStillWritesItsRecordsAndKeepsTheJournalOpen() {
    Path file = dir.resolve("interrupted.records.jsonl");
    RunResult run = Benchmark.target(target(0, null)).prompts(PROMPT).load(LoadProfile.concurrency(1).requests(4))
        .run();
    RecordsJournal journal = RecordsJournal.open(file);
    journal.onRunStarted(new io.infermark.core.RunStart(run.startedAt(), run.originNanos(), CLOCK, run.target(),
        run.load(), run.params(), java.util.OptionalLong.of(4)));
    Thread.currentThread().interrupt(); // a cancelled run's thread, or the flusher being stopped
    try {
      run.records().forEach(journal::onRecord);
      journal.flush();
      assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is left as it was").isTrue();
      journal.onRunFinished(run);
    } finally {
      Thread.interrupted();
    }

    assertThat(journal.failure()).isEmpty();
    Journal read = Journal.read(file);
    assertThat(read.records()).hasSize(4);
    assertThat(read.complete()).isTrue();
    assertThat(read.unreadableLines()).isZero();
  }

  @Test
  void aFullDeviceFailsTheJournalNotTheRun() {
    Path full = Path.of("/dev/full"); // every write: "No space left on device"
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.isWritable(full), "/dev/full exists on Linux");
    RecordsJournal journal = RecordsJournal.open(full);
    RunResult run = Benchmark.target(target(0, null)).prompts(PROMPT).load(LoadProfile.concurrency(1).requests(5))
        .listener(journal).run();

    assertThat(run.records()).hasSize(5).allMatch(RequestRecord::succeeded);
    assertThat(journal.failure()).hasValueSatisfying(f -> assertThat(f).contains("/dev/full")
        .contains("No space left on device"));
    assertThat(journal.recordsWritten()).isZero();
  }

  @Test
  void aJournalThatCannotBeCreatedSaysWhereAndWhy() throws IOException {
    Path notADir = Files.writeString(dir.resolve("plain-file"), "x");
    assertThatThrownBy(() -> RecordsJournal.open(notADir.resolve("run.records.jsonl")))
        .isInstanceOf(UncheckedIOException.class).hasMessageContaining("cannot create the journal")
        .hasMessageContaining("plain-file");
  }

  @Test
  void aFileWithNoJournalInItIsRefused() throws IOException {
    Path garbage = Files.writeString(dir.resolve("x.jsonl"), "not json\n{\"half\":");
    assertThatThrownBy(() -> Journal.read(garbage)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a records journal").hasMessageContaining("2 unreadable lines");
  }

  @Test
  void contextRejectsValuesItCannotWrite() {
    assertThatThrownBy(() -> RecordsJournal.builder(dir.resolve("c.jsonl")).context("bad", List.of(new Object())))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("java.lang.Object");
  }

  private static void await(CountDownLatch latch) {
    try {
      assertThat(latch.await(30, TimeUnit.SECONDS)).isTrue();
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }
}
