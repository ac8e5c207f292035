package io.infermark.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ArrivalProcessTest {

  @Test
  void constantRateSpacesArrivalsExactlyStartingAtZero() {
    long[] t = ArrivalProcess.constant(3).schedule(4, Long.MAX_VALUE, 0);
    assertThat(t).containsExactly(0L, 333_333_333L, 666_666_667L, 1_000_000_000L);
  }

  @Test
  void constantRateStopsBeforeTheLimit() {
    long[] t = ArrivalProcess.constant(10).schedule(Integer.MAX_VALUE, 1_000_000_000L, 0);
    assertThat(t).hasSize(10);
    assertThat(t[9]).isEqualTo(900_000_000L);
  }

  @Test
  void poissonIsReproducibleFromItsSeed() {
    assertThat(ArrivalProcess.poisson(50).schedule(100, Long.MAX_VALUE, 7))
        .containsExactly(ArrivalProcess.poisson(50).schedule(100, Long.MAX_VALUE, 7));
    assertThat(ArrivalProcess.poisson(50).schedule(100, Long.MAX_VALUE, 7))
        .isNotEqualTo(ArrivalProcess.poisson(50).schedule(100, Long.MAX_VALUE, 8));
  }

  @Test
  void poissonGapsHaveTheExponentialMeanAndSpread() {
    int n = 200_000;
    long[] t = ArrivalProcess.poisson(100).schedule(n, Long.MAX_VALUE, 1);
    double mean = t[n - 1] / (double) n;
    double sumSq = 0;
    long prev = 0;
    for (long at : t) {
      double gap = at - prev;
      sumSq += (gap - mean) * (gap - mean);
      prev = at;
    }
    double cv = Math.sqrt(sumSq / n) / mean;
    // Mean 10 ms: the standard error of the mean of 200,000 exponential gaps is 0.22 %; allow 1 %.
    assertThat(mean).isCloseTo(10_000_000.0, within(100_000.0));
    // The coefficient of variation of an exponential distribution is 1.
    assertThat(cv).isCloseTo(1.0, within(0.02));
    assertThat(t).isSorted();
  }

  @Test
  void poissonCountOverADurationMatchesTheRate() {
    long[] t = ArrivalProcess.poisson(1000).schedule(Integer.MAX_VALUE, 60_000_000_000L, 3);
    // 60,000 expected, standard deviation 245: allow four of them.
    assertThat(t.length).isBetween(59_020, 60_980);
    assertThat(t[t.length - 1]).isLessThan(60_000_000_000L);
  }

  @Test
  void expectedInFlightSizesPoolsFromTheProfile() {
    assertThat(LoadProfile.concurrency(64).requests(10).expectedMaxInFlight()).isEqualTo(64);
    assertThat(LoadProfile.poisson(10).requests(100).maxInFlight(32).expectedMaxInFlight()).isEqualTo(32);
    assertThat(LoadProfile.poisson(10).requests(100).expectedMaxInFlight()).isEqualTo(100);
  }

  @Test
  void profilesDescribeThemselvesOnOneLine() {
    assertThat(LoadProfile.poisson(20).requests(100).warmupRequests(5).maxInFlight(8).seed(3).toString())
        .isEqualTo("LoadProfile[open loop poisson(20.0/s), 100 requests, 5 warmup, max 8 in flight, seed 3]");
    assertThat(LoadProfile.concurrency(16).requests(200).toString())
        .isEqualTo("LoadProfile[closed loop, 16 streams, 200 requests]");
  }
}
