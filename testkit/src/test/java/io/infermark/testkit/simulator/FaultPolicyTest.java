package io.infermark.testkit.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class FaultPolicyTest {

  private static FaultPolicy policy(long seed, double errors, double drops) {
    return FaultPolicy.of(SimulatorConfig.builder().seed(seed).serverErrors(errors).disconnects(drops, 1).build());
  }

  private static Optional<Fault.Kind> kind(FaultPolicy p, long sequence) {
    return p.decide(sequence).map(Fault::kind);
  }

  @Test
  void noProbabilitiesMeansNoFaults() {
    FaultPolicy none = policy(1, 0, 0);

    for (long i = 0; i < 1000; i++) {
      assertThat(none.decide(i)).isEmpty();
    }
  }

  @Test
  void decisionsArePureFunctionsOfSeedAndSequence() {
    FaultPolicy a = policy(7, 0.2, 0.1);
    FaultPolicy b = policy(7, 0.2, 0.1);
    FaultPolicy otherSeed = policy(8, 0.2, 0.1);

    int differences = 0;
    for (long i = 999; i >= 0; i--) { // order of asking must not matter
      assertThat(a.decide(i)).isEqualTo(b.decide(i));
      differences += a.decide(i).equals(otherSeed.decide(i)) ? 0 : 1;
    }
    assertThat(differences).isGreaterThan(100);
  }

  @Test
  void faultRatesMatchTheProbabilities() {
    FaultPolicy policy = FaultPolicy.of(SimulatorConfig.builder().seed(3).serverErrors(0.2).disconnects(0.1, 1)
        .fault(Fault.stall(2, Duration.ofMillis(5)), 0.3).build());
    Map<Optional<Fault.Kind>, Integer> counts = new HashMap<>();
    int n = 20_000;
    for (long i = 0; i < n; i++) {
      counts.merge(kind(policy, i), 1, Integer::sum);
    }

    // ±4 standard deviations: sqrt(n p (1-p)) is about 57, 42 and 65 here.
    assertThat(counts.get(Optional.of(Fault.Kind.SERVER_ERROR))).isBetween(4000 - 230, 4000 + 230);
    assertThat(counts.get(Optional.of(Fault.Kind.DISCONNECT))).isBetween(2000 - 170, 2000 + 170);
    assertThat(counts.get(Optional.of(Fault.Kind.STALL))).isBetween(6000 - 260, 6000 + 260);
  }

  @Test
  void certainFaultsAlwaysHappen() {
    assertThat(kind(policy(1, 1, 0), 5)).hasValue(Fault.Kind.SERVER_ERROR);
    assertThat(kind(policy(1, 0, 1), 5)).hasValue(Fault.Kind.DISCONNECT);
  }

  @Test
  void scheduledFaultsStrikeExactlyTheListedRequestsAndWinOverDraws() {
    FaultPolicy policy = FaultPolicy.of(SimulatorConfig.builder().serverErrors(1.0)
        .faultOnRequests(Fault.rateLimited(Duration.ofSeconds(2)), 3, 5).build());

    assertThat(kind(policy, 3)).hasValue(Fault.Kind.RATE_LIMITED);
    assertThat(kind(policy, 5)).hasValue(Fault.Kind.RATE_LIMITED);
    for (long i : List.of(0L, 1L, 2L, 4L, 6L)) {
      assertThat(kind(policy, i)).hasValue(Fault.Kind.SERVER_ERROR);
    }
  }

  @Test
  void slowdownDelayIsTheStretchedDelayPlusSeededJitterWithAFloor() {
    // Seed 9's jitters on [0, 200 ms] for requests 0, 1, 3 and 4, from SplitMix64 by hand (Python,
    // the same mix as Mix.unit; seed 9 ^ 0x5DEECE66D ^ 0x7A3C1F2B9D4E6F81): 1.565098, 126.238647,
    // 29.892791 and 77.031013 ms. Delay = max(100 ms, 1.8 × base + jitter).
    FaultPolicy policy = policy(9, 0, 0);
    long max = 200_000_000;
    assertThat(policy.jitterNanos(0, max)).isEqualTo(1_565_098L);
    assertThat(policy.jitterNanos(1, max)).isEqualTo(126_238_647L);
    assertThat(policy.jitterNanos(3, max)).isEqualTo(29_892_791L);
    assertThat(policy.jitterNanos(4, max)).isEqualTo(77_031_013L);

    Fault seed003 = Fault.slowdown(1.8, Duration.ofMillis(200));
    assertThat(seed003.floor()).isEqualTo(Duration.ofMillis(100));
    long base = 20_000_000; // a write normally 20 ms after arrival: 36 ms stretched
    assertThat(seed003.slowedNanos(base, policy.jitterNanos(0, max))).isEqualTo(100_000_000L);  // 37.6 ms: floor
    assertThat(seed003.slowedNanos(base, policy.jitterNanos(1, max))).isEqualTo(162_238_647L);
    assertThat(seed003.slowedNanos(base, policy.jitterNanos(3, max))).isEqualTo(100_000_000L);  // 65.9 ms: floor
    assertThat(seed003.slowedNanos(base, policy.jitterNanos(4, max))).isEqualTo(113_031_013L);
    assertThat(seed003.slowedNanos(50_000_000, policy.jitterNanos(3, max))).isEqualTo(119_892_791L);

    Fault noFloor = Fault.slowdown(1.8, Duration.ofMillis(200), Duration.ZERO);
    assertThat(noFloor.slowedNanos(base, policy.jitterNanos(0, max))).isEqualTo(37_565_098L);
    assertThat(noFloor).isNotEqualTo(seed003);
    assertThat(seed003.toString()).isEqualTo("slowdown(x1.8 + up to 200ms, at least 100ms)");
    assertThat(noFloor.toString()).isEqualTo("slowdown(x1.8 + up to 200ms)");
  }

  @Test
  void slowdownJitterIsSeededAndWithinItsBound() {
    FaultPolicy policy = policy(9, 0, 0);
    long max = 200_000_000;
    double sum = 0;
    for (long i = 0; i < 10_000; i++) {
      long j = policy.jitterNanos(i, max);
      assertThat(j).isBetween(0L, max);
      assertThat(policy.jitterNanos(i, max)).isEqualTo(j);
      sum += j;
    }
    // Uniform on [0, 200 ms]: mean 100 ms, standard error 0.58 ms over 10,000 draws.
    assertThat(sum / 10_000 / 1e6).isBetween(97.7, 102.3);
  }
}
