package io.infermark.attribution.pareto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.infermark.core.capture.ChunkKind;
import io.infermark.core.capture.ChunkTimeline;
import io.infermark.core.capture.RequestRecord;
import io.infermark.core.fixtures.RunFixtures;
import io.infermark.core.load.LoadProfile;
import io.infermark.metrics.LatencyMetric;
import io.infermark.metrics.RunSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ParetoFrontTest {

  /**
   * A (10, 100), B (8, 60), C (6, 80), D (4, 30), E (10, 120), F (2, 30), G (4, 30):
   * C is dominated by B, E by A (same throughput, slower), F by D (same latency, less throughput);
   * G duplicates D, so both are on the front.
   */
  private static final List<ParetoPoint<String>> HAND = List.of(new ParetoPoint<>("A", 10, 100),
      new ParetoPoint<>("B", 8, 60), new ParetoPoint<>("C", 6, 80), new ParetoPoint<>("D", 4, 30),
      new ParetoPoint<>("E", 10, 120), new ParetoPoint<>("F", 2, 30), new ParetoPoint<>("G", 4, 30));

  @Test
  void handComputedFrontKeepsDuplicatesAndNamesDominators() {
    ParetoFront<String> f = ParetoFront.of(HAND);

    assertThat(f.front()).extracting(ParetoPoint::label).containsExactly("A", "B", "D", "G");
    assertThat(f.frontIndices()).containsExactly(0, 1, 3, 6);
    assertThat(f.dominated()).extracting(ParetoPoint::label).containsExactly("C", "E", "F");
    assertThat(f.dominatorOf(2)).hasValue(1); // C by B
    assertThat(f.dominatorOf(4)).hasValue(0); // E by A
    assertThat(f.dominatorOf(5)).hasValue(3); // F by D, the first of the duplicates
    assertThat(f.dominatorOf(6)).isEmpty();
    assertThat(f.isOnFront(6)).isTrue();
  }

  @Test
  void hypervolumeIsTheSumOfRectanglesUnderTheReference() {
    ParetoFront<String> f = ParetoFront.of(HAND);

    // Default reference (0, 100), A's latency, the front's worst (dominated E's 120 does not count):
    // D 4 x 70 + B (8 - 4) x 40 + A (10 - 8) x 0 = 280 + 160.
    assertThat(f.defaultReferenceLatencyMillis()).isEqualTo(100);
    assertThat(f.hypervolume()).isCloseTo(440, within(1e-12));
    // Reference (0, 120): D 4 x 90 + B (8 - 4) x 60 + A (10 - 8) x 20 = 360 + 240 + 40.
    assertThat(f.hypervolume(0, 120)).isCloseTo(640, within(1e-12));
    // Reference (2, 110): D (4 - 2) x 80 + B 4 x 50 + A 2 x 10.
    assertThat(f.hypervolume(2, 110)).isCloseTo(380, within(1e-12));
    // Reference (5, 70): only B (8 - 5) x 10 counts; A is above the ceiling, D below the floor.
    assertThat(f.hypervolume(5, 70)).isCloseTo(30, within(1e-12));
    assertThat(f.hypervolume(20, 1000)).isZero();
  }

  @Test
  void javadocExampleAddsUp() {
    ParetoFront<String> f = ParetoFront.of(List.of(new ParetoPoint<>("batch 8", 40, 300),
        new ParetoPoint<>("batch 16", 70, 450), new ParetoPoint<>("batch 32", 65, 900)));

    assertThat(f.front()).extracting(ParetoPoint::label).containsExactly("batch 16", "batch 8");
    assertThat(f.dominatorOf(2)).hasValue(1);
    assertThat(f.hypervolume(0, 1000)).isCloseTo(44_500, within(1e-9));
    assertThat(f.hypervolume()).isCloseTo(6_000, within(1e-9));
    assertThat(f.toString()).isEqualTo("ParetoFront[2 of 3 points on the front: batch 16 (70.0/s, 450.000 ms), "
        + "batch 8 (40.0/s, 300.000 ms); hypervolume 6000.000 below (0/s, 450.000 ms)]");
  }

  @Test
  void addingADominatedConfigurationDoesNotChangeTheDefaultHypervolume() {
    List<ParetoPoint<String>> two = List.of(new ParetoPoint<>("A", 40, 300), new ParetoPoint<>("B", 70, 450));
    List<ParetoPoint<String>> three = new ArrayList<>(two);
    three.add(new ParetoPoint<>("C", 65, 900)); // dominated by B, and slower than every front point

    // 40 x (450 - 300) + 30 x 0 both times; a ceiling at C's 900 ms would have made it 37,500.
    assertThat(ParetoFront.of(two).hypervolume()).isCloseTo(6_000, within(1e-9));
    assertThat(ParetoFront.of(three).hypervolume()).isCloseTo(6_000, within(1e-9));
    assertThat(ParetoFront.of(three).defaultReferenceLatencyMillis()).isEqualTo(450);
    // With one explicit reference, the dominated point changes nothing either.
    assertThat(ParetoFront.of(three).hypervolume(0, 1000)).isEqualTo(ParetoFront.of(two).hypervolume(0, 1000));
  }

  @Test
  void emptyAndSinglePointFronts() {
    assertThat(ParetoFront.<String>of(List.of()).front()).isEmpty();
    assertThat(ParetoFront.<String>of(List.of()).hypervolume()).isZero();
    ParetoFront<String> one = ParetoFront.of(List.of(new ParetoPoint<>("x", 5, 10)));
    assertThat(one.front()).hasSize(1);
    assertThat(one.hypervolume()).isZero(); // its own latency is the ceiling
    assertThat(one.hypervolume(0, 30)).isEqualTo(100);
  }

  @Test
  void bruteForceAgreesOnATiedIntegerGrid() {
    // 2000 points on a 0..40 grid: many ties and duplicates. Front and dominators against the O(n^2)
    // definition; hypervolume against counting the unit cells the front dominates.
    SplittableRandom rnd = new SplittableRandom(7);
    List<ParetoPoint<Integer>> pts = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      pts.add(new ParetoPoint<>(i, rnd.nextInt(41), rnd.nextInt(41)));
    }
    ParetoFront<Integer> f = ParetoFront.of(pts);

    for (int i = 0; i < pts.size(); i++) {
      boolean dominated = false;
      for (ParetoPoint<Integer> q : pts) {
        dominated |= q.dominates(pts.get(i));
      }
      assertThat(f.isOnFront(i)).as("point %d", i).isEqualTo(!dominated);
      int by = f.dominatorOf(i).orElse(-1);
      if (dominated) {
        assertThat(pts.get(by).dominates(pts.get(i))).isTrue();
        assertThat(f.isOnFront(by)).isTrue();
      }
    }
    for (int refT = 0; refT <= 10; refT += 5) {
      for (int refL = 30; refL <= 40; refL += 10) {
        assertThat(f.hypervolume(refT, refL)).isEqualTo(cells(f.front(), refT, refL));
      }
    }
  }

  @Test
  void hundredThousandRandomPointsMatchBruteForceOnASample() {
    SplittableRandom rnd = new SplittableRandom(42);
    List<ParetoPoint<Integer>> pts = new ArrayList<>();
    for (int i = 0; i < 100_000; i++) {
      // Throughput on a 0.01 grid (ties), latency falling with throughput plus noise (a realistic front).
      double t = Math.rint(rnd.nextDouble() * 10_000) / 100;
      pts.add(new ParetoPoint<>(i, t, 20 + 5 * t + 200 * rnd.nextDouble()));
    }
    ParetoFront<Integer> f = ParetoFront.of(pts);
    double[] t = pts.stream().mapToDouble(ParetoPoint::throughput).toArray();
    double[] l = pts.stream().mapToDouble(ParetoPoint::latencyMillis).toArray();

    // Every front point is dominated by none of the 100,000 (O(front x n)).
    int[] front = f.frontIndices();
    assertThat(front).isNotEmpty();
    for (int i : front) {
      assertThat(dominatedByAny(t, l, i)).as("front point %d", i).isFalse();
    }
    // 500 sampled points: on the front exactly when brute force finds no dominator among all 100,000.
    for (int s = 0; s < 500; s++) {
      int i = rnd.nextInt(pts.size());
      boolean dominated = dominatedByAny(t, l, i);
      assertThat(f.isOnFront(i)).as("point %d", i).isEqualTo(!dominated);
      if (dominated) {
        assertThat(pts.get(f.dominatorOf(i).getAsInt()).dominates(pts.get(i))).isTrue();
      }
    }
  }

  private static boolean dominatedByAny(double[] t, double[] l, int i) {
    for (int j = 0; j < t.length; j++) {
      if (t[j] >= t[i] && l[j] <= l[i] && (t[j] > t[i] || l[j] < l[i])) {
        return true;
      }
    }
    return false;
  }

  @Test
  void pointFromARunSummaryUsesThroughputAndThePercentile() {
    // 100 requests sent every 10 ms, TTFT 50 ms, ending 100 ms after send: window 0 .. 1090 ms.
    List<RequestRecord> records = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      records.add(RequestRecord.builder().index(i).intendedNanos(i * 10_000_000L).sendNanos(i * 10_000_000L)
          .httpStatus(200).chunks(ChunkTimeline.builder().add(50_000_000L, ChunkKind.CONTENT, 1)
              .add(100_000_000L, ChunkKind.CONTENT, 1).build()).endOffsetNanos(100_000_000L).build());
    }
    RunSummary s = RunSummary.of(RunFixtures.run(records).load(LoadProfile.constantRate(100))
        .durationNanos(1_090_000_000L).target("fake").build());

    ParetoPoint<String> p = ParetoPoint.of("cfg", s, LatencyMetric.TTFT, 0.99).orElseThrow();

    assertThat(p.throughput()).isCloseTo(100 / 1.09, within(1e-9));
    assertThat(p.latencyMillis()).isCloseTo(50, within(1e-9));
    RunSummary none = RunSummary.of(RunFixtures.run(List.of()).load(LoadProfile.constantRate(1)).durationNanos(0)
        .target("fake").build());
    assertThat(ParetoPoint.of("none", none, LatencyMetric.TTFT, 0.99)).isEmpty();
  }

  @Test
  void negativeOrNonFiniteCoordinatesAreRejected() {
    assertThatThrownBy(() -> new ParetoPoint<>("x", -1, 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("throughput of x must be finite and >= 0, was -1.0");
    assertThatThrownBy(() -> new ParetoPoint<>("x", 1, Double.NaN)).hasMessageContaining("latencyMillis");
    assertThatThrownBy(() -> ParetoFront.of(HAND).hypervolume(0, Double.POSITIVE_INFINITY))
        .hasMessageContaining("finite");
  }

  /** Unit cells [t, t+1] x [l, l+1] inside the reference box that some front point dominates. */
  private static long cells(List<ParetoPoint<Integer>> front, int refT, int refL) {
    long count = 0;
    for (int t = refT; t < 41; t++) {
      for (int l = 0; l < refL; l++) {
        for (ParetoPoint<Integer> p : front) {
          if (p.throughput() >= t + 1 && p.latencyMillis() <= l) {
            count++;
            break;
          }
        }
      }
    }
    return count;
  }
}
