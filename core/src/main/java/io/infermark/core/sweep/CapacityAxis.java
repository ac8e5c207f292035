package io.infermark.core.sweep;

/**
 * What a {@link CapacitySearch} varies: an open-loop request rate, or a closed-loop concurrency.
 *
 * <p>Seed 002's "并发吞吐量RPS: 系统在P95延迟≤2s前提下支持的最大请求并发数" (the largest number of concurrent
 * requests the system supports with P95 latency ≤ 2 s) is a {@link #CONCURRENCY} search; "the highest request
 * rate that meets an SLO" is a {@link #RATE} search. The two answers differ: a closed loop never offers more
 * than the server completes, an open loop does.
 */
public enum CapacityAxis {

  /** Open-loop arrivals at a rate, requests per second; levels are any positive numbers. */
  RATE("rate", "req/s"),
  /** Closed-loop concurrency, in-flight requests (streams); levels are whole numbers ≥ 1. */
  CONCURRENCY("concurrency", "streams");

  private final String word;
  private final String unit;

  CapacityAxis(String word, String unit) {
    this.word = word;
    this.unit = unit;
  }

  /** The axis in one lower-case word, as the CLI's {@code --search} and the capacity JSON name it. */
  public String word() {
    return word;
  }

  /** The unit of a level on this axis: {@code req/s} or {@code streams}. */
  public String unit() {
    return unit;
  }
}
