package io.infermark.testkit.junit;

import io.infermark.testkit.simulator.SimulatorConfig;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class or method against a simulator started for it, configured here, and closed
 * after it. On a class, one simulator serves every test of the class; on a method, that method
 * gets its own. Inject it as a parameter or an {@link InjectSimulator @InjectSimulator} field of
 * type {@link io.infermark.testkit.simulator.Simulator Simulator}, {@link InferenceEndpoint} or
 * {@link io.infermark.core.protocol.OpenAiTarget OpenAiTarget}.
 *
 * <pre>{@code
 * @WithSimulator(profile = "early-saturation", seed = 7)
 * class KneeTest {
 *   @Test
 *   void queueingBeginsPastSixteenStreams(OpenAiTarget target, Simulator sim) { ... }
 * }
 * }</pre>
 *
 * <p>Setting the system property {@value SimulatorExtension#ENDPOINT_PROPERTY} (and optionally
 * {@value SimulatorExtension#MODEL_PROPERTY}) runs the same tests against that server instead: no
 * simulator is started, and only {@link InferenceEndpoint} and {@code OpenAiTarget} can be injected.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@ExtendWith(SimulatorExtension.class)
public @interface WithSimulator {

  /** An {@link io.infermark.testkit.simulator.EngineProfile#NAMES engine profile} name; empty (the default) for fixed timing. */
  String profile() default "";

  /** The served model name. */
  String model() default SimulatorConfig.DEFAULT_MODEL;

  /** The seed of output text, natural lengths and faults. */
  long seed() default 0;

  /** Fixed-timing TTFT in milliseconds (ignored with a profile). */
  long timeToFirstTokenMillis() default 20;

  /** Fixed-timing inter-token interval in milliseconds (ignored with a profile). */
  long interTokenIntervalMillis() default 5;

  /** The natural output length of requests without {@code max_tokens}. */
  int defaultOutputTokens() default 64;

  /** Tokens per streamed chunk. */
  int tokensPerChunk() default 1;
}
