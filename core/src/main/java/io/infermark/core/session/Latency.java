package io.infermark.core.session;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * A distribution of client-side delays (a tool's latency, a user's think time): fixed, uniform,
 * exponential, log-normal, or drawn from observed values (a trace). Immutable; every draw takes the
 * caller's seeded random, so a run is reproducible.
 */
public final class Latency {

  private enum Kind { FIXED, UNIFORM, EXPONENTIAL, LOGNORMAL, EMPIRICAL }

  private static final Latency ZERO = new Latency(Kind.FIXED, 0, 0, new long[0]);

  private final Kind kind;
  private final double a;
  private final double b;
  private final long[] values;

  private Latency(Kind kind, double a, double b, long[] values) {
    this.kind = kind;
    this.a = a;
    this.b = b;
    this.values = values;
  }

  /** No delay. */
  public static Latency none() {
    return ZERO;
  }

  /** Always {@code d}. */
  public static Latency fixed(Duration d) {
    return new Latency(Kind.FIXED, nonNegative(d, "latency"), 0, new long[0]);
  }

  /** Uniform between {@code min} and {@code max} inclusive. */
  public static Latency uniform(Duration min, Duration max) {
    long lo = nonNegative(min, "min");
    long hi = nonNegative(max, "max");
    if (hi < lo) {
      throw new IllegalArgumentException("max " + max + " is below min " + min);
    }
    return new Latency(Kind.UNIFORM, lo, hi, new long[0]);
  }

  /** Exponential with the given mean (memoryless waits). */
  public static Latency exponential(Duration mean) {
    return new Latency(Kind.EXPONENTIAL, nonNegative(mean, "mean"), 0, new long[0]);
  }

  /**
   * Log-normal with the given median and {@code sigma} (the standard deviation of the log), the usual
   * shape of remote API latencies: most calls near the median, a long right tail.
   */
  public static Latency logNormal(Duration median, double sigma) {
    long m = nonNegative(median, "median");
    if (!(sigma >= 0) || Double.isInfinite(sigma)) {
      throw new IllegalArgumentException("sigma must be finite and >= 0, was " + sigma);
    }
    return new Latency(Kind.LOGNORMAL, m, sigma, new long[0]);
  }

  /** Draws uniformly from observed values (e.g. tool latencies taken from a trace); at least one. */
  public static Latency empirical(List<Duration> observed) {
    Objects.requireNonNull(observed, "observed");
    if (observed.isEmpty()) {
      throw new IllegalArgumentException("empirical latency needs at least one observed value");
    }
    long[] v = new long[observed.size()];
    for (int i = 0; i < v.length; i++) {
      v[i] = nonNegative(observed.get(i), "observed latency " + i);
    }
    return new Latency(Kind.EMPIRICAL, 0, 0, v);
  }

  /** One delay in nanoseconds, drawn with {@code random}. */
  public long sampleNanos(SplittableRandom random) {
    switch (kind) {
      case FIXED:
        return (long) a;
      case UNIFORM:
        return a == b ? (long) a : (long) a + random.nextLong((long) b - (long) a + 1);
      case EXPONENTIAL:
        return Math.round(-Math.log(1 - random.nextDouble()) * a);
      case LOGNORMAL:
        return Math.round(a * Math.exp(b * gaussian(random)));
      default:
        return values[random.nextInt(values.length)];
    }
  }

  /** The mean delay in nanoseconds. */
  public double meanNanos() {
    switch (kind) {
      case FIXED:
      case EXPONENTIAL:
        return a;
      case UNIFORM:
        return (a + b) / 2;
      case LOGNORMAL:
        return a * Math.exp(b * b / 2);
      default:
        double sum = 0;
        for (long v : values) {
          sum += v;
        }
        return sum / values.length;
    }
  }

  /** True when every draw is zero. */
  public boolean isZero() {
    return kind == Kind.FIXED && a == 0;
  }

  private static double gaussian(SplittableRandom r) {
    double u1 = 1 - r.nextDouble();
    double u2 = r.nextDouble();
    return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
  }

  private static long nonNegative(Duration d, String what) {
    Objects.requireNonNull(d, what);
    if (d.isNegative()) {
      throw new IllegalArgumentException(what + " must be >= 0, was " + d);
    }
    return d.toNanos();
  }

  @Override
  public String toString() {
    switch (kind) {
      case FIXED:
        return String.format(Locale.ROOT, "Latency[fixed %.3f ms]", a / 1e6);
      case UNIFORM:
        return String.format(Locale.ROOT, "Latency[uniform %.3f-%.3f ms]", a / 1e6, b / 1e6);
      case EXPONENTIAL:
        return String.format(Locale.ROOT, "Latency[exponential, mean %.3f ms]", a / 1e6);
      case LOGNORMAL:
        return String.format(Locale.ROOT, "Latency[log-normal, median %.3f ms, sigma %s]", a / 1e6, b);
      default:
        return String.format(Locale.ROOT, "Latency[%d observed values, mean %.3f ms]", values.length,
            meanNanos() / 1e6);
    }
  }
}
