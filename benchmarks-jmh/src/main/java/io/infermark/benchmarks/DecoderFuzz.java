package io.infermark.benchmarks;

import io.infermark.testkit.fuzz.DecoderFuzzer;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The long fuzzing run behind the build's 20,000-stream check: a million (or any number of) mutated
 * streams through every dialect decoder and whole-body reader, seeded from the real transcripts.
 * Deterministic: the same seed replays the same streams, and a broken stream is named by its number.
 *
 * <p>Run: {@code java -Xmx256m -cp benchmarks-jmh/target/benchmarks.jar io.infermark.benchmarks.DecoderFuzz
 * [seed=1] [streams=1000000] [fixtures=core/src/test/resources/fixtures]}. Prints the counts (completed,
 * failed by category, contract breaks and the first of them) and exits with status 1 on any break.
 */
public final class DecoderFuzz {

  private DecoderFuzz() {}

  /** Runs the fuzzer and prints its counts. */
  public static void main(String[] args) {
    long seed = args.length > 0 ? Long.parseLong(args[0]) : 1;
    long streams = args.length > 1 ? Long.parseLong(args[1]) : 1_000_000;
    Path fixtures = Path.of(args.length > 2 ? args[2] : "core/src/test/resources/fixtures");
    DecoderFuzzer fuzzer = DecoderFuzzer.builder().seedBodies(DecoderFuzzer.readDirectory(fixtures)).seed(seed).build();
    long start = System.nanoTime();
    DecoderFuzzer.Result r = fuzzer.run(streams);
    double seconds = (System.nanoTime() - start) / 1e9;
    System.out.printf(Locale.ROOT, "%s%nseed %d: %d streams in %.1f s (%.0f/s), %.1f MB fed%n", fuzzer, seed,
        r.streams(), seconds, r.streams() / seconds, r.bytesFed() / 1e6);
    System.out.printf(Locale.ROOT, "completed %d, failed %d %s, contract breaks %d%n", r.completed(), r.failed(),
        r.failuresByCategory(), r.contractBreaks());
    r.firstBreaks().forEach(b -> System.out.println("  " + b));
    if (r.contractBreaks() > 0) {
      System.exit(1);
    }
  }
}
