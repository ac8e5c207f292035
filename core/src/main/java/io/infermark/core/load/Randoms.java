package io.infermark.core.load;

import java.util.SplittableRandom;

/**
 * Seeded samplers shared by arrival processes and workloads: exponential, gamma, Poisson and a
 * seed mixer that derives independent streams (per request index, per component) from one seed.
 * Every method is a pure function of the generator's state, so schedules are reproducible.
 */
public final class Randoms {

  private Randoms() {}

  /**
   * A well-mixed seed for sub-stream {@code i} of {@code seed} (SplitMix64 finaliser), so that
   * request {@code i}'s draws do not depend on how many draws came before it.
   */
  public static long mix(long seed, long i) {
    long z = seed + 0x9E3779B97F4A7C15L * (i + 1);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  /** A standard exponential variate (mean 1). */
  public static double exponential(SplittableRandom random) {
    return -Math.log(1.0 - random.nextDouble()); // 1-u is in (0, 1], so the log is finite
  }

  /**
   * A gamma variate with the given shape and scale 1 (mean {@code shape}, variance {@code shape}):
   * Marsaglia and Tsang's method, with the {@code U^(1/k)} boost for shapes below 1.
   */
  public static double gamma(SplittableRandom random, double shape) {
    if (!(shape > 0) || Double.isInfinite(shape)) {
      throw new IllegalArgumentException("gamma shape must be finite and > 0, was " + shape);
    }
    if (shape < 1) {
      double u = 1.0 - random.nextDouble();
      return gamma(random, shape + 1) * Math.pow(u, 1 / shape);
    }
    double d = shape - 1.0 / 3;
    double c = 1 / Math.sqrt(9 * d);
    while (true) {
      double x = random.nextGaussian();
      double v = 1 + c * x;
      if (v <= 0) {
        continue;
      }
      v = v * v * v;
      double u = random.nextDouble();
      if (u < 1 - 0.0331 * x * x * x * x || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) {
        return d * v;
      }
    }
  }

  /**
   * A Poisson variate with the given mean: inversion of the CDF by sequential search, with means
   * above 500 split into a sum of smaller Poisson variates so {@code exp(-mean)} never underflows.
   */
  public static int poisson(SplittableRandom random, double mean) {
    if (!(mean >= 0) || Double.isInfinite(mean)) {
      throw new IllegalArgumentException("Poisson mean must be finite and >= 0, was " + mean);
    }
    int total = 0;
    double left = mean;
    while (left > 500) {
      total += poissonSmall(random, 500);
      left -= 500;
    }
    return total + poissonSmall(random, left);
  }

  private static int poissonSmall(SplittableRandom random, double mean) {
    double u = random.nextDouble();
    double p = Math.exp(-mean);
    double cdf = p;
    int k = 0;
    while (u > cdf) {
      k++;
      p *= mean / k;
      double next = cdf + p;
      if (next == cdf) {
        break; // the tail is below double precision
      }
      cdf = next;
    }
    return k;
  }
}
