package io.infermark.attribution.knee;

/**
 * What a sweep's latency curve is plotted against when {@link SweepKnees} looks for its knee.
 *
 * <p>Seed 002 §3.2 sweeps concurrency with batch size and max tokens fixed, records P99 latency and
 * the <em>measured</em> end-to-end QPS at each level, and puts the knee where "延迟增长率 Δlatency/ΔQPS
 * 首次超过阈值 120ms/QPS" (the latency growth rate Δlatency/ΔQPS first exceeds 120 ms per QPS). Its x is
 * the throughput the server achieved, not the load offered: past saturation the offered rate (or the
 * concurrency) keeps rising while the achieved QPS stalls, so Δlatency/ΔQPS explodes exactly there.
 */
public enum KneeAxis {

  /**
   * The seed's: each level's achieved throughput, successful requests per second of its measurement
   * window ({@code RunSummary.requestThroughputRps()}), for open and closed loops alike. The slope is
   * ms of latency per completed req/s.
   */
  ACHIEVED_THROUGHPUT,

  /**
   * The load each level offered: req/s for open loops, concurrency for closed ones (ms per concurrent
   * request). What the sweep controlled, not what the server delivered.
   */
  OFFERED_LOAD
}
