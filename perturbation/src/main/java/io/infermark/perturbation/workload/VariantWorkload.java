package io.infermark.perturbation.workload;

import io.infermark.core.request.GenerationParams;
import io.infermark.core.workload.RequestSpec;
import io.infermark.core.workload.Workload;
import io.infermark.perturbation.Variant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiFunction;

/**
 * A {@link Workload} that sends each variant of a design {@code repetitions} times, every request
 * with its variant's prompt and tags ({@code variant}, {@code class}, {@code level.<dimension>}, plus
 * {@value #REPETITION_TAG}) and its variant's own generation parameters: by default
 * {@link Variant#params(GenerationParams)}, the run's parameters plus a strict
 * {@code response_format} built from the variant's (possibly mutated) output schema.
 *
 * <pre>{@code
 * List<Variant> variants = space.variants(Designs.orthogonalArray(space.levelCounts()), 42);
 * VariantWorkload workload = VariantWorkload.of(variants).repetitions(20);
 * RunResult run = Benchmark.target(target).workload(workload)
 *     .load(LoadProfile.concurrency(6).requests(workload.size())).run();
 * }</pre>
 *
 * <p>Order of one pass of {@link #size()} = variants × repetitions requests:
 * <ul>
 *   <li>{@link Order#INTERLEAVED} (default): request {@code i} sends variant {@code i mod V} (all
 *       variants once, then all again), so slow drift of the server spreads evenly over variants;
 *   <li>{@link Order#BLOCKED}: request {@code i} sends variant {@code (i div n) mod V} ({@code n}
 *       requests of the first variant, then of the second), which keeps a variant's requests together,
 *       e.g. to measure warm prefix caches.
 * </ul>
 * A run longer than one pass starts the next pass (the repetition tag keeps counting). Immutable and
 * thread-safe.
 */
public final class VariantWorkload implements Workload {

  /** The tag holding a request's repetition number within its variant, from 0. */
  public static final String REPETITION_TAG = "repetition";

  /** How the variants' requests follow each other. */
  public enum Order {
    /** Variant {@code i mod V}: every variant once per round. */
    INTERLEAVED,
    /** Variant {@code (i div n) mod V}: each variant's {@code n} requests in a row. */
    BLOCKED
  }

  private final List<Variant> variants;
  private final int repetitions;
  private final Order order;
  private final BiFunction<Variant, GenerationParams, GenerationParams> params;
  /** Per variant, the last (defaults, params) pair computed: runs keep one defaults object. */
  private final AtomicReferenceArray<Cached> cache;

  private record Cached(GenerationParams defaults, GenerationParams params) {}

  private VariantWorkload(List<Variant> variants, int repetitions, Order order,
      BiFunction<Variant, GenerationParams, GenerationParams> params) {
    this.variants = variants;
    this.repetitions = repetitions;
    this.order = order;
    this.params = params;
    this.cache = new AtomicReferenceArray<>(variants.size());
  }

  /** The variants, each sent once per pass, interleaved, with {@link Variant#params(GenerationParams)}. */
  public static VariantWorkload of(List<Variant> variants) {
    Objects.requireNonNull(variants, "variants");
    if (variants.isEmpty()) {
      throw new IllegalArgumentException("variants is empty: give at least one variant");
    }
    for (int i = 0; i < variants.size(); i++) {
      Objects.requireNonNull(variants.get(i), "variants[" + i + "]");
    }
    return new VariantWorkload(List.copyOf(variants), 1, Order.INTERLEAVED, Variant::params);
  }

  /** The same workload sending each variant {@code repetitions} times per pass (at least 1). */
  public VariantWorkload repetitions(int repetitions) {
    if (repetitions < 1) {
      throw new IllegalArgumentException("repetitions must be >= 1, was " + repetitions);
    }
    if ((long) variants.size() * repetitions > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("repetitions " + repetitions + " x " + variants.size()
          + " variants exceeds " + Integer.MAX_VALUE + " requests per pass");
    }
    return new VariantWorkload(variants, repetitions, order, params);
  }

  /** The same workload in another order. */
  public VariantWorkload order(Order order) {
    return new VariantWorkload(variants, repetitions, Objects.requireNonNull(order, "order"), params);
  }

  /**
   * The same workload with another rule for a variant's parameters, given the run's defaults (for
   * example a temperature per level); must return non-null and be a pure function. The default is
   * {@link Variant#params(GenerationParams)}.
   */
  public VariantWorkload params(BiFunction<Variant, GenerationParams, GenerationParams> params) {
    return new VariantWorkload(variants, repetitions, order, Objects.requireNonNull(params, "params"));
  }

  /** The variants, in their order. */
  public List<Variant> variants() {
    return variants;
  }

  /** Requests per variant per pass. */
  public int repetitions() {
    return repetitions;
  }

  /** The order of a pass. */
  public Order order() {
    return order;
  }

  /** Requests in one pass: variants × repetitions. */
  public int size() {
    return variants.size() * repetitions;
  }

  /** The variant request {@code index} sends. */
  public Variant variantAt(long index) {
    return variants.get(variantIndex(index));
  }

  /** The repetition number request {@code index} carries: its variant's earlier requests in the run. */
  public long repetitionAt(long index) {
    checkIndex(index);
    long v = variants.size();
    if (order == Order.INTERLEAVED) {
      return index / v;
    }
    long pass = index / size();
    return pass * repetitions + index % repetitions;
  }

  @Override
  public RequestSpec request(long index, long intendedNanos, GenerationParams defaults) {
    Objects.requireNonNull(defaults, "defaults");
    int v = variantIndex(index);
    Variant variant = variants.get(v);
    return new RequestSpec(variant.prompt().withTag(REPETITION_TAG, Long.toString(repetitionAt(index))),
        paramsOf(v, variant, defaults));
  }

  @Override
  public int distinctPrompts() {
    return variants.size();
  }

  private GenerationParams paramsOf(int v, Variant variant, GenerationParams defaults) {
    Cached c = cache.get(v);
    if (c != null && c.defaults.equals(defaults)) {
      return c.params;
    }
    GenerationParams p = Objects.requireNonNull(params.apply(variant, defaults),
        "params rule returned null for variant " + variant.index());
    cache.set(v, new Cached(defaults, p));
    return p;
  }

  private int variantIndex(long index) {
    checkIndex(index);
    long v = variants.size();
    return (int) (order == Order.INTERLEAVED ? index % v : (index / repetitions) % v);
  }

  private static void checkIndex(long index) {
    if (index < 0) {
      throw new IllegalArgumentException("request index must be >= 0, was " + index);
    }
  }

  @Override
  public String toString() {
    return "VariantWorkload[" + variants.size() + " variants x " + repetitions + " " + order.name().toLowerCase(java.util.Locale.ROOT)
        + "]";
  }
}
