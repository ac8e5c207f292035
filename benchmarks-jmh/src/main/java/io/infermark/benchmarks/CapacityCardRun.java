package io.infermark.benchmarks;

import io.infermark.testkit.capacity.CapacityCard;
import io.infermark.testkit.capacity.CardSettings;
import java.time.Duration;

/**
 * Prints this machine's client capacity card ({@link CapacityCard}): the ceiling of one client process before its
 * error bound passes 1 ms at p99, for streamed tokens/s (1 and 8 per chunk), non-streamed requests/s and
 * concurrent streams (with the heap each holds), over HTTP/1.1, h2c and gRPC, against the simulator in the same
 * JVM. The same measurement as {@code infermark capacity-card}; here each step is printed as it is measured.
 *
 * <p>Run: {@code java -XX:+UseShenandoahGC -cp benchmarks-jmh/target/benchmarks.jar
 * io.infermark.benchmarks.CapacityCardRun [--quick] [budgetSeconds [errorBoundMillis]]}. The collector is part of the card: every
 * stop-the-world pause counts in the error bound, and the {@code infermark} launcher runs Shenandoah (or ZGC);
 * under G1 a young collection alone can pass 1 ms. A measurement, not a test.
 */
public final class CapacityCardRun {

  private CapacityCardRun() {}

  /**
   * Measures and prints the card.
   *
   * @param args {@code --quick}, a budget in seconds and an error-bound limit in ms, all optional
   */
  public static void main(String[] args) {
    boolean quick = args.length > 0 && args[0].equals("--quick");
    CardSettings.Builder b = (quick ? CardSettings.quick() : CardSettings.full()).toBuilder();
    int next = quick ? 1 : 0;
    if (args.length > next) {
      b.budget(Duration.ofSeconds(Long.parseLong(args[next])));
    }
    if (args.length > next + 1) {
      b.errorBoundLimit(Duration.ofNanos(Math.round(Double.parseDouble(args[next + 1]) * 1e6)));
    }
    CapacityCard card = CapacityCard.measure(b.build(), System.out::println);
    System.out.println();
    System.out.print(card.toTable());
  }
}
