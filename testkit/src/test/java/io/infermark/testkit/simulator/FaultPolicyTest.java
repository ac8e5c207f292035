package io.infermark.testkit.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.infermark.testkit.simulator.FaultPolicy.Fault;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FaultPolicyTest {

  @Test
  void noProbabilitiesMeansNoFaults() {
    FaultPolicy none = new FaultPolicy(1, 0, 0);

    for (long i = 0; i < 1000; i++) {
      assertThat(none.decide(i)).isEqualTo(Fault.NONE);
    }
  }

  @Test
  void decisionsArePureFunctionsOfSeedAndSequence() {
    FaultPolicy a = new FaultPolicy(7, 0.2, 0.1);
    FaultPolicy b = new FaultPolicy(7, 0.2, 0.1);
    FaultPolicy otherSeed = new FaultPolicy(8, 0.2, 0.1);

    int differences = 0;
    for (long i = 999; i >= 0; i--) { // order of asking must not matter
      assertThat(a.decide(i)).isEqualTo(b.decide(i));
      differences += a.decide(i) != otherSeed.decide(i) ? 1 : 0;
    }
    assertThat(differences).isGreaterThan(100);
  }

  @Test
  void faultRatesMatchTheProbabilities() {
    FaultPolicy policy = new FaultPolicy(3, 0.2, 0.1);
    Map<Fault, Integer> counts = new EnumMap<>(Fault.class);
    int n = 20_000;
    for (long i = 0; i < n; i++) {
      counts.merge(policy.decide(i), 1, Integer::sum);
    }

    // ±4 standard deviations: sqrt(n p (1-p)) is about 57 and 42 here.
    assertThat(counts.get(Fault.SERVER_ERROR)).isBetween(4000 - 230, 4000 + 230);
    assertThat(counts.get(Fault.DISCONNECT)).isBetween(2000 - 170, 2000 + 170);
  }

  @Test
  void certainFaultsAlwaysHappen() {
    assertThat(new FaultPolicy(1, 1, 0).decide(5)).isEqualTo(Fault.SERVER_ERROR);
    assertThat(new FaultPolicy(1, 0, 1).decide(5)).isEqualTo(Fault.DISCONNECT);
  }
}
