package io.infermark.core.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;

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
  void ratesWhoseGapDoesNotFitANanosecondScheduleAreRejectedAtBuildTime() {
    // 1e-11/s: one gap is 1e20 ns, past Long.MAX_VALUE (292 years); Math.round saturated and the
    // schedule silently held only the request at 0.
    assertThatThrownBy(() -> ArrivalProcess.constant(1e-11)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rate 1.0E-11 requests/s is too low to schedule")
        .hasMessageContaining("the lowest is 1.0842021724855046E-10 requests/s");
    assertThatThrownBy(() -> ArrivalProcess.poisson(1e-11)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("too low to schedule");
    assertThatThrownBy(() -> LoadProfile.constantRate(1e-11)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("too low to schedule");
    assertThatThrownBy(() -> LoadProfile.poisson(1e-11)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("too low to schedule");
    // The lowest rate: 1e9 / rate rounds to 2^63 − 1,024 ns, the last double below 2^63; a hair lower
    // and the gap is 2^63 ns itself.
    assertThat(ArrivalProcess.constant(1.0842021724855046E-10).schedule(2, Long.MAX_VALUE, 0))
        .containsExactly(0L, Long.MAX_VALUE - 1023);
    assertThatThrownBy(() -> ArrivalProcess.constant(1.0842021724855044E-10)).hasMessageContaining("too low");
  }

  @Test
  void aCountThatCannotBeScheduledFailsInsteadOfDroppingRequests() {
    // 2e-10/s: gaps of 5e18 ns fit, but the third request would fall at 1e19 ns, past Long.MAX_VALUE.
    assertThatThrownBy(() -> ArrivalProcess.constant(2e-10).schedule(5, Long.MAX_VALUE, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("request 2 of 5")
        .hasMessageContaining("beyond the 292 years");
    assertThatThrownBy(() -> ArrivalProcess.poisson(2e-10).schedule(50, Long.MAX_VALUE, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("of 50")
        .hasMessageContaining("beyond the 292 years");
    assertThatThrownBy(() -> LoadProfile.constantRate(2e-10).requests(5).validate())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("5 requests at 2.0E-10 requests/s");
    // With a duration the schedule simply ends at it: nothing is dropped that the run would have sent.
    assertThat(ArrivalProcess.constant(2e-10).schedule(5, 60_000_000_000L, 0)).containsExactly(0L);
    LoadProfile.constantRate(2e-10).requests(5).duration(Duration.ofMinutes(1)).validate();
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
