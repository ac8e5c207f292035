package io.infermark.cli.vllmsweep;

import io.infermark.core.time.Clock;
import java.io.PrintWriter;
import java.time.Duration;

/**
 * What a sweep writes to and runs with: the command's output and error streams, the in-JVM bench, the clock and
 * the grace a stopped server gets before it is killed.
 *
 * @param out where the sweep's progress goes (vLLM's stdout)
 * @param err where errors go
 * @param bench runs {@code infermark bench} in this JVM
 * @param clock the monotonic clock start-up times are read from
 * @param stopGrace how long a SIGTERM'd server may take to exit before SIGKILL
 */
record SweepContext(PrintWriter out, PrintWriter err, BenchRunner bench, Clock clock, Duration stopGrace) {
}
