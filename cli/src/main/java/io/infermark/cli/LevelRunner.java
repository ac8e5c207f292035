package io.infermark.cli;

import io.infermark.core.Benchmark;
import io.infermark.core.RunResult;
import io.infermark.core.load.ArrivalProcess;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.target.Target;
import java.util.Locale;

/** Runs one load level of a sweep or capacity search against a shared target, with a one-line log. */
final class LevelRunner {

  private final Benchmark base;
  private final int requests;
  private final double burstiness;
  private final long seed;
  private final java.io.PrintWriter log;

  LevelRunner(Target target, WorkloadOptions workload, int requests, double burstiness, java.io.PrintWriter log) {
    if (requests < 1) {
      throw new IllegalArgumentException("--num-prompts must be >= 1, was " + requests);
    }
    if (!(burstiness > 0) || Double.isInfinite(burstiness)) {
      throw new IllegalArgumentException("--burstiness must be finite and > 0, was " + burstiness);
    }
    this.base = Benchmark.target(target).workload(workload.workload(Math.min(requests, 100_000)))
        .params(workload.params());
    this.requests = requests;
    this.burstiness = burstiness;
    this.seed = workload.seed;
    this.log = log;
  }

  /** A run of open-loop arrivals at {@code rate} requests per second. */
  RunResult atRate(double rate) {
    if (!(rate > 0) || Double.isInfinite(rate)) {
      throw new IllegalArgumentException("a rate must be finite and > 0, was " + rate);
    }
    LoadProfile load = burstiness == 1.0 ? LoadProfile.poisson(rate) : LoadProfile.arrivals(ArrivalProcess.gamma(rate, burstiness));
    log.printf(Locale.ROOT, "running %d requests at %.3g req/s ...%n", requests, rate);
    log.flush();
    return base.load(load.requests(requests).seed(seed)).run();
  }

  /** A closed-loop run of {@code streams} concurrent streams. */
  RunResult atConcurrency(int streams) {
    if (streams < 1) {
      throw new IllegalArgumentException("a concurrency must be >= 1, was " + streams);
    }
    log.printf(Locale.ROOT, "running %d requests on %d streams ...%n", requests, streams);
    log.flush();
    return base.load(LoadProfile.concurrency(streams).requests(requests).seed(seed)).run();
  }
}
