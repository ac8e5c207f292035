package io.infermark.testkit.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class GridWheelTest {

  private static List<String> poll(GridWheel<String> wheel, long step) {
    ArrayList<String> out = new ArrayList<>();
    wheel.pollDue(step, out);
    return out;
  }

  @Test
  void itemsComeOutAtTheirStepAndNotBefore() {
    GridWheel<String> wheel = new GridWheel<>(8);
    wheel.add("a", 3);
    wheel.add("b", 5);
    wheel.add("c", 5);

    assertThat(wheel.nextStep()).isEqualTo(3);
    assertThat(poll(wheel, 2)).isEmpty();
    assertThat(poll(wheel, 3)).containsExactly("a");
    assertThat(wheel.nextStep()).isEqualTo(5);
    assertThat(poll(wheel, 4)).isEmpty();
    assertThat(poll(wheel, 7)).containsExactly("b", "c");
    assertThat(wheel.isEmpty()).isTrue();
    assertThat(wheel.nextStep()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void stepsBeyondTheRingWaitForItToComeRound() {
    GridWheel<String> wheel = new GridWheel<>(8);
    poll(wheel, 0);
    wheel.add("near", 2);
    wheel.add("far", 2 + 8 * 3); // same bucket, three rounds later

    assertThat(poll(wheel, 2)).containsExactly("near");
    assertThat(wheel.nextStep()).isEqualTo(26);
    assertThat(poll(wheel, 25)).isEmpty();
    assertThat(poll(wheel, 26)).containsExactly("far");
  }

  @Test
  void aLatePollTakesEverythingDueEvenAcrossMoreThanOneRound() {
    GridWheel<String> wheel = new GridWheel<>(8);
    poll(wheel, 0);
    for (int s = 1; s <= 30; s++) {
      wheel.add("s" + s, s);
    }

    List<String> out = poll(wheel, 20);

    assertThat(out).hasSize(20).contains("s1", "s8", "s9", "s20").doesNotContain("s21");
    assertThat(wheel.size()).isEqualTo(10);
    assertThat(wheel.nextStep()).isEqualTo(21);
  }

  @Test
  void anItemAddedForAStepAlreadyPolledComesOutAtTheNext() {
    GridWheel<String> wheel = new GridWheel<>(8);
    poll(wheel, 10);
    wheel.add("late", 4);

    assertThat(wheel.nextStep()).isEqualTo(11);
    assertThat(poll(wheel, 10)).isEmpty();
    assertThat(poll(wheel, 11)).containsExactly("late");
  }
}
