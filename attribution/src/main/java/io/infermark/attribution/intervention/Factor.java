package io.infermark.attribution.intervention;

import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * One thing an intervention experiment changes, with its two settings: each setting turns the
 * configuration a block runs with ({@code C}, usually a {@link io.infermark.core.Benchmark}) into
 * the configuration with that setting applied.
 *
 * <pre>{@code
 * // A load parameter: closed-loop concurrency 4 (A) or 16 (B).
 * Factor<Benchmark> concurrency = Factor.of("concurrency",
 *     b -> b.load(LoadProfile.concurrency(4).requests(200)), b -> b.load(LoadProfile.concurrency(16).requests(200)));
 * // A server knob: two deployments (or two simulator configurations) behind two targets.
 * Factor<Benchmark> server = Factor.of("server", b -> b.withTarget(current), b -> b.withTarget(candidate));
 * // A prompt operator: the same prompts, or the same prompts with a long shared prefix.
 * Factor<Benchmark> prefix = Factor.of("prefix", b -> b.prompts(plain), b -> b.prompts(prefixed));
 * // A knob changed out of band (an admin API), before every block.
 * Factor<Benchmark> batch = Factor.sideEffect("batch", () -> admin.setMaxBatch(64), () -> admin.setMaxBatch(256));
 * }</pre>
 *
 * <p>Settings are applied in factor order to the experiment's base configuration before every block,
 * so they should be idempotent and must not depend on each other's order.
 *
 * @param <C> the configuration a block runs with
 */
public final class Factor<C> {

  private final String name;
  private final UnaryOperator<C> a;
  private final UnaryOperator<C> b;

  private Factor(String name, UnaryOperator<C> a, UnaryOperator<C> b) {
    this.name = name;
    this.a = a;
    this.b = b;
  }

  /**
   * A factor whose settings transform the configuration.
   *
   * @throws IllegalArgumentException if the name is blank
   */
  public static <C> Factor<C> of(String name, UnaryOperator<C> settingA, UnaryOperator<C> settingB) {
    return new Factor<>(checkedName(name), Objects.requireNonNull(settingA, "settingA"),
        Objects.requireNonNull(settingB, "settingB"));
  }

  /**
   * A factor whose setting A is the configuration as it is and whose setting B transforms it.
   *
   * @throws IllegalArgumentException if the name is blank
   */
  public static <C> Factor<C> of(String name, UnaryOperator<C> settingB) {
    return of(name, UnaryOperator.identity(), settingB);
  }

  /**
   * A factor set outside the configuration (a server's admin API, a feature flag): the chosen
   * action runs before each block, and the configuration passes through unchanged.
   *
   * @throws IllegalArgumentException if the name is blank
   */
  public static <C> Factor<C> sideEffect(String name, Runnable setA, Runnable setB) {
    Objects.requireNonNull(setA, "setA");
    Objects.requireNonNull(setB, "setB");
    return of(name, c -> {
      setA.run();
      return c;
    }, c -> {
      setB.run();
      return c;
    });
  }

  /** The factor's name, as attributions and reports show it. */
  public String name() {
    return name;
  }

  /**
   * The configuration with this factor at {@code level}.
   *
   * @throws NullPointerException if the setting returned null
   */
  public C apply(C configuration, Level level) {
    C out = (level == Level.A ? a : b).apply(configuration);
    return Objects.requireNonNull(out, () -> "factor '" + name + "' setting " + level + " returned null");
  }

  private static String checkedName(String name) {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("a factor's name must not be blank");
    }
    return name;
  }

  @Override
  public String toString() {
    return "Factor[" + name + "]";
  }
}
