package io.infermark.cli;

import io.infermark.core.Benchmark;
import io.infermark.core.BenchmarkRun;
import io.infermark.core.RunResult;
import io.infermark.core.load.ArrivalProcess;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.metrics.journal.RecordsJournal;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * Runs the load levels of a sweep or capacity search against a shared target, one at a time: with a one-line
 * log, under the command's stop signals and time limit (a level still running when either comes is stopped with
 * the drain timeout, and its result marked interrupted), and, when asked, journalling each level's records.
 */
final class LevelRunner {

  private Benchmark base;
  private final int requests;
  private final double burstiness;
  private final long seed;
  private final PrintWriter log;
  private final StopSignals signals;
  private final Duration drain;
  private final Deadline deadline;
  private final Function<String, Optional<Path>> journalFor;
  private final OutputFiles outputs;

  LevelRunner(Target target, WorkloadOptions workload, io.infermark.core.request.GenerationParams params,
      int requests, double burstiness, PrintWriter log,
      StopSignals signals, Duration drain, Deadline deadline, Function<String, Optional<Path>> journalFor,
      OutputFiles outputs) {
    if (requests < 1) {
      throw new IllegalArgumentException("--num-prompts must be >= 1, was " + requests);
    }
    if (!(burstiness > 0) || Double.isInfinite(burstiness)) {
      throw new IllegalArgumentException("--burstiness must be finite and > 0, was " + burstiness);
    }
    this.base = Benchmark.target(target).workload(workload.workload(Math.min(requests, 100_000)))
        .params(params); // bench's default bodies for the backend (VllmCompatOptions.levelParams)
    this.requests = requests;
    this.burstiness = burstiness;
    this.seed = workload.seed;
    this.log = log;
    this.signals = signals;
    this.drain = drain;
    this.deadline = deadline;
    this.journalFor = journalFor;
    this.outputs = outputs;
  }

  /** The same runner whose runs watch as much of the client's machine as {@code monitors} asks. */
  LevelRunner monitoring(MonitorOptions monitors) {
    base = monitors.apply(base);
    return this;
  }

  /** A run of open-loop arrivals at {@code rate} requests per second, of the configured request count. */
  RunResult atRate(double rate) {
    return atRate(rate, requests);
  }

  /** A run of {@code count} open-loop arrivals at {@code rate} requests per second. */
  RunResult atRate(double rate, int count) {
    if (!(rate > 0) || Double.isInfinite(rate)) {
      throw new IllegalArgumentException("a rate must be finite and > 0, was " + rate);
    }
    LoadProfile load = burstiness == 1.0 ? LoadProfile.poisson(rate) : LoadProfile.arrivals(ArrivalProcess.gamma(rate, burstiness));
    log.printf(Locale.ROOT, "running %d requests at %.4g req/s (about %s) ...%n", count, rate,
        seconds(count / rate));
    log.flush();
    return run(load.requests(count).seed(seed), SweepCommand.label(rate));
  }

  /** A closed-loop run of {@code streams} concurrent streams. */
  RunResult atConcurrency(int streams) {
    if (streams < 1) {
      throw new IllegalArgumentException("a concurrency must be >= 1, was " + streams);
    }
    log.printf(Locale.ROOT, "running %d requests on %d streams ...%n", requests, streams);
    log.flush();
    return run(LoadProfile.concurrency(streams).requests(requests).seed(seed), Integer.toString(streams));
  }

  private RunResult run(LoadProfile load, String level) {
    Benchmark b = base.load(load);
    Optional<Path> file = journalFor.apply(level);
    RecordsJournal journal = null;
    if (file.isPresent()) {
      try {
        journal = RecordsJournal.open(file.get());
        b = b.listener(journal);
      } catch (UncheckedIOException e) {
        outputs.failed(file.get(), OutputFiles.cause(e));
        log.println("WARNING cannot create the records journal " + file.get() + ": " + OutputFiles.cause(e));
      }
    }
    try {
      BenchmarkRun run = b.start();
      signals.watch(run, drain);
      try {
        Optional<RunResult> done = deadline.remaining().flatMap(run::await);
        if (done.isPresent()) {
          return done.get();
        }
        if (deadline.remaining().isPresent()) {
          log.println("--max-duration reached while level " + level + " was running: stopping it");
          log.flush();
          run.stop("--max-duration reached", drain);
        }
        return run.await();
      } finally {
        signals.unwatch(run);
      }
    } finally {
      if (journal != null) {
        journal.close();
        RecordsJournal j = journal;
        j.failure().ifPresent(f -> outputs.failed(j.file(), f));
      }
    }
  }

  private static String seconds(double s) {
    return s < 120 ? String.format(Locale.ROOT, "%.0f s", s) : String.format(Locale.ROOT, "%.1f min", s / 60);
  }

  /** When a command must end: never, or a reading of the monotonic clock. */
  record Deadline(long atNanos) {

    static final Deadline NONE = new Deadline(Long.MAX_VALUE);

    /** The deadline {@code limit} from now; none when empty. */
    static Deadline after(Optional<Duration> limit) {
      return limit.map(d -> new Deadline(System.nanoTime() + d.toNanos())).orElse(NONE);
    }

    /** How long until the deadline (zero once passed); empty when there is none. */
    Optional<Duration> remaining() {
      if (atNanos == Long.MAX_VALUE) {
        return Optional.empty();
      }
      return Optional.of(Duration.ofNanos(Math.max(0, atNanos - System.nanoTime())));
    }

    /** True once the deadline has passed. */
    boolean passed() {
      return atNanos != Long.MAX_VALUE && System.nanoTime() >= atNanos;
    }
  }
}
