package io.infermark.core.run;

import io.infermark.core.health.ClientMonitoring;
import io.infermark.core.health.HealthThresholds;
import io.infermark.core.load.LoadProfile;
import io.infermark.core.protocol.Target;
import io.infermark.core.request.GenerationParams;
import io.infermark.core.shard.StartBarrier;
import io.infermark.core.time.Clock;
import io.infermark.core.workload.Workload;
import java.util.Optional;

/**
 * What a run is made of, as {@link io.infermark.core.Benchmark} configured it: the target, the workload and
 * its generation parameters, the load, the clock, the listeners and the client-health settings. Internal.
 */
public record RunSettings(Target target, Workload workload, GenerationParams params, LoadProfile load, boolean captureText,
    Clock clock, RunListeners listeners, boolean retainRecords, Optional<StartBarrier> barrier,
    boolean virtualThreads, HealthThresholds healthThresholds, ClientMonitoring monitoring) {}
